#!/usr/bin/env bash
# its.sh MODULE... -> the integration tests of these Maven modules, all at once; exits non-zero if any failed.
#
# Run after `mvn verify -DskipITs` (make test: scripts/ci/test.sh): it invokes failsafe's goals alone, so nothing is
# compiled or packaged again, and no suite rewrites a jar another one is starting (the operator's ITs start the
# node jar). The node's and the operator's suites share nothing else (each test picks its own free ports and
# directories) and spend most of their time waiting on process start-up, probes and the API server: one after the
# other they left the machine about 60% idle. Each module's Maven writes its own log (build/logs/it-MODULE.log),
# printed whole once every suite is done, and is timed on its own (scripts/ci/timed.sh).
. "$(dirname "$0")/../lib.sh"
cd "$DHT_ROOT"
[ $# -gt 0 ] || die "usage: its.sh MODULE..."
mkdir -p build/logs
# What a module's tests start, waited for here without a bound: on a fresh machine prebuild.sh may still be building
# it at nice 19 (kube-apiserver takes ~14 min cold), and a test waits only 5 minutes for it. The node's ITs start
# at once; the operator's when their binaries are there.
tools() {
  case $1 in
    operator) scripts/kube-binaries.sh >/dev/null && scripts/tool.sh helm >/dev/null ;;
  esac
}
pids=()
for module in "$@"; do
  { tools "$module" && scripts/ci/timed.sh "$module ITs" scripts/mvn -pl "$module" failsafe:integration-test \
      failsafe:verify; } > "build/logs/it-$module.log" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { status=1; log "integration tests of ${*:$((i + 1)):1} failed"; }
done
for module in "$@"; do
  printf '\n===== integration tests: %s (build/logs/it-%s.log) =====\n' "$module" "$module"
  cat "build/logs/it-$module.log"
done
exit $status
