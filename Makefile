# dht: every workflow is a target. `make help` lists them.
# Tools (JDK >= 21, helm, k6, kube-apiserver/etcd for tests, ...) are found or installed and cached
# by scripts/, so a fresh machine needs nothing by hand.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
MVN := scripts/mvn
NODE_JAR := node/target/dht-node.jar
TLS ?= 0

.DEFAULT_GOAL := help
.PHONY: help build test run clean bench-node crds helm-lint helm-template operator-run

help: ## List the targets
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-18s %s\n", $$1, $$2}'

build: ## Build every module (node jar, operator jar), skipping tests
	$(MVN) -q package -DskipTests

test: ## Run all unit and integration tests (installs and caches what they need; each phase timed)
	scripts/ci/test.sh

fmt: ## Format the Java sources of every module (palantir-java-format through spotless); verify checks it
	$(MVN) -q spotless:apply
.PHONY: fmt

bench-test: ## The benchmark's tests: runner parsing and report on recorded runs, every tape and the node scenario briefly against one real node (needs the node and bench jars)
	K6=$$(scripts/tool.sh k6) OHA=$$(scripts/tool.sh oha) WRK=$$(scripts/tool.sh wrk) VERSITYGW=$$(scripts/tool.sh versitygw) $$(scripts/venv.sh) -m unittest discover -s scripts/bench/tests -t scripts/bench
.PHONY: bench-test

chaos: ## Fault injection under load with a history checker (CHAOS_DURATION=300, CHAOS_SEED, CHAOS_NEMESIS=all; root): chaos-results/<run>/
	$(MVN) -q -pl node -am package -DskipTests
	scripts/chaos.sh
.PHONY: chaos

chaos-test: ## The chaos checker's tests, then a 90 s fixed-seed run with every nemesis (part of make test; needs the node jar)
	$$(scripts/venv.sh) -m unittest discover -s scripts/chaos/tests -t scripts
	CHAOS_DURATION=90 CHAOS_SEED=239 CHAOS_NEMESIS=all scripts/chaos.sh
.PHONY: chaos-test

run: ## Start a local 3-node cluster on ports 8080-8082 (data in ./data; Ctrl-C stops it; TLS=1: client ports take TLS, CA in data/tls)
	$(MVN) -q -pl node -am package -DskipTests
	DHT_TLS=$(TLS) scripts/run-local.sh

bench-node: ## Benchmark one node against the bare one-nio ceiling; writes docs/benchmarks/
	$(MVN) -q -pl bench -am package -DskipTests
	scripts/bench/scenario.sh node
	scripts/bench/scenario.sh defaults-node

bench-ab: ## A/B of this checkout's node (or HEAD=<commit>'s) against BASE (a commit or release; built once, cached: scripts/node-at.sh): one node and 3 members at 2/3, alternating rounds, each figure judged against the run's own noise; writes docs/benchmarks/ab/
	@[ -n "$(BASE)" ] || { echo "usage: make bench-ab BASE=<commit or release>" >&2; exit 2; }
	$(MVN) -q -pl bench -am package -DskipTests
	scripts/bench-ab.sh "$(BASE)" $(HEAD)
.PHONY: bench-ab

bench-cluster: ## Benchmark a 3-node cluster at replicas=2/3 against one node (wrk, oha at 70%); writes docs/benchmarks/cluster.* (BENCH_MEMBER_TLS=both: the member plane's TLS cost, cluster-tls.*)
	$(MVN) -q -pl node -am package -DskipTests
	if [ "$${BENCH_MEMBER_TLS:-off}" = both ]; then scripts/bench/scenario.sh cluster-tls; \
	else scripts/bench/scenario.sh cluster && scripts/bench/scenario.sh defaults-cluster; fi
.PHONY: bench-cluster

bench-cluster-tls: ## What TLS costs: 3-node clusters in plaintext, with mutual-TLS member ports and with a TLS client port side by side, fixed-rate slices in turns; writes docs/benchmarks/cluster-tls.*
	$(MVN) -q -pl node -am package -DskipTests
	scripts/bench/scenario.sh cluster-tls
.PHONY: bench-cluster-tls

bench-defaults: ## The node as users start it (no JVM or node options) vs the bare server, and 3 nodes through one entry node; writes docs/benchmarks/defaults.*
	$(MVN) -q -pl bench -am package -DskipTests
	scripts/bench/scenario.sh defaults-node
	scripts/bench/scenario.sh defaults-cluster
.PHONY: bench-defaults

bench-scale: ## Scale 3 -> 5 -> 3 under a fixed load: keys/s and MB/s moved, the load's p99 before/during/after; writes docs/benchmarks/scale.*
	$(MVN) -q -pl node -am package -DskipTests
	scripts/bench/scenario.sh scale
.PHONY: bench-scale

bench-backup: ## Back up 3 nodes under a fixed load, restore into 3 fresh ones: MB/s, records/s, the load's p99 before/during against the run's noise floor; writes docs/benchmarks/backup.*
	$(MVN) -q -pl node -am package -DskipTests
	scripts/bench/scenario.sh backup
.PHONY: bench-backup

bench-repair: ## Repair and rebuild under a fixed load: keys/s, MB/s, hash bytes per differing key, the load's p99; writes docs/benchmarks/repair.*
	$(MVN) -q -pl node -am package -DskipTests
	scripts/bench/scenario.sh repair
.PHONY: bench-repair

bench-pause: ## One of 3 replicas paused 15 s (SIGSTOP) under reads and writes at 2/3: GET p99 and throughput before/during/after; writes docs/benchmarks/pause.*
	$(MVN) -q -pl node -am package -DskipTests
	scripts/bench/scenario.sh pause
.PHONY: bench-pause

bench: ## The five tapes on a local 3-node cluster with flamegraphs and a report (BENCH_ENGINE=k6|oha, BENCH_DURATION, BENCH_RATE, BENCH_TAPES, BENCH_PROFILE); writes bench-results/<run-id>/
	$(MVN) -q -pl node -am package -DskipTests
	scripts/bench.sh
.PHONY: bench

bench-report: ## report.md with plots of RUNS="a b" (run ids under bench-results/; one run: its report, several: side by side)
	$$(scripts/venv.sh) scripts/bench/report.py $(or $(RUNS),latest)
.PHONY: bench-report

bench-storage: ## Compare RocksDB option sets through the node's store; writes docs/benchmarks/node-storage.*
	$(MVN) -q -pl bench -am package -DskipTests
	scripts/bench-storage.sh
.PHONY: bench-storage

clean: ## Remove build outputs and local data (not the tool cache)
	$(MVN) -q clean
	rm -rf data

crds: ## Regenerate the CRD (crds/, the chart's copy), docs/crd-reference.md, and from the node's option table NodeOptions.java + docs/node-options.md
	scripts/sync-crds.sh

helm-lint: ## Lint the operator's Helm chart (pinned helm, installed on first use)
	$$(scripts/tool.sh helm) lint --strict charts/dht-operator

helm-template: ## Render the operator's Helm chart with its CRD to stdout
	$$(scripts/tool.sh helm) template dht-operator charts/dht-operator --namespace dht-system --include-crds

operator-run: ## Run the operator locally against the current kubeconfig (applies the CRD with kubectl)
	$(MVN) -q -pl operator -am package -DskipTests
	scripts/operator-run.sh

bench-ring: ## Measure placement: key spread on 3..10 nodes, keys moved on scale-up, lookup cost, ring vs rendezvous
	$(MVN) -q -pl bench -am package -DskipTests
	scripts/bench-ring.sh
.PHONY: bench-ring

bench-scale-sim: ## Scale by simulation: ring, moves, repair, topology, connections at 3..1,000 members; the operator at 100 and 1,000
	scripts/bench-scale-sim.sh
.PHONY: bench-scale-sim

# ---------------------------------------------------------------------------------------------------------
# Kubernetes: images, a local cluster (no registry needed) or kind, the operator, the end-to-end story.
# CLUSTER=local (default: make k8s-up), kind (make kind-up) or current (whatever $KUBECONFIG points at).
CLUSTER ?= local
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DHT_CACHE_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/dht
KIND_NAME ?= dht
ifeq ($(CLUSTER),local)
  CLUSTER_KUBECONFIG := $(or $(DHT_K8S_DIR),$(DHT_CACHE_DIR)/k8s)/kubeconfig
else ifeq ($(CLUSTER),kind)
  CLUSTER_KUBECONFIG := $(DHT_CACHE_DIR)/kind/kubeconfig
else ifeq ($(CLUSTER),current)
  CLUSTER_KUBECONFIG := $(KUBECONFIG)
else
  $(error CLUSTER must be local, kind or current)
endif
.PHONY: images k8s-up k8s-down k8s-load kind-up kind-down kind-load kubeconfig deploy e2e

images: ## Build the node, operator and load-runner images into build/images/*.tar (IMAGE_BUILDER, BASE_IMAGE: see docs/quickstart.md)
	$(MVN) -q package -DskipTests
	scripts/ci/timed.sh images scripts/images.sh

k8s-up: images ## Start a local single-node Kubernetes (no registry; root) with the images loaded; idempotent
	$(SUDO) env DHT_CACHE_DIR=$(DHT_CACHE_DIR) DHT_TIMINGS=$${DHT_TIMINGS:-} PATH="$$PATH" scripts/ci/timed.sh "k8s-up (cluster)" scripts/k8s/up.sh

k8s-down: ## Stop the local Kubernetes; removes every process, mount and interface it made
	$(SUDO) env DHT_CACHE_DIR=$(DHT_CACHE_DIR) PATH="$$PATH" scripts/k8s/down.sh

k8s-load: images ## Rebuild the images and import them into the running local Kubernetes
	$(SUDO) env DHT_CACHE_DIR=$(DHT_CACHE_DIR) PATH="$$PATH" scripts/k8s/load-images.sh

kind-up: images ## Create a kind cluster (needs Docker and kind's node image from a registry) and load the images
	scripts/kind.sh up

kind-down: ## Delete the kind cluster
	scripts/kind.sh down

kind-load: images ## Rebuild the images and load them into the kind cluster
	scripts/kind.sh load

kubeconfig: ## Print the kubeconfig of CLUSTER (export KUBECONFIG=$$(make -s kubeconfig))
	@echo $(CLUSTER_KUBECONFIG)

deploy: ## Install or upgrade the operator (helm) and apply manifests/dhtcluster-sample.yaml on CLUSTER
	KUBECONFIG=$(CLUSTER_KUBECONFIG) scripts/deploy.sh

e2e: ## The user story on CLUSTER: install, write/read, pod loss, rolling change, scale, benchmark, uninstall
	KUBECONFIG=$(CLUSTER_KUBECONFIG) scripts/e2e.sh

bench-incluster: ## DhtBenchmarks on CLUSTER (images loaded): the five tapes with oha, and k6 vs oha at a rate k6 cannot hold; writes docs/benchmarks/incluster*/
	KUBECONFIG=$(CLUSTER_KUBECONFIG) scripts/bench-incluster.sh
.PHONY: bench-incluster

bench-pod: images ## One node in a pod with one-nio native sockets (trixie base) vs JDK NIO (bookworm): local cluster; writes docs/benchmarks/pod.*
	BASE_SUITE=bookworm IMAGE_TAG=$$(sed -n '0,/<version>/s:.*<version>\(.*\)</version>.*:\1:p' pom.xml)-bookworm scripts/images.sh node
	$(SUDO) env DHT_CACHE_DIR=$(DHT_CACHE_DIR) PATH="$$PATH" scripts/k8s/load-images.sh
	KUBECONFIG=$(CLUSTER_KUBECONFIG) scripts/bench-pod.sh
.PHONY: bench-pod

bench-fetch: ## Copy a DhtBenchmark run out of its results volume into bench-results/<run-id>/ and render its report (NAME=, RUN=, NAMESPACE=)
	KUBECONFIG=$(CLUSTER_KUBECONFIG) scripts/bench-fetch.sh "$(NAME)" "$(RUN)"
.PHONY: bench-fetch

repeat-its: ## Run the operator ITs and the node cluster ITs N times in a row (N=10) and print passes per IT class
	scripts/repeat-its.sh $(or $(N),10)
.PHONY: repeat-its
