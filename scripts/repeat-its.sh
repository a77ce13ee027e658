#!/usr/bin/env bash
# repeat-its.sh [N] -> runs the operator ITs (operator/.../it/*IT) and the node cluster ITs (node/.../cluster/*IT)
# N times in a row (default 10) and prints, per IT class, in how many runs all its tests passed. Exits non-zero
# if any class failed in any run. Stability evidence, not a benchmark: run it on a quiet machine.
#
#   REPEAT_ITS='**/cluster/ThreeNodeIT,**/it/DhtClusterIT'   another IT selection (failsafe's it.test syntax)
#
# Builds once (package, no tests), then runs failsafe's integration-test goal directly N times; each run's
# reports and Maven log are kept under target/repeat-its/run-<i>/ (make clean removes them).
. "$(dirname "$0")/lib.sh"
cd "$DHT_ROOT"

N=${1:-${N:-10}}
[[ "$N" =~ ^[1-9][0-9]*$ ]] || die "N must be a positive number, got '$N'"
SELECTION=${REPEAT_ITS:-'**/node/cluster/*IT,**/operator/it/*IT'}
OUT=target/repeat-its
MODULES=(node operator)

export KUBE_API_TEST_DIR=${KUBE_API_TEST_DIR:-$(scripts/kube-binaries.sh)}
export DHT_HELM=${DHT_HELM:-$(scripts/tool.sh helm)}

log "building (node, operator; tests compiled, not run)"
scripts/mvn -q -pl node,operator -am package -DskipTests
rm -rf "$OUT"
mkdir -p "$OUT"

for i in $(seq 1 "$N"); do
  run="$OUT/run-$i"
  mkdir -p "$run"
  for m in "${MODULES[@]}"; do rm -rf "$m/target/failsafe-reports"; done
  log "run $i/$N: $SELECTION"
  start=$(date +%s)
  # integration-test alone records failures in the reports without failing the build: every run completes.
  scripts/mvn -pl node,operator failsafe:integration-test -Dit.test="$SELECTION" \
    -Dfailsafe.failIfNoSpecifiedTests=false > "$run/mvn.log" 2>&1 || log "run $i: maven exited non-zero (see $run/mvn.log)"
  for m in "${MODULES[@]}"; do
    if [ -d "$m/target/failsafe-reports" ]; then
      mkdir -p "$run/$m" && cp "$m"/target/failsafe-reports/TEST-*.xml "$run/$m/" 2>/dev/null || true
    fi
  done
  log "run $i/$N took $(( $(date +%s) - start ))s"
done

# Per class: a run passes when its report exists and counts tests, none failed, none errored.
python3 - "$OUT" "$N" <<'PY'
import glob, os, sys, xml.etree.ElementTree as ET
out, n = sys.argv[1], int(sys.argv[2])
passed, seen, failures = {}, set(), []
for i in range(1, n + 1):
    for path in glob.glob(os.path.join(out, f"run-{i}", "*", "TEST-*.xml")):
        suite = ET.parse(path).getroot()
        name = suite.get("name")
        seen.add(name)
        ok = int(suite.get("tests", 0)) > 0 and int(suite.get("failures", 0)) == 0 and int(suite.get("errors", 0)) == 0
        passed[name] = passed.get(name, 0) + (1 if ok else 0)
        if not ok:
            failures.append(f"run {i}: {name} ({path})")
if not seen:
    sys.exit("no IT reports found: see " + os.path.join(out, "run-1", "mvn.log"))
width = max(len(s) for s in seen)
print(f"\n{'IT class'.ljust(width)}  passed/runs")
for name in sorted(seen):
    print(f"{name.ljust(width)}  {passed[name]}/{n}")
total = sum(passed.values())
print(f"{'all'.ljust(width)}  {total}/{n * len(seen)} class runs passed")
for f in failures:
    print("FAILED " + f)
sys.exit(1 if failures or any(passed[s] < n for s in seen) else 0)
PY
