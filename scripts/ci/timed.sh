#!/usr/bin/env bash
# timed.sh NAME CMD... -> runs CMD and reports how long it took, so that CI growth is seen the day it happens.
#
# Prints "[time] NAME: W s wall, C s CPU (machine busy B%)" on stderr and, when $DHT_TIMINGS names a file, appends
# a tab-separated line "NAME  WALL_S  CPU_S  EXIT" to it (.ci/run sets it and prints the table at the end). CPU is
# the whole machine's busy time over the phase (/proc/stat), which is the phase's own on a machine running nothing
# else, as CI's does; B% is that time over wall time times cores: how much of the machine the phase used.
# Exits with CMD's status.
set -uo pipefail
name=${1:?usage: timed.sh NAME CMD...}; shift

busy_jiffies() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat 2>/dev/null || echo 0; }
start_ns=$(date +%s%N); start_busy=$(busy_jiffies)
"$@"
rc=$?
wall=$(( ($(date +%s%N) - start_ns) / 1000000 ))
busy=$(( $(busy_jiffies) - start_busy ))
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
cores=$(nproc 2>/dev/null || echo 1)
line=$(awk -v n="$name" -v w="$wall" -v b="$busy" -v hz="$hz" -v c="$cores" -v rc="$rc" 'BEGIN {
  ws = w / 1000; cs = b / hz; pct = ws > 0 ? 100 * cs / (ws * c) : 0
  printf "%s\t%.0f\t%.0f\t%d\t%.0f", n, ws, cs, rc, pct }')
IFS=$'\t' read -r _ wall_s cpu_s _ pct <<<"$line"
printf '[time] %s: %s s wall, %s s CPU (machine busy %s%%)%s\n' "$name" "$wall_s" "$cpu_s" "$pct" \
  "$([ "$rc" -eq 0 ] || echo ", exit $rc")" >&2
if [ -n "${DHT_TIMINGS:-}" ]; then
  mkdir -p "$(dirname "$DHT_TIMINGS")"
  printf '%s\n' "$(cut -f1-4 <<<"$line")" >> "$DHT_TIMINGS"
fi
exit "$rc"
