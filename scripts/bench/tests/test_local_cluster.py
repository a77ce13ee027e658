"""The local cluster of make bench (harness/nodes.local_cluster, python -m harness nodes ... -- CMD): the nodes'
command lines, and one real node around a command: the command runs once the node serves, its exit status is the
harness's, SIGTERM reaches it, and the node stops and its data goes however the command ends. Needs the node jar."""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request
from unittest import mock

from harness import nodes

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
BENCH = os.path.join(ROOT, "scripts", "bench")
JAR = os.path.join(ROOT, "node", "target", "dht-node.jar")


class LocalClusterCommands(unittest.TestCase):
    def test_every_node_knows_the_members_and_gets_the_options(self):
        tmp = tempfile.mkdtemp(prefix="dht-local-cluster-test-")
        self.addCleanup(shutil.rmtree, tmp)
        tools = {"java": "java", "java_flags": ["--flag"], "jar": "dht-node.jar"}
        c = nodes.local_cluster(3, 18750, tools, "-Xmx512m -Xms512m", "--replication-factor 2", tmp)
        with mock.patch.object(nodes.subprocess, "Popen") as popen:
            c.launch(1)
        argv = popen.call_args[0][0]
        members = "http://127.0.0.1:18750,http://127.0.0.1:18751,http://127.0.0.1:18752"
        self.assertEqual(argv, ["java", "--flag", "-Xmx512m", "-Xms512m", "-jar", "dht-node.jar", "--port", "18751",
                                "--data-dir", os.path.join(tmp, "data", "node1"), "--cluster", members,
                                "--self", "http://127.0.0.1:18751", "--replication-factor", "2"])
        self.assertEqual(c.nodes[1].log_path, os.path.join(tmp, "node1.log"))


def java():
    out = subprocess.run(["bash", "-c", '. "%s/scripts/lib.sh" && find_java_home' % ROOT], capture_output=True,
                         text=True)
    return os.path.join(out.stdout.strip(), "bin", "java")


def free_port():
    """A client port whose member port (+10000) is free too."""
    for port in range(18760, 18800):
        if nodes.servers.bindable(port) and nodes.servers.bindable(port + nodes.servers.MEMBER_PORT_OFFSET):
            return port
    raise AssertionError("no free port in 18760..18799")


class OneNodeAroundACommand(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(JAR):
            raise AssertionError("%s is missing: build it first (scripts/mvn -pl node -am package)" % JAR)
        self.tmp = tempfile.mkdtemp(prefix="dht-local-cluster-live-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.port = free_port()
        self.url = "http://127.0.0.1:%d" % self.port

    def harness(self, *cmd):
        return subprocess.Popen([sys.executable, "-m", "harness", "nodes", "--count", "1", "--port", str(self.port),
                                 "--jar", JAR, "--java", java(), "--java-opts=-Xmx256m", "--work", self.tmp, "--",
                                 *cmd], env=dict(os.environ, PYTHONPATH=BENCH), stderr=subprocess.PIPE, text=True)

    def serves(self):
        try:
            with urllib.request.urlopen(self.url + "/v0/status", timeout=1) as r:
                return r.status == 200
        except OSError:
            return False

    def test_the_command_runs_against_the_serving_node_and_its_status_is_returned(self):
        check = "import sys, urllib.request; sys.exit(3 if urllib.request.urlopen(%r).status == 200 else 1)" % (
            self.url + "/v0/status")
        p = self.harness(sys.executable, "-c", check)
        _, err = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 3, err)
        self.assertFalse(self.serves(), "the node was stopped")
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "node0.log")))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "data")), "the data was removed")

    def test_sigterm_reaches_the_command_then_the_node_stops(self):
        started = os.path.join(self.tmp, "started")
        p = self.harness(sys.executable, "-c", "import time; open(%r, 'w').close(); time.sleep(120)" % started)
        deadline = time.time() + 300
        while not os.path.exists(started):
            self.assertIsNone(p.poll(), "the harness ended before the command started")
            self.assertLess(time.time(), deadline)
            time.sleep(0.2)
        self.assertTrue(self.serves())
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, err)
        self.assertFalse(self.serves(), "the node was stopped")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "data")), "the data was removed")


if __name__ == "__main__":
    unittest.main()
