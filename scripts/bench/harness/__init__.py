"""The benchmark harness for local processes (issue 51's "one harness"): a scenario is data (which servers, which
load windows, how many alternating rounds), run by one launcher (servers.py), measured by one load layer (load.py:
wrk for the closed model, oha at a fixed rate with --latency-correction, the servers' CPU per window), judged by one
rule (judge.py: a difference counts only beyond the spread of identical windows of the same run) and written by one
report (abreport.py). `make bench-ab` (scenario ab.py) is its first scenario.

  python -m harness ab --base-jar J --head-jar J ...   run the A/B (scripts/bench-ab.sh passes the jars and tools)
  python -m harness render DIR/NAME.json               the report again from its JSON
"""
