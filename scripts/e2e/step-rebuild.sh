# step-rebuild.sh -> make e2e's step 10 (scripts/e2e.sh sources it and runs step10 before step 8): a member loses
# its volume while a writer runs, and comes back rebuilt before it serves reads.
#   1 spec.repair.rate 64Ki on "dht" (the members roll once), so that the rebuild lasts long enough to be seen (at
#     256Ki a rebuild of step 3's keys took 10 s, 7 of them before the new pod was ready: unseen once)
#   2 a writer Job puts keys at the default quorum; once it is under way, dht-1's PersistentVolumeClaim and pod are
#     deleted (what a lost disk or a deleted volume does); the StatefulSet makes both anew, empty
#   3 the member shows Rebuilding in status.members (the cluster Degraded), then Up with the cluster Ready 3/3
#   4 the node logged that it started on a new data directory among members holding data, and that its rebuild
#     was done
#   5 every key the writer got acknowledged, and every key of step 3, reads back from dht-1's own store alone
#     (internal GETs on its member port: no other replica is asked, nothing is repaired by the reads)
# Needs the helpers of scripts/e2e.sh (kn, report, run_job, start_job, finish_job, summary, until_true, ...).

rebuild_rolled_out() {
  dht_is Ready 3 && [ "$(kn get sts dht -o jsonpath='{.status.updatedReplicas}')" = 3 ] \
    && [ "$(kn get sts dht -o jsonpath='{.status.currentRevision}')" = "$(kn get sts dht -o jsonpath='{.status.updateRevision}')" ]
}
MEMBER_TLS_SECRET=dht-member-tls
# Low enough to watch the rebuild (1 above); step 5's roll carries it when both run (scripts/e2e.sh, roll_settings).
REBUILD_REPAIR_RATE=64Ki

step10() {
  local victim=dht-1 claim=data-dht-1 uid t0 seen=0 state phase progress="" progress_now bad_phase="" text ok=1 deadline keys
  # 1 a rate low enough to watch the rebuild
  kn patch dht dht --type merge -p '{"spec":{"repair":{"rate":"'$REBUILD_REPAIR_RATE'"}}}' >/dev/null \
    || { report 10 FAIL "kubectl patch refused spec.repair.rate"; return 1; }
  until_true 600 rebuild_rolled_out || { report 10 FAIL "the members did not roll to the repair rate: phase $(dht_field '{.status.phase}')"; return 1; }

  # 2 a writer, and the member's volume and pod deleted under it
  start_job e2e-write-rebuild write --target "$SERVICE_URL" --prefix s10 --count "$KEYS" --rate 200 --allow-failures \
    --progress 500 --run "$RUN_ID"
  until_true 120 log_has e2e-write-rebuild '^progress 1000' \
    || { report 10 FAIL "the writer did not get going: $(kn logs job/e2e-write-rebuild --tail 3 2>&1 | tr '\n' ' ')"; return 1; }
  uid=$(kn get pod "$victim" -o jsonpath='{.metadata.uid}')
  kn delete pvc "$claim" --wait=false >/dev/null || { report 10 FAIL "could not delete $claim"; return 1; }
  kn delete pod "$victim" --wait=false >/dev/null
  say "deleted $claim and pod $victim while the writer was running"
  t0=$SECONDS

  # 3 Rebuilding, then Up and Ready
  deadline=$((SECONDS + 900))
  while [ $SECONDS -lt $deadline ]; do
    # one read of the status: the member's state and the phase must come from the same status (a rebuild may
    # end between two reads)
    IFS=$'\t' read -r state phase progress_now < <(dht_field '{.status.members[1].state}{"\t"}{.status.phase}{"\t"}{.status.members[1].rebuild}{"\n"}') || true
    if [ "$state" = Rebuilding ]; then
      [ $seen -eq 2 ] || seen=1
      progress=$progress_now
      [ "$phase" = Degraded ] || { seen=2; bad_phase=$phase; }  # Rebuilding must keep the cluster from Ready
    fi
    if [ $seen -ge 1 ] && [ "$state" = Up ] && pod_replaced "$victim" "$uid" && dht_is Ready 3; then break; fi
    sleep 1
  done
  finish_job e2e-write-rebuild 300 || ok=0
  text="$victim's volume and pod deleted mid-write; writer: $(summary e2e-write-rebuild)"
  if [ $seen -eq 0 ]; then report 10 FAIL "$text; the member never showed Rebuilding (state $state)"; return 1; fi
  if [ $seen -eq 2 ]; then report 10 FAIL "$text; the cluster was $bad_phase, not Degraded, while $victim rebuilt"; return 1; fi
  if ! dht_is Ready 3 || [ "$(dht_field '{.status.members[1].state}')" != Up ]; then
    report 10 FAIL "$text; not back to Ready with $victim Up after 900s: phase $(dht_field '{.status.phase}'), $victim $(dht_field '{.status.members[1].state}') $(dht_field '{.status.members[1].rebuild}')"; return 1
  fi
  text="$text; Rebuilding (last seen: $progress) -> Ready 3/3 in $((SECONDS - t0))s"

  # 4 the node's own account
  local log
  log=$(kn logs "$victim" -c node 2>/dev/null)
  if ! grep -q "starts on a new data directory while other members hold data" <<<"$log" || ! grep -q "rebuild done" <<<"$log"; then
    report 10 FAIL "$text; $victim's log does not show its rebuild: $(grep -i rebuild <<<"$log" | tail -2 | tr '\n' ' ')"; return 1
  fi
  text="$text; $(grep -o 'rebuild done: [^;]*' <<<"$log" | tail -1)"

  # 5 every acknowledged key from dht-1's own store
  keys=$(acked_keys e2e-write-rebuild)
  [ -n "$keys" ] || { report 10 FAIL "$text; no key acknowledged: nothing proves anything"; return 1; }
  kn patch configmap e2e-keys --type merge -p "{\"data\":{\"step10\":\"$keys\"}}" >/dev/null \
    || { report 10 FAIL "could not store the acknowledged keys"; return 1; }
  # Its member port: plaintext (spec.tls.mode Disabled), or mutual TLS under the name its certificate covers, read
  # with the member Secret (start_job's JOB_MEMBER_TLS).
  local tls="" url="http://$victim.dht-headless.$NS.svc:18080" tls_args=()
  if kn get secret "$MEMBER_TLS_SECRET" >/dev/null 2>&1; then
    tls=$MEMBER_TLS_SECRET url="https://$victim.dht-headless.$NS.svc.cluster.local:18080" tls_args=(--member-tls /etc/member)
  fi
  # the two reads at once (independent Jobs)
  JOB_MEMBER_TLS=$tls start_job e2e-read-rebuild read --local "${tls_args[@]}" --target "$url" --prefix s10 --keys @/etc/e2e/step10 --run "$RUN_ID"
  if [ -n "${STEP3_KEYS:-}" ]; then
    JOB_MEMBER_TLS=$tls start_job e2e-read-rebuild-s3 read --local "${tls_args[@]}" --target "$url" --prefix s3 --keys @/etc/e2e/step3 --run "$RUN_ID"
  fi
  finish_job e2e-read-rebuild 300 || ok=0
  text="$text; read from $victim alone: $(summary e2e-read-rebuild)"
  if [ -n "${STEP3_KEYS:-}" ]; then
    finish_job e2e-read-rebuild-s3 300 || ok=0
    text="$text, step 3's keys $(summary e2e-read-rebuild-s3)"
  fi
  if [ $ok -ne 1 ]; then report 10 FAIL "$text"; return 1; fi
  report 10 PASS "$text"
}
