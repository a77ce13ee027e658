# step-security.sh: make e2e's steps attack and rotate (sourced by scripts/e2e.sh; functions step_attack and
# step_rotate use its helpers: kn, k, start_job, run_job, finish_job, json, summary, acked_keys, dht_field,
# until_true, log_has, set_keys, report, $WORK, $NS).
#
#  attack. The sample cluster runs as a user gets it: member TLS, client TLS, client tokens and its NetworkPolicy on.
#     Every attack of issue 21 (replica writes and deletes at the end of the clock's range, far-ahead clock
#     readings, streamed records, forged topology headers naming a listener, cleanup, the profiler, a raw replica
#     write to the member port, the profiler sidecar's port), many times on every member, from
#       - pods of another namespace (no token: the Secret is not theirs to read),
#       - an unlabelled pod of the cluster's namespace, without a token and with the read-write token,
#       - a hostNetwork pod, which NetworkPolicies do not stop: it reaches the member port, where TLS refuses
#         plaintext, no client certificate and a certificate of another CA.
#     The attacks on the client port speak TLS as anyone can (no certificate); from another namespace the client
#     port is also tried in plaintext (each must get 400: TLS only) and with a client certificate of another CA
#     (each handshake must fail).
#     Every one must be refused; afterwards every key written before reads back, no member followed a forged
#     topology (the listener got no call), every member's topology is what it was, every clock is within the
#     nodes' bound (--max-clock-ahead, 30 s), and the members counted the refusals (dht_plane_refused_total).
#  rotate: rotation under load. A quorum writer runs while the members' certificate is renewed and then the CA is
#     replaced (trust both, re-issue, drop the old): 0 failed writes, every acknowledged key reads back, every
#     member serves the new certificate (a mutual TLS handshake from the node's network) and no pod restarted. The
#     same annotations renew the client port's certificate and replace its CA; the writer speaks TLS to the client
#     port with the DhtUser's certificate and the CA bundle, re-read as the kubelet delivers them, and the client
#     port's phases wait spec.tls.client.reloadGrace (45s here) each: the writer must fail nothing through both.

ATTACK_NS=${E2E_ATTACKER_NAMESPACE:-dht-e2e-attacker}
ATTACK_TIMES=${E2E_ATTACK_TIMES:-20}
MAX_CLOCK_AHEAD_MS=30000

# dhtattack.py in a Job: start_job's and run_job's, with their JOB_NS, JOB_TOKEN and JOB_MEMBER_TLS.
start_attack() { JOB_PROGRAM=dhtattack.py start_job "$@"; }
run_attack() { JOB_PROGRAM=dhtattack.py run_job "$@"; }
member_list() { member_urls; }
attack_summary() { # attack_summary NAME -> "540 sent, 0 let through (replica-write: http-403 x60, ...)"
  python3 - "$WORK/$1.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
if "error" in d:
    print(d["error"]); sys.exit()
kinds = {}
for outcomes in d["by_attack"].values():
    for k, n in outcomes.items():
        kinds[k] = kinds.get(k, 0) + n
through = d.get("let_through", d.get("answered", 0))
text = "%d sent, %d let through (%s)" % (d["sent"], through, ", ".join("%s x%d" % kv for kv in sorted(kinds.items())))
if d.get("listener_hits"):
    text += ", forged topology followed: %s" % d["listener_hits"][:3]
if through:
    text += ", e.g. %s" % d["examples"][:3]
print(text)
EOF
}
# Compares two snapshots: same topology on every member, clocks within the bound, refusals counted.
compare_snapshots() { # compare_snapshots BEFORE AFTER MIN_REFUSALS -> prints a verdict; 0 if fine
  python3 - "$WORK/$1.json" "$WORK/$2.json" "$3" "$MAX_CLOCK_AHEAD_MS" <<'EOF'
import json, sys
b, a = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
need, bound = float(sys.argv[3]), int(sys.argv[4])
problems = []
if "members" not in b or "members" not in a:
    print("no snapshot: %s / %s" % (b.get("error"), a.get("error"))); sys.exit(1)
refused = 0.0
for m, after in a["members"].items():
    before = b["members"].get(m, {})
    if after.get("topology") != before.get("topology"):
        problems.append("%s topology %s -> %s" % (m, before.get("topology"), after.get("topology")))
    ahead = after.get("clock_ahead_ms")
    if ahead is None or ahead > bound:
        problems.append("%s clock %s ms ahead" % (m, ahead))
    refused += after.get("plane_refused", 0) - before.get("plane_refused", 0)
if refused < need:
    problems.append("the members counted %d refusals, the attackers saw at least %d" % (refused, need))
ahead = max(v.get("clock_ahead_ms", 0) for v in a["members"].values())
print(("; ".join(problems)) if problems else
      "topology unchanged on %d members, clocks at most %d ms ahead, %d refusals counted by the members"
      % (len(a["members"]), ahead, refused))
sys.exit(1 if problems else 0)
EOF
}
# Refusals by the node itself (401/403 on the client port, not the network) in an attack result.
node_refusals() { json "$1" 'sum(n for o in d.get("by_attack", {}).values() for k, n in o.items() if k in ("http-401", "http-403"))' || echo 0; }
# Those connections themselves (from, to, when, outcome), at most 5, for the step's line.
connected() { json "$1" '"; ".join("%(from)s->%(to)s at %(at)s: %(outcome)s" % c for c in d.get("member_port_connected", [])[:5])' || true; }
# When a NetworkPolicy missed, what the host enforced then (root on the local cluster only: elsewhere nothing).
save_netfilter() {
  local out="$WORK/attack-netfilter.txt" logs="${DHT_CACHE_DIR:-$HOME/.cache/dht}/k8s/logs/kube-router.log"
  { date -u +%H:%M:%SZ
    for c in "iptables-save -t filter" "ipset list" "conntrack -L -p tcp"; do
      echo "## $c"; $c 2>&1 | head -3000 || true
    done
    echo "## kube-router log"; tail -n 400 "$logs" 2>&1 || true; } > "$out" 2>&1
  say "saved the host's filter rules, ipsets, connections and kube-router's log at the miss (attack-netfilter.txt in the diagnostics)"
}
# Connections to the member port or the profiler sidecar that were not blocked, in an attack result.
unblocked() { json "$1" 'sum(n for a, o in d.get("by_attack", {}).items() if a in ("member-port", "profiler-sidecar") for k, n in o.items() if k != "blocked")' || echo x; }

step_attack() {
  local members ok=1 missed=0 text keys sidecar_port=0 refusals=0 n
  members=$(member_list)
  [ -n "$members" ] || { report attack FAIL "no members in the DhtCluster's status"; return 1; }
  if ! kn get secret dht-auth >/dev/null 2>&1 || ! kn get networkpolicy dht >/dev/null 2>&1 \
     || [ "$(dht_field '{.status.tls.mode}')" != Operator ] || [ "$(dht_field '{.status.tls.client.enabled}')" != true ]; then
    report attack FAIL "the sample cluster is not secured by default: Secret dht-auth, NetworkPolicy dht, status.tls.mode Operator and client TLS expected"
    return 1
  fi
  if ! run_job e2e-write-attack 300 write --target "$SERVICE_URL" --prefix sa --count 300 --run "$RUN_ID"; then
    report attack FAIL "writer: $(summary e2e-write-attack)"; return 1
  fi
  keys=$(acked_keys e2e-write-attack)
  if kn get sts dht -o jsonpath='{.spec.template.spec.containers[*].name}' | grep -qw profiler; then sidecar_port=8079; fi
  JOB_CLIENT=ca JOB_TOKEN=read-write run_attack e2e-snapshot-1 120 snapshot --members "$members" \
    || { report attack FAIL "snapshot before: $(cat "$WORK/e2e-snapshot-1.json")"; return 1; }

  # The attackers: another namespace (its own pods, a hostNetwork one with another CA's certificate), and
  # unlabelled pods in the cluster's namespace.
  k delete namespace "$ATTACK_NS" --ignore-not-found --wait=true --timeout=120s >/dev/null 2>&1 || true
  k create namespace "$ATTACK_NS" >/dev/null
  local pki
  pki=$(mktemp -d "$WORK/pki.XXXXXX")
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "/CN=not-the-cluster-ca" \
    -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=dht-0.dht-headless.$NS.svc.cluster.local" \
    -keyout "$pki/key.pem" -out "$pki/csr.pem" 2>/dev/null
  openssl x509 -req -in "$pki/csr.pem" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial -days 1 \
    -out "$pki/cert.pem" 2>/dev/null
  k -n "$ATTACK_NS" create secret generic foreign-cert --from-file=tls.crt="$pki/cert.pem" \
    --from-file=tls.key="$pki/key.pem" >/dev/null
  local common=(--members "$members" --times "$ATTACK_TIMES" --keys "sa-0,sa-1,sa-2" --sidecar-port "$sidecar_port")
  JOB_NS=$ATTACK_NS JOB_CLIENT=none JOB_TOKEN=none JOB_SECRET=foreign-cert:/etc/foreign start_attack attack-other-ns \
    attack "${common[@]}" --listen 8099 --client-cert /etc/foreign/tls.crt --client-key /etc/foreign/tls.key
  JOB_CLIENT=none JOB_TOKEN=none start_attack e2e-attack-unlabelled attack "${common[@]}" --listen 8099
  JOB_CLIENT=none JOB_TOKEN=read-write start_attack e2e-attack-with-token attack "${common[@]}" --listen 8099
  # On the host's network with the other CA's certificate where a member's would be (JOB_MEMBER_TLS).
  JOB_NS=$ATTACK_NS JOB_CLIENT=none JOB_TOKEN=none JOB_MEMBER_TLS=foreign-cert start_attack attack-host-network \
    memberport --members "$members" --times "$ATTACK_TIMES" --cert /etc/member/tls.crt --key /etc/member/tls.key
  local lines=()
  for j in "$ATTACK_NS/attack-other-ns" "$NS/e2e-attack-unlabelled" "$NS/e2e-attack-with-token" "$ATTACK_NS/attack-host-network"; do
    JOB_NS=${j%%/*} finish_job "${j#*/}" 900 || ok=0
    lines+=("${j#*/}: $(attack_summary "${j#*/}")")
  done
  refusals=$(( $(node_refusals attack-other-ns) + $(node_refusals e2e-attack-unlabelled) + $(node_refusals e2e-attack-with-token) ))
  # From pods, the member port and the sidecar must be unreachable (the NetworkPolicy), not merely refused.
  for j in attack-other-ns e2e-attack-unlabelled e2e-attack-with-token; do
    n=$(unblocked "$j")
    [ "$n" = 0 ] || { ok=0; missed=1; lines+=("$j: $n connections to the member or sidecar port got through the NetworkPolicy ($(connected "$j"))"); }
  done
  [ $missed = 0 ] || save_netfilter
  # The client port itself: plaintext gets 400 (TLS only), another CA's client certificate a failed handshake.
  local port_refusals expected
  expected=$(( ATTACK_TIMES * $(tr ',' '\n' <<<"$members" | grep -c .) ))
  port_refusals=$(json attack-other-ns 'str(d["by_attack"].get("plaintext-client", {}).get("http-400", 0)) + "/" + str(d["by_attack"].get("foreign-cert-client", {}).get("tls-refused", 0))') || port_refusals=x
  if [ "$port_refusals" != "$expected/$expected" ]; then
    ok=0; lines+=("client port: plaintext answered 400 / other CA's certificate refused in the handshake: $port_refusals of $expected each")
  else
    lines+=("client port: plaintext answered 400 and another CA's client certificate refused in the handshake, $expected times each")
  fi
  text=$(printf '%s; ' "${lines[@]}")

  set_keys "$STEP3_KEYS" "$STEP4_KEYS"
  # the two reads at once (independent Jobs)
  start_job e2e-read-attack read --target "$SERVICE_URL" --prefix sa --keys "$keys" --run "$RUN_ID"
  [ -z "${STEP3_KEYS:-}" ] || start_job e2e-read-attack-s3 read --target "$SERVICE_URL" --prefix s3 --keys @/etc/e2e/step3 --run "$RUN_ID"
  finish_job e2e-read-attack 300 || ok=0
  text="$text read back: $(summary e2e-read-attack)"
  if [ -n "${STEP3_KEYS:-}" ]; then
    finish_job e2e-read-attack-s3 300 || ok=0
    text="$text / step 3's: $(summary e2e-read-attack-s3)"
  fi
  JOB_CLIENT=ca JOB_TOKEN=read-write run_attack e2e-snapshot-2 120 snapshot --members "$members" || ok=0
  local verdict
  verdict=$(compare_snapshots e2e-snapshot-1 e2e-snapshot-2 "$refusals") || ok=0
  text="$text; $verdict"
  k delete namespace "$ATTACK_NS" --wait=false >/dev/null 2>&1 || true
  if [ $ok -ne 1 ]; then report attack FAIL "$text"; return 1; fi
  report attack PASS "$text"
}

tls_field() { dht_field "{.status.tls.$1}"; }
serves() { # serves FINGERPRINT NAME -> 0 when every member serves the certificate with that fingerprint
  JOB_CLIENT=none JOB_TOKEN=none JOB_MEMBER_TLS=dht-member-tls run_attack "$2" 120 served \
    --members "$(member_list)" --member-tls /etc/member || return 1
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if all(v.get("fingerprint") == sys.argv[2] for v in d["members"].values()) else 1)' "$WORK/$2.json" "$1"
}
until_served() { # until_served FINGERPRINT SECONDS -> the kubelet delivers the Secret, then the node reloads it
  local deadline=$((SECONDS + $2)) i=0
  until serves "$1" "e2e-served-$i"; do
    [ $SECONDS -lt $deadline ] || return 1
    i=$((i + 1)); sleep 5
  done
}

step_rotate() {
  local ok=1 text pods_before pods_after cert0 ca0 cert1 t0 client_cert0 client_ca0
  # The client port's CA replacement waits this long per phase for the clients: the local cluster's kubelet syncs
  # every 10 s (scripts/k8s/up.sh), so a changed Secret or ConfigMap reaches the Jobs' mounts within about 20 s;
  # the writer reads the files again for its next connection. (Users keep the default, 10m, or what their
  # kubelet's sync needs.)
  kn patch dht dht --type merge -p '{"spec":{"tls":{"client":{"reloadGrace":"45s"}}}}' >/dev/null
  pods_before=$(node_pods)
  cert0=$(tls_field certificateFingerprint); ca0=$(tls_field caFingerprint)
  client_cert0=$(tls_field client.certificateFingerprint); client_ca0=$(tls_field client.caFingerprint)
  [ -n "$cert0" ] && [ -n "$ca0" ] && [ -n "$client_ca0" ] || { report rotate FAIL "no certificate in the status: $(dht_field '{.status.tls}')"; return 1; }
  start_job e2e-write-rotate write --target "$SERVICE_URL" --prefix sr --count 1000000 --rate 40 --threads 2 --run "$RUN_ID" \
    --allow-failures --stop-key e2e-stop-rotate --progress 200
  until_true 120 log_has e2e-write-rotate '^progress 200' || { report rotate FAIL "the writer did not get going"; return 1; }

  t0=$SECONDS
  kn annotate dht dht --overwrite "dht.dev/renew-certificate=e2e-$(date +%s)" >/dev/null
  if ! until_true 300 rotated certificateFingerprint "$cert0"; then
    text="renewal: status not Steady with a new certificate after 300s: $(tls_field message)"; ok=0
  else
    cert1=$(tls_field certificateFingerprint)
    if until_served "$cert1" 300; then
      text="renewed (same CA) and served by every member in $((SECONDS - t0))s"
    else
      text="renewed, but not every member serves it after 300s: $(cat "$WORK"/e2e-served-*.json | tail -1)"; ok=0
    fi
  fi

  t0=$SECONDS
  kn annotate dht dht --overwrite "dht.dev/replace-ca=e2e-$(date +%s)" >/dev/null
  if [ $ok -eq 1 ] && until_true 900 rotated caFingerprint "$ca0"; then
    cert1=$(tls_field certificateFingerprint)
    if until_served "$cert1" 300; then
      text="$text; CA replaced (trust both, re-issue, drop the old) and served in $((SECONDS - t0))s"
    else
      text="$text; CA replaced, but not every member serves the new certificate"; ok=0
    fi
  else
    text="$text; CA replacement not done after 900s: $(tls_field rotation): $(tls_field message)"; ok=0
  fi
  [ "$(kn get secret dht-member-tls -o jsonpath='{.data.ca\.crt}' | base64 -d | grep -c 'BEGIN CERTIFICATE')" = 1 ] \
    || { text="$text; ca.crt still holds more than one CA"; ok=0; }
  # The client port's: renewed and its CA replaced too, through both waits for the clients.
  if until_true 900 rotated client.caFingerprint "$client_ca0" \
     && [ "$(tls_field client.certificateFingerprint)" != "$client_cert0" ] \
     && [ "$(kn get configmap dht-client-ca.crt -o jsonpath='{.data.ca\.crt}' | grep -c 'BEGIN CERTIFICATE')" = 1 ]; then
    text="$text; client port: certificate renewed, CA replaced and the bundle down to the new CA in $((SECONDS - t0))s"
  else
    text="$text; client port CA replacement not done after 900s: $(tls_field client.rotation): $(tls_field client.message)"; ok=0
  fi

  run_job e2e-stop-rotate 60 put --target "$SERVICE_URL" --key e2e-stop-rotate >/dev/null || true
  finish_job e2e-write-rotate 120 || true
  local failed acked
  failed=$(json e2e-write-rotate "d['failed']"); acked=$(json e2e-write-rotate "d['acked']")
  run_job e2e-read-rotate 300 read --target "$SERVICE_URL" --prefix sr --keys "$(acked_keys e2e-write-rotate)" --run "$RUN_ID" || ok=0
  text="$text; writer during both: $(summary e2e-write-rotate), read back: $(summary e2e-read-rotate)"
  [ "${failed:-x}" = 0 ] && [ "${acked:-0}" -gt 0 ] 2>/dev/null || { text="$text (failed writes: ${failed:-?})"; ok=0; }
  pods_after=$(node_pods)
  [ "$pods_before" = "$pods_after" ] || { text="$text; pods restarted: $pods_before -> $pods_after"; ok=0; }
  if [ $ok -ne 1 ]; then report rotate FAIL "$text"; return 1; fi
  report rotate PASS "$text; no pod restarted"
}
# rotated FIELD OLD -> status.tls is Steady with FIELD (certificateFingerprint, caFingerprint) set and not OLD; one
# read of the status, so that both come from the same one
rotated() {
  local rotation now plane=""
  case $1 in client.*) plane=client. ;; esac
  IFS=$'\t' read -r rotation now < <(dht_field "{.status.tls.${plane}rotation}{\"\t\"}{.status.tls.$1}{\"\n\"}") || true
  [ "$rotation" = Steady ] && [ -n "$now" ] && [ "$now" != "$2" ]
}
node_pods() { # each node pod's name=uid/restarts: a restart or a replacement changes it
  kn get pods -l app.kubernetes.io/instance=dht,app.kubernetes.io/component=node \
    -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.uid}/{.status.containerStatuses[0].restartCount} {end}'
}
