#!/usr/bin/env python3
"""Samples, every 0.5 s, how the coordinators see one peer (make bench-pause, scenarios/pause.json): its state,
backup delay and read counters from each coordinator's /metrics, and the coordinators' backups sent and won. One
JSON line per sample: {"t": epoch ms, "nodes": {url: {...} or null when it did not answer}}.

Usage: pause-watch.py OUT_JSONL SECONDS PEER_URL COORDINATOR_URL...
"""
import json
import re
import sys
import time
import urllib.request

SAMPLE = re.compile(r'^([a-z_]+)(?:\{([^}]*)\})? (\S+)$')


def scrape(url, peer):
    try:
        with urllib.request.urlopen(url + "/metrics", timeout=1) as r:
            text = r.read().decode("utf-8", "replace")
    except OSError:
        return None
    out = {}
    for line in text.splitlines():
        m = SAMPLE.match(line)
        if not m:
            continue
        name, labels, value = m.group(1), m.group(2) or "", m.group(3)
        if name in ("dht_read_backups_sent_total", "dht_read_backups_won_total"):
            out[name[len("dht_read_"):-len("_total")]] = float(value)
        elif 'peer="%s"' % peer in labels:
            if name == "dht_replica_state" and float(value) == 1:
                out["state"] = re.search(r'state="([a-z]+)"', labels).group(1)
            elif name == "dht_replica_backup_delay_seconds":
                out["backup_delay_ms"] = float(value) * 1000
            elif name in ("dht_replica_reads_total", "dht_replica_probes_total", "dht_replica_backups_total"):
                out[name[len("dht_replica_"):-len("_total")]] = float(value)
    return out


def main():
    out_path, seconds, peer, coordinators = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]
    end = time.time() + seconds
    with open(out_path, "a", encoding="utf-8") as out:
        while time.time() < end:
            t = time.time()
            sample = {"t": int(t * 1000), "nodes": {u: scrape(u, peer) for u in coordinators}}
            out.write(json.dumps(sample) + "\n")
            out.flush()
            time.sleep(max(0.0, 0.5 - (time.time() - t)))


if __name__ == "__main__":
    main()
