#!/usr/bin/env bash
# prebuild.sh test|cluster -> builds and caches, ahead of need, the tools a later phase will ask for. make test
# starts `prebuild.sh test` in the background at nice 19 while Maven compiles and runs the node's tests, and .ci/run
# starts `prebuild.sh cluster` beside it, so that on a fresh machine the Go and Rust builds fill the CPU the tests
# leave idle instead of running one after the other (issue 48). Each tool is built under its own lock by the script
# that owns it (scripts/tool.sh, scripts/kube-binaries.sh, scripts/venv.sh): whoever asks for a tool while it is
# being built here waits for it, then finds it cached. Nothing here is needed for correctness: a tool this run did
# not build is built on first use, as before.
#
#   test     in the order the tests ask for them: kube-apiserver, etcd and kubectl (operator tests), helm,
#            versitygw (backup tests), the previous release's node jar (UpgradeIT), the Python venv, k6 and oha (make bench-test), libfaketime (make chaos-test)
#   cluster  what make k8s-up adds: the other Kubernetes binaries, CoreDNS, crictl, kube-router; what make e2e's
#            upgrade step installs first: the previous release's images and chart (scripts/release-images.sh)
#
# Output: one line per tool on stderr with its time; a tool that fails to build is reported and the rest go on.
# Exit status: 0 when every tool built.
. "$(dirname "$0")/../lib.sh"

what=${1:?usage: prebuild.sh test|cluster}
failed=0
one() { # one NAME CMD... -> runs CMD (its output discarded), reports NAME's time
  local name=$1 start=$SECONDS; shift
  if "$@" >/dev/null 2>"$DHT_CACHE/prebuild-$name.log"; then
    log "$name ready in $((SECONDS - start))s"
  else
    log "$name failed after $((SECONDS - start))s (it is built again on first use): $(tail -3 "$DHT_CACHE/prebuild-$name.log" | tr '\n' ' ')"
    failed=1
  fi
}
case "$what" in
  test)
    one kube-test-binaries "$DHT_ROOT/scripts/kube-binaries.sh"
    one helm "$DHT_ROOT/scripts/tool.sh" helm
    one versitygw "$DHT_ROOT/scripts/tool.sh" versitygw
    one previous-release "$DHT_ROOT/scripts/release-jar.sh"
    one venv "$DHT_ROOT/scripts/venv.sh"
    one k6 "$DHT_ROOT/scripts/tool.sh" k6
    one oha "$DHT_ROOT/scripts/tool.sh" oha
    one libfaketime "$DHT_ROOT/scripts/tool.sh" libfaketime ;;
  cluster)
    one kube-cluster-binaries "$DHT_ROOT/scripts/kube-binaries.sh" --bin-dir kube-apiserver kubectl etcd \
      kube-controller-manager kube-scheduler kubelet kube-proxy coredns crictl kube-router
    one release-images "$DHT_ROOT/scripts/release-images.sh" ;;
  *) die "usage: prebuild.sh test|cluster" ;;
esac
exit $failed
