#!/usr/bin/env bash
# test.sh -> make test: every unit and integration test (mvn verify), the benchmark harness's tests, the chaos
# checker's tests with a short fault-injection run. Each phase is timed (scripts/ci/timed.sh; the table in
# $DHT_TIMINGS when set), and Maven's time is broken down by module and slowest class (test_times.py).
#
# The tools the tests need (Kubernetes test binaries, helm, versitygw, k6, oha, libfaketime, the Python venv) are
# built in the background at nice 19 while Maven compiles and runs the node's tests (scripts/ci/prebuild.sh): on a
# fresh machine that CPU would otherwise sit idle between the tests' processes. A test that needs a tool before it
# is ready waits for its build lock. Nothing is skipped when a tool is missing: it is built on first use.
. "$(dirname "$0")/../lib.sh"
cd "$DHT_ROOT"
mkdir -p build/logs

setsid nice -n 19 scripts/ci/prebuild.sh test 2> build/logs/prebuild-test.log &
prebuild=$!
# A failed phase ends the run: the background build goes with it (setsid made it a process group).
trap 'kill -- -"$prebuild" 2>/dev/null || true' EXIT

# The operator's tests find the binaries here, and wait for their build if it is still running (KubeApiServer).
export KUBE_API_TEST_DIR="$DHT_CACHE/kubeapitest"
status=0
# Maven in two steps: everything but the integration tests (compile, unit tests, the formatting check, the jars),
# then the node's and the operator's integration tests side by side (scripts/ci/its.sh says why that is safe).
scripts/ci/timed.sh "mvn verify -DskipITs" scripts/mvn verify -DskipITs || status=$?
[ $status -ne 0 ] || scripts/ci/timed.sh "integration tests" scripts/ci/its.sh node operator || status=$?
python3 scripts/ci/test_times.py "$DHT_ROOT" || true
[ $status -eq 0 ] || exit $status
scripts/ci/timed.sh bench-test make --no-print-directory bench-test
scripts/ci/timed.sh chaos-test make --no-print-directory chaos-test
wait "$prebuild" || log "some tools did not build ahead of need (built on first use instead): build/logs/prebuild-test.log"
trap - EXIT
