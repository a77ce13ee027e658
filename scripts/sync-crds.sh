#!/usr/bin/env bash
# sync-crds.sh -> regenerates, from the operator's Java model (dev.dht.operator.api.v1alpha1):
#   crds/dhtclusters.dht.dev-v1.yml, charts/dht-operator/crds/ (same file), docs/crd-reference.md
# The build generates the CRD (fabric8 crd-generator-maven-plugin); GeneratedFiles' main (operator test tree)
# copies it and renders the reference. GeneratedFilesTest only compares: it fails on stale copies.
# First, from the node's option table (dev.dht.node.config.NodeOption, node test tree's OptionFiles): the operator's
# NodeOptions.java, whose defaults the CRD uses, and docs/node-options.md; the node's OptionFilesTest compares them.
. "$(dirname "$0")/lib.sh"
cd "$DHT_ROOT"
scripts/mvn -q -pl node test-compile org.codehaus.mojo:exec-maven-plugin:3.5.0:java \
  -Dexec.mainClass=dev.dht.node.config.OptionFiles -Dexec.classpathScope=test -Ddht.root="$DHT_ROOT"
scripts/mvn -q -pl operator test-compile exec:java -Dexec.mainClass=dev.dht.operator.docs.GeneratedFiles \
  -Dexec.classpathScope=test -Ddht.root="$DHT_ROOT"
git status --short -- crds charts/dht-operator/crds docs/crd-reference.md docs/node-options.md \
  operator/src/main/java/dev/dht/operator/api/v1alpha1/NodeOptions.java >&2
