# dht: every workflow is a target. `make help` lists them.
# Tools (JDK >= 21, helm, k6, kube-apiserver/etcd for tests, ...) are found or installed and cached
# by scripts/, so a fresh machine needs nothing by hand.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
MVN := scripts/mvn
NODE_JAR := node/target/dht-node.jar

.DEFAULT_GOAL := help
.PHONY: help build test run clean bench-node crds helm-lint helm-template operator-run

help: ## List the targets
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-18s %s\n", $$1, $$2}'

build: ## Build every module (node jar, operator jar), skipping tests
	$(MVN) -q package -DskipTests

test: ## Run all unit and integration tests (installs and caches what they need)
	export KUBE_API_TEST_DIR=$$(scripts/kube-binaries.sh); \
	export DHT_HELM=$$(scripts/tool.sh helm); \
	$(MVN) verify

run: ## Start a local 3-node cluster on ports 8080-8082 (data in ./data; Ctrl-C stops it)
	$(MVN) -q -pl node -am package -DskipTests
	scripts/run-local.sh

bench-node: ## Benchmark one node against the bare one-nio ceiling; writes docs/benchmarks/
	$(MVN) -q -pl node -am package -DskipTests
	scripts/bench-node.sh

bench-cluster: ## Benchmark a 3-node cluster at replicas=2/3 against one node (wrk, oha at 70%); writes docs/benchmarks/cluster.*
	$(MVN) -q -pl node -am package -DskipTests
	scripts/bench-cluster.sh
.PHONY: bench-cluster

bench-scale: ## Scale 3 -> 5 -> 3 under a fixed load: keys/s and MB/s moved, the load's p99 before/during/after; writes docs/benchmarks/scale.*
	$(MVN) -q -pl node -am package -DskipTests
	scripts/bench-scale.sh
.PHONY: bench-scale

bench-storage: ## Compare RocksDB option sets through the node's store; writes docs/benchmarks/node-storage.*
	$(MVN) -q -pl node -am package -DskipTests
	scripts/bench-storage.sh
.PHONY: bench-storage

clean: ## Remove build outputs and local data (not the tool cache)
	$(MVN) -q clean
	rm -rf data

crds: ## Regenerate the CRD (crds/, the chart's copy) and docs/crd-reference.md from the operator's Java model
	scripts/sync-crds.sh

helm-lint: ## Lint the operator's Helm chart (pinned helm, installed on first use)
	$$(scripts/tool.sh helm) lint --strict charts/dht-operator

helm-template: ## Render the operator's Helm chart with its CRD to stdout
	$$(scripts/tool.sh helm) template dht-operator charts/dht-operator --namespace dht-system --include-crds

operator-run: ## Run the operator locally against the current kubeconfig (applies the CRD with kubectl)
	$(MVN) -q -pl operator -am package -DskipTests
	scripts/operator-run.sh

bench-ring: ## Measure placement: key spread on 3..10 nodes, keys moved on scale-up, lookup cost, ring vs rendezvous
	$(MVN) -q -pl node -am package -DskipTests
	scripts/bench-ring.sh
.PHONY: bench-ring
