"""harness/walstats.py: RocksDB's WAL read back into write batches and their entries, on a log written here by the
format's rules (a batch cut across blocks, a block's padding, a record the writer had not finished) and on the WAL
of a real node (node/target/dht-node.jar) after known writes."""
import os
import struct
import subprocess
import time
import unittest
import urllib.request

from harness import walstats

from .rawfiles import TempDirTest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
JAR = os.path.join(ROOT, "node", "target", "dht-node.jar")


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def batch(seq, entries):
    """A write batch: entries = [(cf, key, value)], cf 0 as a plain put."""
    body = bytearray(struct.pack("<QI", seq, len(entries)))
    for cf, key, value in entries:
        body += bytes([walstats.PUT]) if cf == 0 else bytes([walstats.CF_PUT]) + varint(cf)
        body += varint(len(key)) + key + varint(len(value)) + value
    return bytes(body)


def physical(kind, payload):
    return struct.pack("<IHB", 0, len(payload), kind) + payload


def log_file(records):
    """The log of some logical records, fragmented over 32 KiB blocks as RocksDB's log writer does."""
    out = bytearray()
    for rec in records:
        first = True
        while True:
            room = walstats.BLOCK - len(out) % walstats.BLOCK
            if room < walstats.HEADER:
                out += b"\0" * room
                continue
            n = min(len(rec), room - walstats.HEADER)
            last = n == len(rec)
            kind = walstats.FULL if first and last else walstats.FIRST if first else \
                walstats.LAST if last else walstats.MIDDLE
            out += physical(kind, rec[:n])
            rec, first = rec[n:], False
            if last:
                break
    return bytes(out)


class LogFormatTest(TempDirTest):
    def test_batches_across_blocks_padding_and_a_cut_tail(self):
        big = batch(1, [(0, b"k%05d" % i, b"v" * 100) for i in range(400)] + [(2, b"d", b"x" * 17)])
        small = [batch(2 + i, [(0, b"s%d" % i, b"v"), (2, b"\0" * 8 + b"s%d" % i, b"x" * 17)]) for i in range(300)]
        data = log_file([big] + small + [batch(999, [(3, b"repair", b"1")])])
        self.assertGreater(len(big), walstats.BLOCK)  # FIRST and LAST fragments, then padding within blocks
        cut = log_file([batch(1000, [(0, b"late", b"v" * 500)])])
        os.makedirs(os.path.join(self.tmp, "db"))
        with open(os.path.join(self.tmp, "db", "000007.log"), "wb") as f:
            f.write(data + cut[:-10])  # the node was still writing the last record
        s = walstats.stats(os.path.join(self.tmp, "db"))
        self.assertEqual(s["record_writes"], 700)
        self.assertEqual(s["batches"], 301)
        self.assertEqual(s["entries"], 701 + 300)
        self.assertEqual(s["entries_per_family"], {"0": 700, "2": 301})
        self.assertEqual(s["other_batches"], 1)
        self.assertAlmostEqual(s["memtable_inserts_per_write"], 1001 / 700)
        self.assertAlmostEqual(s["wal_bytes_per_write"],
                               (len(big) + sum(len(b) for b in small) + 301 * walstats.HEADER) / 700)

    def test_a_log_deleted_after_the_listing_is_skipped(self):
        # RocksDB deletes a WAL file once its memtable is flushed; in a 3-member A/B one went between glob and open
        os.makedirs(os.path.join(self.tmp, "db"))
        kept = os.path.join(self.tmp, "db", "000009.log")
        with open(kept, "wb") as f:
            f.write(log_file([batch(1, [(0, b"k", b"v")])]))
        listed = walstats.wal_files
        walstats.wal_files = lambda d: [os.path.join(d, "000008.log")] + listed(d)
        try:
            s = walstats.stats(os.path.join(self.tmp, "db"))
        finally:
            walstats.wal_files = listed
        self.assertEqual((s["wal_files"], s["record_writes"]), (1, 1))

    def test_a_directory_without_record_writes_has_no_figures(self):
        self.assertIsNone(walstats.stats(self.tmp))


def java():
    """$JAVA, or the JDK >= 21 the project's scripts find (scripts/lib.sh): a machine's default java may be older."""
    if os.environ.get("JAVA"):
        return os.environ["JAVA"]
    home = subprocess.run(["bash", "-c", '. "$1/scripts/lib.sh" && find_java_home', "_", ROOT],
                          capture_output=True, text=True).stdout.strip()
    if not home:
        raise AssertionError("no JDK >= 21 found (scripts/lib.sh find_java_home); set JAVA")
    return os.path.join(home, "bin", "java")


class RealNodeTest(TempDirTest):
    def test_the_wal_of_a_node_counts_its_writes(self):
        if not os.path.exists(JAR):
            raise AssertionError("%s is missing: build it first (scripts/mvn -pl node -am package)" % JAR)
        from .test_tapes_live import free_port, ready
        port = free_port()
        url = "http://127.0.0.1:%d" % port
        data = os.path.join(self.tmp, "data")
        with open(os.path.join(self.tmp, "node.log"), "w") as out:
            proc = subprocess.Popen([java(), "-Xmx256m", "-jar", JAR, "--port", str(port),
                                     "--data-dir", data, "--repair-interval", "0s"], stdout=out,
                                    stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while not ready(url):
                self.assertIsNone(proc.poll(), "the node exited during start")
                self.assertLess(time.monotonic(), deadline, "the node did not start in 60 s")
                time.sleep(0.2)
            for i in range(200):
                req = urllib.request.Request("%s/v0/entity?id=w%d" % (url, i), data=b"v" * 100, method="PUT")
                with urllib.request.urlopen(req, timeout=5) as r:
                    self.assertEqual(r.status, 201)
            s = walstats.stats(data)
        finally:
            proc.terminate()
            proc.wait(30)
        self.assertEqual(s["record_writes"], 200)
        self.assertEqual(s["batches"], 200)  # one client at a time: one RocksDB write each
        self.assertGreaterEqual(s["memtable_inserts_per_write"], 1.0)
        self.assertGreater(s["wal_bytes_per_write"], 100 + len("w199"))  # at least the value and the key


if __name__ == "__main__":
    unittest.main()
