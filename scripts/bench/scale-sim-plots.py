"""scale-sim-members.svg: the scale simulation's costs against members, log-log (make bench-scale-sim).

Usage: scale-sim-plots.py scale-sim.json OUT.svg (matplotlib: run it with the python of scripts/venv.sh).
"""
import json
import sys

import plots


def flat(rows, value, racks=0):
    """(members, value) of the rows without racks (or with), sorted by members."""
    return sorted((r["cluster"]["size"], value(r)) for r in rows if r["cluster"]["racks"] == racks)


def main(src, out):
    with open(src) as f:
        d = json.load(f)
    placement, repair, topology = d["placement"], d["repair"], d["topology"]
    choice, node = d.get("replicaChoice") or [], d.get("nodeProcess") or []
    operator = (d.get("operator") or {}).get("runs") or []
    panels = [
        ("Ring build and memory", "ms / MB", [
            ("build ms", flat(placement, lambda r: r["buildMs"])),
            ("ring MB", flat(placement, lambda r: r["ringBytes"] / 1e6))]),
        ("Per-key costs", "ns per key", [
            ("lookup", flat(placement, lambda r: r["lookupNs"])),
            ("move plan (join)", flat(placement, lambda r: r["join"]["planNsPerKey"] if r["join"] else None))]),
        ("Topology documents", "bytes", [
            ("cluster file", flat(topology, lambda r: r["fileBytes"])),
            ("full move report", flat(topology, lambda r: r["reportBytes"]))]),
        ("Topology polls per member, during a move", "bytes/s", [
            ("brief answers (now)", flat(topology, lambda r: r["pollBytesPerSecond"])),
            ("full reports (before)", flat(topology, lambda r: r["fullPollBytesPerSecond"]))]),
        ("Repair: one member's ranges", "MB / calls", [
            ("heap MB", flat(repair, lambda r: r["heapBytes"] / 1e6)),
            ("calls per round (in sync)", flat(repair, lambda r: r["rounds"][0]["calls"]))]),
        ("Replica choice, one coordinator", "KB / µs", [
            ("heap KB", sorted((c["members"], c["heapBytes"] / 1e3) for c in choice)),
            ("refresh µs (every 50 ms)", sorted((c["members"], c["refreshNs"] / 1e3) for c in choice))]),
        ("A real node process (measured)", "count / MB", [
            ("connections to peers", sorted((r["members"], r["peerConnections"]) for r in node)),
            ("threads", sorted((r["members"], r["threads"]) for r in node)),
            ("RSS MB", sorted((r["members"], r["rssMb"]) for r in node))]),
        ("Hints for one down member, per 3,000 writes", "hints", [
            ("hints kept", sorted((r["members"], r["hintsStored"] * 3000 / r["writes"]) for r in node))]),
        ("Operator (kube-api-test)", "s / calls", [
            ("new cluster to Ready s", sorted((r["members"], r["readyMs"] / 1e3) for r in operator)),
            ("API calls", sorted((r["members"], r["apiCalls"]) for r in operator))]),
    ]
    plots.against_members(out, "What grows with the cluster (log-log; dashed: linear from the first point)", panels)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
