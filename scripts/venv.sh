#!/usr/bin/env bash
# venv.sh -> prints the path of a python3 whose virtual environment holds scripts/bench/requirements.txt
# (matplotlib for the benchmark reports), creating it on first use. The environment is cached under
# $DHT_CACHE/venv-<hash>, the hash of the requirements file and the Python version, so a change of either
# makes a new one. Packages come from PyPI (pip). Needs python3 >= 3.11 with the venv module.
#
#   PY=$(scripts/venv.sh) && "$PY" scripts/bench/report.py ...
. "$(dirname "$0")/lib.sh"

REQUIREMENTS="$DHT_ROOT/scripts/bench/requirements.txt"
PYTHON=${DHT_PYTHON:-python3}
command -v "$PYTHON" >/dev/null || die "python3 (>= 3.11) is needed for the benchmark reports"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || die "python3 >= 3.11 is needed for the benchmark reports (found $("$PYTHON" --version 2>&1))"
version=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
hash=$( { cat "$REQUIREMENTS"; echo "$version"; } | sha256sum | cut -c1-12)
VENV="$DHT_CACHE/venv-$hash"

make_venv() {
  if [ ! -x "$VENV/bin/python" ]; then
    log "creating $VENV (python $version, $(grep -c '^[a-z].*==' "$REQUIREMENTS") pinned packages from PyPI; cached afterwards)"
    rm -rf "$VENV.tmp"
    "$PYTHON" -m venv "$VENV.tmp" >&2 || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
    "$VENV.tmp/bin/python" -m pip install -q --disable-pip-version-check --no-input -r "$REQUIREMENTS" >&2
    # A venv records its own path in its scripts: build it in place of the final name, then move.
    # (Only bin/python is used, through its absolute path, which stays valid after the move.)
    rm -rf "$VENV" && mv "$VENV.tmp" "$VENV"
  fi
  echo "$VENV/bin/python"
}
with_lock "venv-$hash" make_venv
