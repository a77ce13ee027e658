"""The benchmark runner: runs dht's five tapes (k6/*.js, or the same requests through oha), pre-fills for the GET tapes, captures flamegraphs of
every node during each tape's steady part and writes summary.json and one time series per tape.

Standard library only: it runs in the load-runner image (python3 -m runner, PYTHONPATH=/opt/dht/py, beside
../harness, whose machine description, oha command and profile capture it uses) and on a laptop (scripts/bench.sh,
`make bench`). Modules:
  series.py    k6's CSV output -> per-second figures; the saturation point of a ramp
  k6.py        one k6 run (a tape or the fill) and its end-of-test figures
  oha.py       the open-model engine: a tape run by oha at a fixed rate (--latency-correction), its figures
  profiler.py  flamegraph captures through each node's GET /v0/admin/profile
  (what a run was measured on: ../harness/machine.py, as every benchmark of scripts/bench records it)
  cli.py       `python3 -m runner run ...`: the whole run
"""

TAPES = ("put-unique", "put-overwrite", "get-uniform", "get-recent", "mixed")
# Tapes that read (or overwrite) the pre-filled key set: the fill runs once, before the first of them.
NEEDS_FILL = ("put-overwrite", "get-uniform", "get-recent", "mixed")
