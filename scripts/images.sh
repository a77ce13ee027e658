#!/usr/bin/env bash
# images.sh [node|operator|loadrunner ...] -> builds dht's container images (default: all three) from the
# Dockerfiles under images/ and writes each as a docker-archive tarball, build/images/<name>-<tag>.tar, that
# `ctr images import`, `docker load` and `kind load image-archive` all accept. Needs the jars (make build).
#
# Environment:
#   IMAGE_BUILDER      buildah | docker. Default: buildah (daemonless, reads the same Dockerfiles; installed from
#                      Debian when missing), docker if buildah cannot be had.
#   BASE_IMAGE         base of the node and operator images: an image reference, or "local" for the one this
#                      script builds from Debian trixie packages with mmdebstrap (glibc, libstdc++, zlib and
#                      passwd entries; no shell, no package manager; cached). Default: local with buildah,
#                      gcr.io/distroless/cc-debian13:nonroot with docker.
#   RUNNER_BASE_IMAGE  base of the load runner (needs python3): "local" (the above plus Debian's python3) or a
#                      reference. Default: local with buildah, python:3.13-slim-trixie with docker.
#   BASE_SUITE         Debian release of the local bases: trixie (default; glibc 2.41) or bookworm (glibc 2.36;
#                      the node runs on JDK NIO sockets on both: docs/security.md, "TLS on one code path").
#   IMAGE_TAG          default: the project version (pom.xml), which the operator and the chart default to.
#   IMAGE_PREFIX       prepended to every image name, e.g. registry.example.com/dht/ (for pushing).
#   IMAGES_OUT         default: build/images
#
# Why this shape: the Dockerfiles only COPY a context prepared here (a jlinked runtime from the build JDK, the
# jars, native libraries unpacked for the target, the pinned k6 and oha), so a build runs no container and needs
# no registry when the base is local, and users with a registry build the same Dockerfiles on the usual bases.
. "$(dirname "$0")/lib.sh"
cd "$DHT_ROOT"

[ "$(uname -s)" = Linux ] || die "images are built on Linux (the runtime is jlinked from the build JDK, which must be a Linux one)"
case "$(uname -m)" in
  x86_64) ARCH=amd64 ;;
  aarch64) ARCH=arm64 ;;
  *) die "unsupported architecture $(uname -m)" ;;
esac

NAMES=${*:-node operator loadrunner}
OUT=${IMAGES_OUT:-$DHT_ROOT/build/images}
TAG=${IMAGE_TAG:-$(sed -n '0,/<version>/s:.*<version>\(.*\)</version>.*:\1:p' pom.xml)}
PREFIX=${IMAGE_PREFIX:-}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-$(awk '/^URIs:/ {print $2; exit} /^deb / {print $2; exit}' \
  /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list 2>/dev/null || true)}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITE=${BASE_SUITE:-trixie}
# Bump when the base recipe changes, so that cached bases are rebuilt.
BASE_RECIPE=1
BASE_PACKAGES="libc6,libgcc-s1,libstdc++6,zlib1g"
RUNNER_PACKAGES="$BASE_PACKAGES,python3"
# Added to what jdeps finds in the jars: TLS, XML (logback's configuration), JFR and JMX for diagnosis.
JRE_EXTRA_MODULES=java.logging,java.management,java.xml,jdk.crypto.ec,jdk.jfr,jdk.management.jfr

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() { # apt_install PACKAGE... (from the Debian archive, when missing)
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || die "${missing[*]} needed: install them (a Debian/Ubuntu host has them as packages)"
  log "installing ${missing[*]} from the Debian archive"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 \
    || { as_root apt-get update -q >&2 && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2; }
}

BUILDER=${IMAGE_BUILDER:-}
if [ -z "$BUILDER" ]; then
  if command -v buildah >/dev/null || command -v apt-get >/dev/null; then BUILDER=buildah; else BUILDER=docker; fi
fi
case "$BUILDER" in
  buildah) apt_install buildah; BASE=${BASE_IMAGE:-local}; RUNNER_BASE=${RUNNER_BASE_IMAGE:-local} ;;
  docker) command -v docker >/dev/null || die "docker not found (IMAGE_BUILDER=docker)"
          BASE=${BASE_IMAGE:-gcr.io/distroless/cc-debian13:nonroot}; RUNNER_BASE=${RUNNER_BASE_IMAGE:-python:3.13-slim-trixie} ;;
  *) die "IMAGE_BUILDER must be buildah or docker, not '$BUILDER'" ;;
esac
[ "$BUILDER" = docker ] && { [ "$BASE" = local ] || [ "$RUNNER_BASE" = local ]; } \
  && die "BASE_IMAGE=local is built with buildah's storage: use IMAGE_BUILDER=buildah, or a registry base with docker"

# ---------------------------------------------------------------------------------------------------------
# The local base: Debian $SUITE (trixie: glibc 2.41) unpacked by mmdebstrap with only the libraries a JVM and RocksDB
# need. "extract" runs no maintainer script, so no shell is needed to build it and none is in it.
local_base() { # local_base NAME PACKAGES -> prints the buildah image reference
  local name=$1 packages=$2 key dir tarball ref ctr
  key=$(printf '%s|%s|%s|%s' "$BASE_RECIPE" "$packages" "$ARCH" "$SUITE" | sha256sum | cut -c1-12)
  ref="localhost/$name:$SUITE-$key"
  if buildah inspect --type image "$ref" >/dev/null 2>&1; then echo "$ref"; return 0; fi
  dir="$DHT_CACHE/images"; tarball="$dir/$name-$SUITE-$key.tar"
  mkdir -p "$dir"
  if [ ! -f "$tarball" ]; then
    apt_install mmdebstrap
    log "building the base $name from Debian $SUITE packages ($packages) with mmdebstrap (cached in $tarball)"
    # Unpacked into a directory (the extract variant runs no hooks), completed, then archived.
    local root="$dir/$name-$SUITE-$key.root"
    as_root rm -rf "$root"
    as_root mmdebstrap --quiet --variant=extract --architectures="$ARCH" --include="$packages" --format=directory \
      "$SUITE" "$root" "$DEBIAN_MIRROR" >&2
    as_root "$DHT_ROOT/scripts/images/customize-base.sh" "$root"
    as_root tar --numeric-owner --sort=name -C "$root" -cf "$tarball.tmp" .
    as_root rm -rf "$root"
    as_root chown "$(id -u):$(id -g)" "$tarball.tmp"
    mv "$tarball.tmp" "$tarball"
  fi
  ctr=$(buildah from scratch)
  buildah add --quiet "$ctr" "$tarball" / >/dev/null
  buildah config --env PATH=/usr/local/bin:/usr/bin:/bin --user 65532:65532 --workingdir / "$ctr"
  buildah commit --quiet --rm "$ctr" "$ref" >/dev/null
  echo "$ref"
}

# ---------------------------------------------------------------------------------------------------------
# Build contexts
JAVA_HOME=$(find_java_home) || die "no JDK >= 21 found (needed for jlink)"
java_release=$("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.runtime.version = //p')
# What make run adds on this JDK (lib.sh, node_jdk_flags): the image's JRE is jlinked from it.
JDK_OPTS=$(node_jdk_flags "$JAVA_HOME/bin/java" | paste -sd' ')

jre_modules() { # the JDK modules the node and the operator need (jdeps over both jars) plus the extras
  local tmp jar
  tmp=$(mktemp -d)
  for jar in node/target/dht-node.jar operator/target/dht-operator.jar; do
    [ -f "$jar" ] || continue
    mkdir "$tmp/x" && unzip -q -o "$jar" '*.class' -x 'META-INF/versions/*' -d "$tmp/x" 2>/dev/null || true
    "$JAVA_HOME/bin/jdeps" --ignore-missing-deps --print-module-deps --multi-release base "$tmp/x" 2>/dev/null \
      | tail -1 | tr ',' '\n' >> "$tmp/modules"
    rm -rf "$tmp/x"
  done
  echo "$JRE_EXTRA_MODULES" | tr ',' '\n' >> "$tmp/modules"
  grep -E '^[a-z][a-z.]*$' "$tmp/modules" | sort -u | paste -sd, -
  rm -rf "$tmp"
}
JRE_MODULES=""
case " $NAMES " in *" node "*|*" operator "*) JRE_MODULES=$(jre_modules) ;; esac

jre() { # the jlinked runtime, cached by JDK release and module list
  local key dir
  key=$(printf '%s|%s|%s' "$java_release" "$JRE_MODULES" "$ARCH" | sha256sum | cut -c1-12)
  dir="$OUT/.jre-$key"
  if [ ! -x "$dir/bin/java" ]; then
    log "jlinking a Java $java_release runtime ($JRE_MODULES)"
    rm -rf "$dir" "$OUT"/.jre-*
    mkdir -p "$OUT"
    "$JAVA_HOME/bin/jlink" --add-modules "$JRE_MODULES" --strip-debug --no-header-files --no-man-pages \
      --compress=zip-6 --output "$dir" >&2
  fi
  echo "$dir"
}

context_node() {
  local ctx=$1 jar=node/target/dht-node.jar
  [ -f "$jar" ] || die "$jar is missing: run 'make build' first ('make images' does)"
  cp -a "$(jre)" "$ctx/jre"
  mkdir -p "$ctx/native" "$ctx/data"
  # The node loads these from DHT_NATIVE_DIR instead of unpacking them at every start; the node's own
  # NativeLibraries main writes them under the names it looks for (this machine's architecture = the image's).
  "$JAVA_HOME/bin/java" -cp "$jar" dev.dht.node.natives.NativeLibraries "$ctx/native" >/dev/null
  cp "$jar" "$ctx/dht-node.jar"
}

context_operator() {
  local ctx=$1 jar=operator/target/dht-operator.jar
  [ -f "$jar" ] || die "$jar is missing: run 'make build' first ('make images' does)"
  cp -a "$(jre)" "$ctx/jre"
  cp "$jar" "$ctx/dht-operator.jar"
}

context_loadrunner() {
  local ctx=$1 k6 oha
  [ "$ARCH" = amd64 ] || die "the load runner image is built on amd64 only for now"
  k6=$(scripts/tool.sh k6); oha=$(scripts/tool.sh oha)
  mkdir -p "$ctx/bin" "$ctx/py"
  cp "$k6" "$oha" "$ctx/bin/"
  cp -r k6 "$ctx/k6"
  # Python programs that run inside the cluster: standard library only.
  cp scripts/e2e/*.py "$ctx/py/"
  cp scripts/incluster/*.py "$ctx/py/"   # the members' profiler sidecar, the DhtBenchmark Job's program
  # the bench runner and the harness modules it uses (machine, oha's command, profile captures: standard library)
  if [ -d scripts/bench/runner ]; then cp -r scripts/bench/runner scripts/bench/harness "$ctx/py/"; fi
}

# ---------------------------------------------------------------------------------------------------------
build_one() {
  local name=$1 ctx base ref archive epoch
  ctx="$OUT/context/$name"
  rm -rf "$ctx"; mkdir -p "$ctx"
  "context_$name" "$ctx"
  if [ "$name" = loadrunner ]; then base=$RUNNER_BASE; else base=$BASE; fi
  if [ "$base" = local ]; then
    if [ "$name" = loadrunner ]; then base=$(local_base dht-base-python "$RUNNER_PACKAGES"); else base=$(local_base dht-base "$BASE_PACKAGES"); fi
  fi
  ref="${PREFIX}dht-$name:$TAG"
  archive="$OUT/dht-$name-$TAG.tar"
  log "building $ref on $base with $BUILDER"
  case "$BUILDER" in
    buildah)
      # Layer timestamps from the commit: the same sources give the same image digest.
      epoch=$(git log -1 --format=%ct 2>/dev/null || echo 0)
      buildah bud --quiet --pull=false --layers=false --timestamp "$epoch" -f "images/$name/Dockerfile" \
        --build-arg "BASE=$base" --build-arg "JDK_JAVA_OPTIONS=$JDK_OPTS" -t "$ref" "$ctx" >/dev/null
      rm -f "$archive"
      buildah push --quiet "$ref" "docker-archive:$archive:$ref" >/dev/null ;;
    docker)
      docker build -q -f "images/$name/Dockerfile" --build-arg "BASE=$base" --build-arg "JDK_JAVA_OPTIONS=$JDK_OPTS" \
        -t "$ref" "$ctx" >/dev/null
      docker save -o "$archive" "$ref" ;;
  esac
  printf '%-44s %4s MB  %s\n' "$ref" "$(( $(stat -c %s "$archive") / 1024 / 1024 ))" "$archive"
}

mkdir -p "$OUT"
for name in $NAMES; do
  case "$name" in node|operator|loadrunner) ;; *) die "unknown image '$name' (node, operator, loadrunner)" ;; esac
done
for name in $NAMES; do build_one "$name"; done
rm -rf "$OUT/context"
