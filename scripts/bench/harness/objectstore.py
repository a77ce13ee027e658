"""The S3-compatible object store a scenario's nodes back up to and restore from (the step "object_store"): versitygw
(scripts/tool.sh versitygw) on loopback with fresh root credentials and one bucket. Standard library (and curl, which
signs the bucket's creation).

A deployment's object store runs on other machines; here it shares the nodes' CPUs and disk. So it runs under
SCHED_IDLE (chrt --idle; nice 19 where chrt is missing), as the node's backup threads do, so that a request thread
waking up preempts it at once, and keeps its objects in memory when /dev/shm has room (the setting store_dir puts them
elsewhere): what the load pays during a backup is then the backup's, not the store's disk writes beside the nodes' WAL.
"""
import os
import secrets
import shutil
import subprocess
import tempfile

from . import servers
from .servers import Server, bindable

EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
SHM_ROOM = 4 << 30  # bytes /dev/shm must have free to hold the store's objects


class ObjectStore:
    def __init__(self, binary, work, port, bucket, store_dir=""):
        self.binary, self.work, self.port, self.bucket = binary, work, int(port), bucket
        self.credentials = os.path.join(work, "credentials")
        self.shm = None
        if not store_dir:
            store_dir = os.path.join(work, "s3")
            if os.path.isdir("/dev/shm") and shutil.disk_usage("/dev/shm").free > SHM_ROOM:
                store_dir = self.shm = tempfile.mkdtemp(prefix="dht-bench-s3.", dir="/dev/shm")
        self.dir = store_dir
        self.priority = ["chrt", "--idle", "0", "nice", "-n", "19"] if shutil.which("chrt") else ["nice", "-n", "19"]
        self.server = None

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def start(self, log_dir):
        """The store, awaited, with its bucket; the credentials (one file per key, as the node's
        --backup-credentials reads them) in WORK/credentials."""
        if not bindable(self.port):
            raise RuntimeError("port %d (the object store's) is in use" % self.port)
        access, secret = "bench-" + secrets.token_hex(4), secrets.token_hex(16)
        os.makedirs(self.credentials, exist_ok=True)
        os.makedirs(self.dir, exist_ok=True)
        for name, value in (("access-key-id", access), ("secret-access-key", secret)):
            with open(os.path.join(self.credentials, name), "w", encoding="ascii") as f:
                f.write(value)
        s = Server("versitygw", [*self.priority, self.binary, "--port", "127.0.0.1:%d" % self.port, "posix", self.dir],
                   self.port, ready_path="/", any_answer=True)
        s.log_path = os.path.join(log_dir, "versitygw.log")
        with open(s.log_path, "w", encoding="utf-8") as out:
            s.proc = subprocess.Popen(s.argv, stdout=out, stderr=subprocess.STDOUT,
                                      env=dict(os.environ, ROOT_ACCESS_KEY=access, ROOT_SECRET_KEY=secret))
        self.server = s
        servers.await_answer(s, 30)
        made = subprocess.run(["curl", "-sf", "-o", "/dev/null", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user",
                               "%s:%s" % (access, secret), "-X", "PUT", "-H", "x-amz-content-sha256: " + EMPTY_SHA256,
                               "%s/%s" % (self.url, self.bucket)])
        if made.returncode != 0:
            raise RuntimeError("could not create the bucket (log: %s)" % s.log_path)

    def stop(self):
        if self.server:
            servers.stop([self.server])
            self.server = None
        if self.shm:
            shutil.rmtree(self.shm, ignore_errors=True)
