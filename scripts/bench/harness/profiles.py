"""A node's profiles: the one capture through its GET /v0/admin/profile (async-profiler in the node's JVM: capture,
used by every benchmark of scripts/bench: the harness's windows, the A/B, the runner's flamegraphs), and where a
node's CPU went, from async-profiler's collapsed stacks (format=collapsed): each sample goes to the first category
one of whose substrings its stack holds (order matters: a RocksDB call made by the write group counts as RocksDB),
and the frames that held the most samples themselves. Standard library only.
"""
import os
import ssl
import time
import urllib.error
import urllib.request

from . import load


def capture(url, event, seconds, fmt=None, interval=None, timeout_extra=60, busy_wait=0.0):
    """(status, body) of one capture of event on the node at url for seconds (at least 0.1), in fmt (the node's
    default, HTML, when None), sampling every interval (e.g. "1ms"; the node's default when None); status None and
    the reason as body when nothing answered. A 409 (a capture still running: the node answers the previous
    capture a moment before it takes a new one) is retried for up to busy_wait seconds.

    A cluster with client tokens (DhtCluster spec.auth): profiling is the admin plane's, sent DHT_ADMIN_TOKEN. With
    client TLS (DHT_CA) the node, or the sidecar in front of it, is checked against DHT_CA and given the client
    certificate DHT_CLIENT_CERT when set."""
    ms = max(100, int(seconds * 1000))
    query = "event=%s&duration=%dms%s%s" % (event, ms, "&format=" + fmt if fmt else "",
                                            "&interval=" + interval if interval else "")
    token = os.environ.get("DHT_ADMIN_TOKEN")
    req = urllib.request.Request("%s/v0/admin/profile?%s" % (url.rstrip("/"), query),
                                 headers={"Authorization": "Bearer " + token} if token else {})
    ca, cert, key = load.client_tls() or (None, None, None)
    context = None
    if ca:
        context = ssl.create_default_context(cafile=ca)
        if cert:
            context.load_cert_chain(cert, key)
    give_up = time.time() + busy_wait
    while True:
        try:
            with urllib.request.urlopen(req, timeout=ms / 1000.0 + timeout_extra, context=context) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            if e.code == 409 and time.time() < give_up:
                time.sleep(0.1)
                continue
            return e.code, e.read()
        except (urllib.error.URLError, OSError) as e:
            return None, str(e).encode()


# The node's request path, one node (node-report.py's table; the order decides where a sample goes).
CATEGORIES = [
    ("RocksDB background (flush, compaction)", ["rocksdb::ThreadPoolImpl"]),
    ("RocksDB write (WAL + memtable)", ["RocksDB.put", "RocksDB.write", "writeWithoutStall"]),
    ("RocksDB read / LWW check", ["RocksDB.get", "RocksDB.keyMayExist"]),
    ("write group (end of selector pass)", ["PassWriteGroup"]),
    ("response write (socket send)", ["sendResponse", "Session.write", "sendChunked", "processWrite",
                                      "DhtSession.uncork"]),
    ("handoff to workers (queue, park/unpark)", ["ThreadPoolExecutor.execute", "ThreadPoolExecutor.getTask",
                                                 "LockSupport", "WorkerPool"]),
    ("metrics", ["NodeMetrics", "io/prometheus"]),
    ("request handling (codec, routing)", ["EntityHandler", "DhtServer.handleRequest",
                                           "DhtSession.handleParsedRequest", "Record."]),
    ("selector: read + HTTP parse", ["processRead", "processHttpBuffer", "HttpSession"]),
    ("selector: epoll wait/select", ["epoll_wait", "EPollSelectorImpl", "JavaSelector.select"]),
    ("GC", ["GCTaskThread", "G1", "GangWorker", "WorkerThread::run", "ConcurrentGCThread"]),
    ("JIT compiler", ["CompileBroker", "C2Compiler", "C1Compiler", "CompilerThread"]),
]
# A cluster member adds its calls to the other members, after the response write: an answer to the client written
# from the peer client's thread (the callback that completes a quorum) is a response write.
PEER = ("replica calls (peer client: send, read, parse)", ["dev/dht/node/peer/"])


def cluster_categories():
    at = [c for c, _ in CATEGORIES].index("handoff to workers (queue, park/unpark)")
    return CATEGORIES[:at] + [PEER] + CATEGORIES[at:]


def stacks(path):
    """(stack, samples) of each line of a collapsed stacks file ("frame;frame;... count"); other lines skipped."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if n.isdigit():
                yield stack, int(n)


def breakdown(path, categories=None, top=12):
    """{"samples", "share": {category: fraction, "other": ...}, "top_self": [{"frame", "share"}]} of a collapsed
    stacks file, or None when it holds no sample."""
    categories = categories or CATEGORIES
    totals = {c: 0 for c, _ in categories}
    totals["other"] = 0
    total = 0
    leaf = {}
    home = os.path.expanduser("~")
    for stack, n in stacks(path):
        total += n
        for cat, keys in categories:
            if any(k in stack for k in keys):
                totals[cat] += n
                break
        else:
            totals["other"] += n
        # a library without symbols is named by its path: the cache under this user's home is ~ in reports
        frame = stack.split(";")[-1].replace(home + "/", "~/")
        leaf[frame] = leaf.get(frame, 0) + n
    if total == 0:
        return None
    ranked = sorted(leaf.items(), key=lambda kv: -kv[1])[:top]
    return {
        "samples": total,
        "share": {k: round(v / total, 4) for k, v in totals.items()},
        "top_self": [{"frame": f, "share": round(c / total, 4)} for f, c in ranked],
    }


def frames(path):
    """({leaf frame: samples}, {frame anywhere on the stack: samples}, total samples) of a collapsed stacks file."""
    self_, incl, total = {}, {}, 0
    for stack, n in stacks(path):
        total += n
        fs = stack.split(";")
        self_[fs[-1]] = self_.get(fs[-1], 0) + n
        for fr in set(fs):  # a recursive frame counts once per sample
            incl[fr] = incl.get(fr, 0) + n
    return self_, incl, total


def diff(a, requests_a, b, requests_b, inclusive=False, top=25):
    """Two profiles of the same event, frame by frame, per 1000 requests each answered while it was captured (a cpu
    profile at 1 ms per sample: ms of CPU per 1000 requests): the frames whose cost changed most, largest change
    first, as [{"frame", "a", "b", "a_share", "b_share"}]. Self time by default (the leaf frame), else inclusive."""
    fa, fb = frames(a), frames(b)
    ma, mb = fa[1 if inclusive else 0], fb[1 if inclusive else 0]
    ta, tb = max(fa[2], 1), max(fb[2], 1)
    rows = []
    for k in set(ma) | set(mb):
        x, y = 1000.0 * ma.get(k, 0) / requests_a, 1000.0 * mb.get(k, 0) / requests_b
        rows.append({"frame": k, "a": round(x, 3), "b": round(y, 3),
                     "a_share": round(ma.get(k, 0) / ta, 4), "b_share": round(mb.get(k, 0) / tb, 4)})
    rows.sort(key=lambda r: -abs(r["b"] - r["a"]))
    return {"a_total": round(1000.0 * fa[2] / requests_a, 3), "b_total": round(1000.0 * fb[2] / requests_b, 3),
            "rows": rows[:top]}
