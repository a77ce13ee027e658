# step-racks.sh -> make e2e's racks check (scripts/e2e.sh sources it and runs step_racks): a second DhtCluster, "rk",
# of six members in three racks of two, each rack pinned to the zone the local node is labelled with (one node:
# spec.allowMultiplePerNode), replication factor 3, so that every key has one replica in each rack. A writer and a
# reader at quorum run through rk's client Service while every pod of rack b is deleted at once: 0 failed
# requests, and every key written before and during the loss reads back. Rack-blind placement would put two of some
# keys' three replicas in rack b and fail their quorum requests. The node keeps its zone label only if it had one;
# rk's client port speaks TLS (the default): the Jobs present the certificate of its DhtUser app. rk, the user and
# rk's volumes are deleted at the end. Uses e2e.sh's helpers (kn, k, start_job, finish_job, run_job, json,
# summary, acked_keys, acked_after, log_has, report, until_true, say).

RK_URL() { echo "https://rk.$NS.svc:8080"; }  # TLS by default; e2e.sh gives lane C's Jobs rk's CA bundle
rk_field() { kn get dht rk -o "jsonpath=$1" 2>/dev/null; }
rk_ready() { # the current generation Ready with 6/6 members
  [ "$(rk_field '{.status.phase}')" = Ready ] && [ "$(rk_field '{.status.readyReplicas}')" = 6 ] \
    && [ "$(rk_field '{.status.observedGeneration}')" = "$(rk_field '{.metadata.generation}')" ]
}
rk_rack_b_replaced() { # both pods of rack b are new (their uids differ from $1) and ready
  local uids
  uids=$(kn get pods -l app.kubernetes.io/instance=rk,dht.dev/rack=b \
    -o jsonpath='{range .items[*]}{.metadata.uid}={.status.conditions[?(@.type=="Ready")].status} {end}')
  [ "$(grep -o '=True' <<<"$uids" | wc -l)" = 2 ] && ! grep -qF -e "${1%% *}" -e "${1##* }" <<<"$uids"
}
rk_gone() { ! kn get pods -l app.kubernetes.io/instance=rk -o name 2>/dev/null | grep -q . \
  && ! kn get pvc -l app.kubernetes.io/instance=rk -o name 2>/dev/null | grep -q .; }
rk_keys() { # rk_keys NAME VALUE: a key list the Jobs read, beside the other steps' in ConfigMap e2e-keys
  kn get configmap e2e-keys >/dev/null 2>&1 || kn create configmap e2e-keys >/dev/null
  kn patch configmap e2e-keys --type merge -p "{\"data\": {\"$1\": \"$2\"}}" >/dev/null
}

step_racks() { # runs the check, then removes rk and the zone label it added, whatever the outcome
  local node zone labelled=0 rc
  node=$(k get nodes -o jsonpath='{.items[0].metadata.name}')
  zone=$(k get node "$node" -o jsonpath='{.metadata.labels.topology\.kubernetes\.io/zone}')
  if [ -z "$zone" ]; then
    zone=dht-e2e-zone; labelled=1
    k label node "$node" "topology.kubernetes.io/zone=$zone" >/dev/null || { report racks FAIL "cannot label node $node"; return 1; }
  fi
  racks_check "$zone"; rc=$?
  if [ $rc -ne 0 ]; then # what collect() cannot see once rk is gone
    kn describe dht rk > "$WORK/racks-describe.txt" 2>&1 || true
    for pod in $(kn get pods -l app.kubernetes.io/instance=rk -o name 2>/dev/null); do
      kn logs "$pod" --all-containers > "$WORK/racks-${pod#pod/}.log" 2>&1 || true
    done
  fi
  kn delete dhtuser app --ignore-not-found --wait=true --timeout=60s >/dev/null 2>&1 || true
  kn delete dht rk --ignore-not-found --wait=true --timeout=180s >/dev/null 2>&1 || true
  until_true 300 rk_gone || say "rk's pods or volumes stayed after its deletion"
  [ $labelled -eq 0 ] || k label node "$node" topology.kubernetes.io/zone- >/dev/null || true
  return $rc
}

racks_check() { # racks_check ZONE
  local zone=$1 t0=$SECONDS uids deleted_at t_loss back last text ok=1 writer after
  kn apply -f - >/dev/null <<EOF || { report racks FAIL "kubectl apply refused the racked DhtCluster"; return 1; }
apiVersion: dht.dev/v1alpha1
kind: DhtCluster
metadata: {name: rk}
spec:
  replicas: 6
  replication: {factor: 3}
  allowMultiplePerNode: true       # one Kubernetes node: the three racks share it
  racks:
  - {name: a, zone: $zone}
  - {name: b, zone: $zone}
  - {name: c, zone: $zone}
  resources: {requests: {cpu: 50m, memory: 640Mi}, limits: {memory: 640Mi}}   # beside lanes A and B on 2 CPUs
  jvm: {heap: 256Mi}
  rocksdb: {blockCacheSize: 64Mi, writeBufferSize: 16Mi}
  storage: {size: 1Gi, retainOnDelete: false}
  # Six members at 50m beside two other lanes on 2 CPUs are at times starved past the node's default 1 s for
  # replica answers (CI saw 504s before any rack was lost, and 3 of 144,000 at 3 s in the second the two
  # replacement JVMs of rack b started); this step checks placement and availability, not latency. The clients
  # wait 10 s (--timeout), longer than the members' deadline: a failure is the cluster's 504, never the client's.
  server: {requestTimeout: 5s}
---
apiVersion: dht.dev/v1alpha1
kind: DhtUser
metadata: {name: app}
spec: {cluster: rk, scope: read-write}   # its Secret app-dht-client: what the Jobs present (start_job's default)
EOF
  if ! until_true 600 rk_ready; then
    report racks FAIL "rk not Ready 6/6 after 600s: phase $(rk_field '{.status.phase}'), racks $(rk_field '{.status.racksReady}')"
    return 1
  fi
  until_true 60 user_issued || { report racks FAIL "DhtUser app of rk got no certificate: $(kn get dhtuser app -o jsonpath='{.status.message}' 2>&1)"; return 1; }
  text="rk Ready in $((SECONDS - t0))s ($(rk_field '{.status.racksReady}'))"

  # Keys every rack holds a replica of, then a reader of them and a writer, both at quorum through rk's Service.
  if ! run_job e2e-racks-keys 300 write --target "$(RK_URL)" --prefix sr0 --count 3000 --run "$RUN_ID"; then
    report racks FAIL "$text; writer: $(summary e2e-racks-keys)"; return 1
  fi
  rk_keys stepr0 "$(acked_keys e2e-racks-keys)"
  start_job e2e-racks-watch watch --target "$(RK_URL)" --prefix sr0 --keys @/etc/e2e/stepr0 --stop-key e2e-stop-racks \
    --threads 2 --timeout 10 --max-seconds 1200 --run "$RUN_ID"
  start_job e2e-racks-write write --target "$(RK_URL)" --prefix sr --count 1000000 --rate 100 --threads 4 --timeout 10 \
    --allow-failures --stop-key e2e-stop-racks --progress 500 --run "$RUN_ID"
  if ! until_true 120 log_has e2e-racks-watch '^started' || ! until_true 120 log_has e2e-racks-write '^progress 500'; then
    report racks FAIL "$text; the reader or the writer did not get going"; return 1
  fi

  # Rack b, both its members, lost at once.
  uids=$(kn get pods -l app.kubernetes.io/instance=rk,dht.dev/rack=b -o jsonpath='{.items[*].metadata.uid}')
  deleted_at=$(date +%s.%N); t_loss=$SECONDS
  kn delete pod -l app.kubernetes.io/instance=rk,dht.dev/rack=b --wait=false >/dev/null
  say "deleted every pod of rack b ($(wc -w <<<"$uids") pods) under the writer and the reader"
  if ! until_true 300 rk_rack_b_replaced "$uids" || ! until_true 120 rk_ready; then
    report racks FAIL "$text; rack b did not come back within 420s: phase $(rk_field '{.status.phase}')"; return 1
  fi
  back=$((SECONDS - t_loss))
  # The writer goes on against the whole cluster again (500 more writes), then both stop.
  last=$(kn logs job/e2e-racks-write 2>/dev/null | sed -n 's/^progress \([0-9]*\).*/\1/p' | tail -1)
  until_true 120 log_has e2e-racks-write "^progress $(( (${last:-0} / 500 + 1) * 500 ))\b" || true
  run_job e2e-racks-stop 60 put --target "$(RK_URL)" --key e2e-stop-racks >/dev/null || true
  finish_job e2e-racks-write 120 || true
  finish_job e2e-racks-watch 120 || ok=0
  writer=$(json e2e-racks-write "d['written'] > 0 and d['failed'] == 0"); after=$(acked_after e2e-racks-write "$deleted_at")
  text="$text; rack b (2 pods) deleted at once, Ready again ${back}s later;"
  text="$text writer at quorum: $(summary e2e-racks-write), $after of them after the loss; reader at quorum: $(summary e2e-racks-watch)"
  [ "$writer" = True ] && [ "${after:-0}" -gt 0 ] || ok=0
  rk_keys stepr "$(acked_keys e2e-racks-write)"
  run_job e2e-racks-read0 300 read --target "$(RK_URL)" --prefix sr0 --keys @/etc/e2e/stepr0 --run "$RUN_ID" || ok=0
  run_job e2e-racks-read 300 read --target "$(RK_URL)" --prefix sr --keys @/etc/e2e/stepr --run "$RUN_ID" || ok=0
  text="$text; read back: $(summary e2e-racks-read0) / $(summary e2e-racks-read)"
  if [ $ok -ne 1 ]; then report racks FAIL "$text (a rack's loss must fail no request and lose no key)"; return 1; fi
  report racks PASS "$text ($((SECONDS - t0))s)"
}
