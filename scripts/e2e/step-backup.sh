# step-backup.sh -> make e2e's step 9 (scripts/e2e.sh sources it and runs step9 before step 8): back up the e2e
# DhtCluster "dht" to the local cluster's object store under a writer, delete the cluster and its volumes, make a
# cluster of another size (5 members) from the backup, and read back every key written before the backup started.
#   1 the object store's Secret (default/dht-s3, made by make k8s-up) is copied into the namespace; spec.backup is
#     added to "dht" (the members roll once to get the store's settings and Secret)
#   2 a writer Job puts E2E_KEYS keys (every one acknowledged), then a second writer keeps writing
#   3 a DhtBackup runs to Completed while the second writer runs
#   4 "dht" is deleted with its volumes; a DhtCluster "dht" of 5 members with spec.restoreFrom is made; it is
#     Restoring (no client served) until the restore is done, then Ready 5/5
#   5 every key of the first writer reads back through the client Service
# Needs the helpers of scripts/e2e.sh (kn, k, report, run_job, start_job, finish_job, summary, until_true, ...).

backup_store_ready() { k -n default get service dht-s3 >/dev/null 2>&1 && k -n default get secret dht-s3 >/dev/null 2>&1; }
backup_field() { kn get dhtbackup e2e-backup -o "jsonpath=$1" 2>/dev/null; }
backup_done() { case "$(backup_field '{.status.phase}')" in Completed|Failed) return 0 ;; *) return 1 ;; esac; }
rolled_out() {
  dht_is Ready 3 && [ "$(kn get sts dht -o jsonpath='{.status.updatedReplicas}')" = 3 ] \
    && [ "$(kn get sts dht -o jsonpath='{.status.currentRevision}')" = "$(kn get sts dht -o jsonpath='{.status.updateRevision}')" ]
}
no_dht_pods() { [ -z "$(kn get pods -l app.kubernetes.io/instance=dht -o name 2>/dev/null)" ] \
  && [ -z "$(kn get pvc -o name 2>/dev/null | grep -- '-dht-')" ]; }
# retainOnDelete: false takes effect through the StatefulSet's volume claim retention policy: the operator applies
# it, then Kubernetes makes the StatefulSet an owner of each member's claim. A delete before both happened keeps the
# volumes (docs/operations.md, "Delete"), so the step waits for both, as a user should.
claims_handed_over() { # one line per claim: its name, then its StatefulSet owner (none: a line of one field)
  local claims
  [ "$(kn get sts dht -o jsonpath='{.spec.persistentVolumeClaimRetentionPolicy.whenDeleted}' 2>/dev/null)" = Delete ] || return 1
  claims=$(kn get pvc -l app.kubernetes.io/instance=dht \
    -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.ownerReferences[?(@.kind=="StatefulSet")].name}{"\n"}{end}' 2>/dev/null)
  [ -n "$claims" ] && ! awk 'NF < 2' <<<"$claims" | grep -q .
}
# what is left of a deleted cluster: pods and claims, each with its phase and owners (for a failure's message)
dht_leftovers() {
  kn get pods -l app.kubernetes.io/instance=dht -o jsonpath='{range .items[*]}pod/{.metadata.name} {.status.phase} deleting={.metadata.deletionTimestamp}; {end}' 2>/dev/null
  kn get pvc -o jsonpath='{range .items[*]}pvc/{.metadata.name} {.status.phase} owners={.metadata.ownerReferences[*].kind} finalizers={.metadata.finalizers} deleting={.metadata.deletionTimestamp}; {end}' 2>/dev/null
}

# backup_prepare -> the store's Secret copied into the namespace; 1 when there is no store
backup_prepare() {
  backup_store_ready || return 1
  k -n default get secret dht-s3 -o json | python3 -c 'import json,sys; s=json.load(sys.stdin); print(json.dumps({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "dht-s3"}, "type": "Opaque", "data": s["data"]}))' \
    | kn apply -f - >/dev/null
}
# backup_spec -> the cluster's spec.backup (JSON): the local cluster's store, under a prefix of this namespace
backup_spec() {
  echo '{"storage":{"endpoint":"http://dht-s3.default.svc:7070","bucket":"dht-backups","prefix":"'"$NS"'","credentialsSecret":{"name":"dht-s3"}},"uploadRate":"4Mi"}'
}

step9() {
  local t0 text restore_seen=0 spec
  if ! backup_store_ready; then
    report 9 "NOT RUN" "no object store in this cluster (make k8s-up runs one: Service and Secret default/dht-s3)"; return 0
  fi
  if ! k get crd dhtbackups.dht.dev >/dev/null 2>&1; then
    report 9 "NOT RUN" "no DhtBackup resource in this operator"; return 0
  fi
  # 1 the store's Secret, and spec.backup on the cluster (already there when step 5's roll carried it)
  backup_prepare || { report 9 FAIL "could not copy the Secret dht-s3"; return 1; }
  kn patch dht dht --type merge -p "{\"spec\":{\"backup\":$(backup_spec)}}" >/dev/null \
    || { report 9 FAIL "kubectl patch refused spec.backup"; return 1; }
  until_true 600 rolled_out || { report 9 FAIL "the members did not roll to the backup settings: phase $(dht_field '{.status.phase}')"; return 1; }

  # 2 keys acknowledged before the backup starts, then a writer during it
  if ! run_job e2e-backup-keys 300 write --target "$SERVICE_URL" --prefix s9 --count "$KEYS" --run "$RUN_ID"; then
    report 9 FAIL "writer: $(summary e2e-backup-keys)"; return 1
  fi
  kn create configmap e2e-keys --from-literal=step9="$(acked_keys e2e-backup-keys)" --dry-run=client -o yaml \
    | kn apply -f - >/dev/null
  start_job e2e-backup-writer write --target "$SERVICE_URL" --prefix s9w --count 1000000 --rate 100 --threads 4 \
    --allow-failures --stop-key e2e-stop-s9 --progress 200 --run "$RUN_ID"
  until_true 120 log_has e2e-backup-writer '^progress 200' || { report 9 FAIL "the second writer did not get going"; return 1; }

  # 3 the backup, under the writer
  kn apply -f - >/dev/null <<EOS
apiVersion: dht.dev/v1alpha1
kind: DhtBackup
metadata: {name: e2e-backup}
spec: {cluster: dht}
EOS
  local t_backup=$SECONDS
  until_true 900 backup_done || true
  run_job e2e-stop-9 60 put --target "$SERVICE_URL" --key e2e-stop-s9 >/dev/null || true
  finish_job e2e-backup-writer 120 || true
  if [ "$(backup_field '{.status.phase}')" != Completed ]; then
    report 9 FAIL "DhtBackup not Completed after $((SECONDS - t_backup))s: $(backup_field '{.status.phase}') $(backup_field '{.status.message}')"; return 1
  fi
  t0=$(backup_field '{.status.startPoint}')
  text="backup Completed in $((SECONDS - t_backup))s ($(backup_field '{.status.bytes}') bytes, start point $t0) under a writer ($(summary e2e-backup-writer))"

  # 4 the cluster and its volumes go; a 5-member cluster is made from the backup
  spec=$(kn get dht dht -o json | python3 -c '
import json, sys
c = json.load(sys.stdin)
spec = c["spec"]
spec["replicas"] = 5
spec["restoreFrom"] = {"backup": "e2e-backup"}
print(json.dumps({"apiVersion": c["apiVersion"], "kind": c["kind"], "metadata": {"name": "dht"}, "spec": spec}))')
  kn patch dht dht --type merge -p '{"spec":{"storage":{"retainOnDelete":false}}}' >/dev/null
  until_true 120 claims_handed_over || { report 9 FAIL "$text; retainOnDelete: false not in effect after 120s: $(dht_leftovers)"; return 1; }
  kn delete dht dht --wait=true --timeout=180s >/dev/null 2>&1 || { report 9 FAIL "$text; kubectl delete dht did not finish"; return 1; }
  until_true 300 no_dht_pods || { report 9 FAIL "$text; the deleted cluster's pods or volumes stayed: $(dht_leftovers)"; return 1; }
  echo "$spec" | kn apply -f - >/dev/null || { report 9 FAIL "$text; the restore cluster was refused"; return 1; }
  local t_restore=$SECONDS deadline=$((SECONDS + 900)) phase
  while [ $SECONDS -lt $deadline ]; do
    phase=$(dht_field '{.status.phase}')
    [ "$phase" = Restoring ] && restore_seen=1
    dht_is Ready 5 && [ "$(dht_field '{.status.restore.phase}')" = Completed ] && break
    sleep 2
  done
  if ! dht_is Ready 5; then
    report 9 FAIL "$text; the 5-member cluster is not Ready after 900s: $phase, restore $(dht_field '{.status.restore.phase}') $(dht_field '{.status.restore.message}')"; return 1
  fi
  [ $restore_seen = 1 ] || { report 9 FAIL "$text; the cluster never showed phase Restoring"; return 1; }
  text="$text; restored into 5 members in $((SECONDS - t_restore))s ($(dht_field '{.status.restore.recordsSent}') records sent)"

  # 5 every key acknowledged before the backup, through the new cluster
  if ! run_job e2e-backup-read 300 read --target "$SERVICE_URL" --prefix s9 --keys @/etc/e2e/step9 --run "$RUN_ID"; then
    report 9 FAIL "$text; read back: $(summary e2e-backup-read)"; return 1
  fi
  kn delete dhtbackup e2e-backup --ignore-not-found >/dev/null 2>&1 || true
  report 9 PASS "$text; every key read back: $(summary e2e-backup-read)"
}
