"""The benchmark harness for local processes (issue 51's "one harness"): a scenario is data (which servers, which
load windows, how many alternating rounds), run by one launcher (servers.py), measured by one load layer (load.py:
wrk for the closed model, oha at a fixed rate with --latency-correction, the servers' CPU per window), judged by one
rule (judge.py: a difference counts only beyond the spread of identical windows of the same run) and written by one
report (abreport.py). `make bench-ab` (scenario ab.py) is one scenario; scenarios/*.json (make bench-node,
bench-cluster, bench-cluster-tls, bench-defaults, bench-pause, bench-repair, bench-scale, bench-backup) are read by
scenariofile.py, run by scenario.py on the local nodes of nodes.py with the steps of measure.py and admin.py (beside
an object store: objectstore.py; env.txt's machine lines: machine.py), and read back by ../benchraw.py. make bench's
tapes (../runner) run beside a cluster of nodes.py and use load.py's oha command, profiles.py's capture and machine.py.

  python -m harness ab --base-jar J --head-jar J ...   run the A/B (scripts/bench-ab.sh passes the jars and tools)
  python -m harness scenario NAME --jar J ...          a scenario (scripts/bench/scenario.sh passes the jar and tools)
  python -m harness nodes --count N ... -- CMD         a local cluster while CMD runs (scripts/bench.sh: the tapes)
  python -m harness render DIR/NAME.json               the report again from its JSON
"""
