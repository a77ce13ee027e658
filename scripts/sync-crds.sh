#!/usr/bin/env bash
# sync-crds.sh -> regenerates, from the operator's Java model (dev.dht.operator.api.v1alpha1):
#   crds/dhtclusters.dht.dev-v1.yml, charts/dht-operator/crds/ (same file), docs/crd-reference.md
# The build generates the CRD (fabric8 crd-generator-maven-plugin); GeneratedFilesTest, run in update
# mode, copies it and renders the reference. Without update mode the same test fails on stale copies.
. "$(dirname "$0")/lib.sh"
cd "$DHT_ROOT"
DHT_UPDATE_GENERATED=true scripts/mvn -q -pl operator test -Dtest=GeneratedFilesTest -Dsurefire.failIfNoSpecifiedTests=false
git status --short -- crds charts/dht-operator/crds docs/crd-reference.md >&2
