"""One k6 run of a tape (or of the fill): the command, its environment, and the figures it leaves."""
import json
import os
import re
import subprocess
import sys
import time


def parse_duration(text):
    """'45s', '1m30s', '500ms', '2m' or a bare number of seconds -> seconds (float)."""
    text = str(text).strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError("not a duration: %r (use e.g. 45s, 2m, 1m30s)" % text)
    scale = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    return sum(float(n) * scale[u] for n, u in parts)


def k6_dir():
    """Where the tapes are: $DHT_K6_DIR, the repository's k6/ (this file is scripts/bench/runner/k6.py), or the
    load-runner image's (/opt/dht/k6 beside /opt/dht/py/runner)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for d in (os.environ.get("DHT_K6_DIR"), os.path.join(here, "..", "..", "..", "k6"), os.path.join(here, "..", "..", "k6")):
        if d and os.path.isfile(os.path.join(d, "lib", "tape.js")):
            return os.path.normpath(d)
    raise FileNotFoundError("the k6 tapes were not found: set DHT_K6_DIR to the k6/ directory")


class Run:
    """A started k6 process; wait() returns its end-of-test figures (the tape's SUMMARY JSON)."""

    def __init__(self, k6, script, env, raw_dir, name, csv=True):
        self.name = name
        self.summary_path = os.path.join(raw_dir, name + ".k6.json")
        self.csv_path = os.path.join(raw_dir, name + ".k6.csv.gz") if csv else None
        self.log_path = os.path.join(raw_dir, name + ".k6.log")
        for p in (self.summary_path, self.csv_path):
            if p and os.path.exists(p):
                os.remove(p)
        cmd = [k6, "run", "--quiet", "--no-usage-report"]
        if csv:
            cmd += ["--out", "csv=" + self.csv_path]
        cmd.append(script)
        full_env = dict(os.environ)
        full_env.update({k: str(v) for k, v in env.items()})
        full_env["SUMMARY"] = self.summary_path
        full_env["K6_NO_USAGE_REPORT"] = "true"
        if os.environ.get("DHT_CA"):
            # https:// targets: k6 (Go) checks their certificates against this file instead of the system's CA
            # bundle; set even when the environment names a bundle already (many images and CI machines do)
            full_env["SSL_CERT_FILE"] = os.environ["DHT_CA"]
        self.started = time.time()
        self._log = open(self.log_path, "w", encoding="utf-8")
        self.proc = subprocess.Popen(cmd, env=full_env, stdout=subprocess.PIPE, stderr=self._log, text=True)

    def wait(self):
        out, _ = self.proc.communicate()
        self._log.close()
        self.elapsed = time.time() - self.started
        if out:
            sys.stderr.write(out)
        with open(self.log_path, "a", encoding="utf-8") as f:
            f.write(out or "")
        if self.proc.returncode != 0:
            raise RuntimeError("k6 %s exited with %d (log: %s)" % (self.name, self.proc.returncode, self.log_path))
        with open(self.summary_path, encoding="utf-8") as f:
            return json.load(f)

    def kill(self):
        """Stops k6 (SIGTERM: it ends the test and still writes its summary) and waits for it."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
