# step-evict.sh -> make e2e's eviction check (scripts/e2e.sh sources it and runs step_evict): a writer Job at quorum
# and a reader at quorum (disruption-clients.sh) run through the client Service while every member is evicted in
# turn through the eviction API, as `kubectl drain` does. The PodDisruptionBudget is respected: while one member is out, evicting another is refused
# (429). Every write must be acknowledged and every read right (0 failed, by cause), each member is replaced and the cluster Ready 3/3
# before the next eviction, and every acknowledged key reads back. Uses e2e.sh's helpers (kn, start_job,
# finish_job, run_job, summary, json, report, ...).

evict() { # evict POD -> 0 when the eviction was accepted; the API server's answer in $WORK/evict-POD.out
  kn create --raw "/api/v1/namespaces/$NS/pods/$1/eviction" -f - > "$WORK/evict-$1.out" 2>&1 <<JSON
{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "$1", "namespace": "$NS"}}
JSON
}
refused_by_budget() { grep -qi "disruption budget\|TooManyRequests\|429" "$WORK/evict-$1.out"; }

step_evict() {
  local pod uid other refused=0 written failed reader=0 t0=$SECONDS
  start_job e2e-write-evict write --target "$SERVICE_URL" --prefix se --count 1000000 --rate 100 --threads 4 \
    --allow-failures --stop-key e2e-stop-evict --progress 500 --run "$RUN_ID"
  until_true 120 log_has e2e-write-evict '^progress 500' || { report evict FAIL "the writer did not get going"; return 1; }
  start_reader e2e-watch-evict e2e-stop-evict || { report evict FAIL "the reader did not start"; return 1; }
  for pod in dht-2 dht-1 dht-0; do
    uid=$(kn get pod "$pod" -o jsonpath='{.metadata.uid}')
    # The budget may still count the previous member as out for a moment after it is Ready: bounded retries.
    if ! until_true 120 evict "$pod"; then
      report evict FAIL "evicting $pod was refused for 120s: $(tr '\n' ' ' < "$WORK/evict-$pod.out")"; return 1
    fi
    say "evicted $pod"
    other=$( [ "$pod" = dht-0 ] && echo dht-1 || echo dht-0 )
    if evict "$other"; then
      report evict FAIL "$other was evicted while $pod was out: the PodDisruptionBudget did not hold"; return 1
    fi
    refused_by_budget "$other" && refused=$((refused + 1))
    if ! until_true 240 pod_replaced "$pod" "$uid" || ! until_true 300 dht_is Ready 3; then
      report evict FAIL "$pod was not replaced and Ready within 540s: phase $(dht_field '{.status.phase}')"; return 1
    fi
  done
  run_job e2e-stop-evict 60 put --target "$SERVICE_URL" --key e2e-stop-evict >/dev/null || true
  finish_job e2e-write-evict 120 || true
  stop_reader e2e-watch-evict e2e-stop-evict || reader=1
  written=$(json e2e-write-evict "d['written']"); failed=$(json e2e-write-evict "d['failed']")
  set_keys "$STEP3_KEYS" "$STEP4_KEYS" "$(acked_keys e2e-write-evict)"
  if [ "$refused" != 3 ]; then
    report evict FAIL "a second eviction was refused by the budget $refused of 3 times (not for that reason: $(cat "$WORK"/evict-dht-*.out | tr '\n' ' ' | cut -c1-300))"; return 1
  fi
  if [ "${written:-0}" -lt 1000 ] || [ "${failed:-1}" != 0 ]; then
    report evict FAIL "3 members evicted in turn (the budget refused a second each time); writer: $(summary e2e-write-evict): every write must be acknowledged"; return 1
  fi
  if [ $reader -ne 0 ]; then
    report evict FAIL "writer: $(summary e2e-write-evict); reader at quorum: $(summary e2e-watch-evict): every read must be right"; return 1
  fi
  if ! run_job e2e-read-evict 300 read --target "$SERVICE_URL" --prefix se --keys @/etc/e2e/step6 --run "$RUN_ID"; then
    report evict FAIL "writer: $(summary e2e-write-evict); reader: $(summary e2e-read-evict)"; return 1
  fi
  report evict PASS "3 members evicted one by one in $((SECONDS - t0))s, a second eviction refused by the PodDisruptionBudget each time; writer at quorum: $(summary e2e-write-evict); reader at quorum: $(summary e2e-watch-evict); every acknowledged key read back: $(summary e2e-read-evict)"
}
