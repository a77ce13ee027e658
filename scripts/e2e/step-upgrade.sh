# step-upgrade.sh -> make e2e's upgrade from the previous release (issue 50; scripts/e2e.sh sources it). Before step 1,
# upgrade_previous installs the previous release's operator chart (releases.tsv; images and chart built from its
# commit once by scripts/release-images.sh and imported into the local cluster) as the release step 1 then upgrades,
# makes a DhtCluster "dht" of that release in $NS-u and writes 2,000 keys to it. Step 1 is then the operator upgrade
# (this build's CRDs, helm upgrade). Lane U runs after lane C (the roll and its clients do not share the CPU with the
# start of three other clusters): its step_upgrade sees that the new operator restarted no member, starts a writer
# and a reader at quorum, sets spec.version to this build's, awaits the roll (one member at a time, condition
# Rolled) and checks:
# 0 failed requests, every acknowledged key reads back, every member reports this release. The cluster and $NS-u are
# deleted at the end. Uses e2e.sh's helpers (kn, k, start_job, finish_job, run_job, json, summary, acked_keys,
# log_has, report, until_true, say, dht_field, dht_is; rk_keys of step-racks.sh; release_of of lib.sh).

upgrade_url() { echo "http://dht.$NS_U.svc:8080"; } # the previous release has no client TLS; kept so after the upgrade
upgrade_pods() { kn get pods -l app.kubernetes.io/instance=dht -o jsonpath='{.items[*].metadata.uid}'; }
upgrade_releases() { dht_field '{.status.members[*].release}'; } # written by this build's operator only
upgrade_rolled() { dht_is Ready 3 && [ "$(upgrade_releases)" = "$TAG $TAG $TAG" ] \
  && [ "$(dht_field '{.status.conditions[?(@.type=="Rolled")].reason}')" = Done ]; }
# this build's operator writes the Rolled condition (0.1.0's did not); 0.1.0 members report no release, so the
# members' releases appear only once they roll
upgrade_taken_over() { [ -n "$(dht_field '{.status.conditions[?(@.type=="Rolled")].reason}')" ]; }

upgrade_previous() { # before step 1, in the main shell (NS=$NS_U): the previous release, its cluster and the clients
  local old version
  UPGRADE_FROM=""
  version=$(release_of | cut -d' ' -f1)
  old=$(scripts/release-images.sh "$version" 2>"$WORK/upgrade-images.log") \
    && scripts/k8s/load-images.sh "$old"/dht-*.tar >>"$WORK/upgrade-images.log" 2>&1 \
    || { UPGRADE_ERROR="the images of $version: $(tail -1 "$WORK/upgrade-images.log")"; return 1; }
  "$HELM" install "$RELEASE" "$old/chart" -n "$OP_NS" --create-namespace --set "image.tag=$version" \
    --set "nodeImage.tag=$version" --set "runnerImage.tag=$version" --wait --timeout 3m > "$WORK/upgrade-helm.log" 2>&1 \
    || { UPGRADE_ERROR="helm install of $version: $(tail -1 "$WORK/upgrade-helm.log")"; return 1; }
  k create namespace "$NS" >/dev/null 2>&1 || true
  kn apply -f - >/dev/null <<EOF || { UPGRADE_ERROR="$version refused its DhtCluster"; return 1; }
apiVersion: dht.dev/v1alpha1
kind: DhtCluster
metadata: {name: dht}
spec:
  replicas: 3
  resources: {requests: {cpu: 50m, memory: 640Mi}, limits: {memory: 640Mi}}   # beside the other lanes on 2 CPUs
  jvm: {heap: 256Mi}
  rocksdb: {blockCacheSize: 64Mi, writeBufferSize: 16Mi}
  storage: {size: 1Gi, retainOnDelete: false}
  server: {requestTimeout: 3s}   # 50m members beside three lanes answer late at times; this checks the roll, not latency
EOF
  until_true 300 dht_is Ready 3 || { UPGRADE_ERROR="the $version cluster not Ready after 300s: $(dht_field '{.status.phase}')"; return 1; }
  JOB_CLIENT=token run_job e2e-upgrade-keys 300 write --target "$(upgrade_url)" --prefix su0 --count 2000 --run "$RUN_ID" \
    || { UPGRADE_ERROR="writing to $version: $(summary e2e-upgrade-keys)"; return 1; }
  rk_keys stepu0 "$(acked_keys e2e-upgrade-keys)"
  UPGRADE_FROM=$version; UPGRADE_UIDS=$(upgrade_pods)
  say "upgrade: $version's operator and cluster in $NS, 2000 keys written"
}

step_upgrade() { # lane U, after step 1 (this build's operator): the roll, the checks, then the cluster is deleted
  local rc
  upgrade_check; rc=$?
  [ $rc -eq 0 ] || kn describe dht dht > "$WORK/upgrade-describe.txt" 2>&1 || true
  kn delete dht dht --ignore-not-found --wait=true --timeout=180s >/dev/null 2>&1 || true
  k delete namespace "$NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true
  return $rc
}

upgrade_check() {
  local t0=$SECONDS t text ok=1 writer
  [ -n "${UPGRADE_FROM:-}" ] || { report upgrade FAIL "${UPGRADE_ERROR:-the previous release was not installed}"; return 1; }
  # This build's operator has taken the cluster over.
  if ! until_true 180 upgrade_taken_over; then
    report upgrade FAIL "this build's operator did not take the cluster over (no Rolled condition) within 180s"; return 1
  fi
  text="from $UPGRADE_FROM: operator upgraded"
  if [ "$(upgrade_pods)" != "$UPGRADE_UIDS" ]; then text="$text, but it restarted members (it must not)"; ok=0; fi
  # the clients start on the previous release's members and run through the roll
  JOB_CLIENT=token start_job e2e-upgrade-watch watch --target "$(upgrade_url)" --prefix su0 --keys @/etc/e2e/stepu0 \
    --stop-key e2e-stop-upgrade --threads 2 --max-seconds 900 --run "$RUN_ID"
  JOB_CLIENT=token start_job e2e-upgrade-write write --target "$(upgrade_url)" --prefix su --count 1000000 --rate 100 \
    --threads 4 --allow-failures --stop-key e2e-stop-upgrade --progress 500 --run "$RUN_ID"
  if ! { until_true 120 log_has e2e-upgrade-watch '^started' && until_true 120 log_has e2e-upgrade-write '^progress 500'; }; then
    report upgrade FAIL "$text; the reader or the writer did not get going"; return 1
  fi
  t=$SECONDS
  kn patch dht dht --type merge -p "{\"spec\": {\"version\": \"$TAG\"}}" >/dev/null
  if ! until_true 600 upgrade_rolled; then
    report upgrade FAIL "$text; not rolled to $TAG after 600s: releases $(upgrade_releases), Rolled: $(dht_field '{.status.conditions[?(@.type=="Rolled")].message}')"
    return 1
  fi
  text="$text; rolled to $TAG in $((SECONDS - t))s, members report $(upgrade_releases | tr ' ' ',')"
  JOB_CLIENT=token run_job e2e-upgrade-stop 60 put --target "$(upgrade_url)" --key e2e-stop-upgrade >/dev/null || true
  finish_job e2e-upgrade-write 120 || true
  finish_job e2e-upgrade-watch 120 || ok=0
  writer=$(json e2e-upgrade-write "d['written'] > 0 and d['failed'] == 0")
  [ "$writer" = True ] || ok=0
  text="$text; writer at quorum: $(summary e2e-upgrade-write); reader at quorum: $(summary e2e-upgrade-watch)"
  rk_keys stepu "$(acked_keys e2e-upgrade-write)"
  JOB_CLIENT=token run_job e2e-upgrade-read0 300 read --target "$(upgrade_url)" --prefix su0 --keys @/etc/e2e/stepu0 --run "$RUN_ID" || ok=0
  JOB_CLIENT=token run_job e2e-upgrade-read 300 read --target "$(upgrade_url)" --prefix su --keys @/etc/e2e/stepu --run "$RUN_ID" || ok=0
  text="$text; read back: $(summary e2e-upgrade-read0) / $(summary e2e-upgrade-read)"
  if [ $ok -ne 1 ]; then report upgrade FAIL "$text (an upgrade must restart no member by itself, fail no request and lose no key)"; return 1; fi
  report upgrade PASS "$text ($((SECONDS - t0))s after step 1)"
}
