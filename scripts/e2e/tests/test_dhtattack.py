"""dhtattack (make e2e's attack step) against a real node, from this machine's own non-loopback address (a loopback
peer may use the admin plane): the node jar, its member port behind mutual TLS (certificates of
scripts/tls/member-certs.sh), and once in plaintext (--member-insecure). No NetworkPolicy stands in between, so the
member port is reached: the attacker must record each such connection (the e2e fails on them where a policy should
have blocked them) and still find every attack refused; a plaintext member port's HTTP answer must be reported (the
attack step cannot pass against a member plane that is open)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tests.nodeproc import MEMBER_PORT_OFFSET, Node, client_certs, outside_address

HERE = os.path.dirname(os.path.abspath(__file__))
DHTATTACK = os.path.join(HERE, "..", "dhtattack.py")
MEMBER_CERTS = os.path.join(HERE, "..", "..", "tls", "member-certs.sh")


def dhtattack(*args):
    """Runs dhtattack; returns (exit status, RESULT as a dict, the whole output)."""
    p = subprocess.run([sys.executable, DHTATTACK, *args], capture_output=True, text=True, timeout=180)
    results = [line[len("RESULT "):] for line in p.stdout.splitlines() if line.startswith("RESULT ")]
    return p.returncode, json.loads(results[-1]) if results else None, p.stdout + p.stderr


def member_certs(directory):
    p = subprocess.run(["bash", MEMBER_CERTS, directory, "1"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError("member-certs.sh failed:\n" + p.stdout + p.stderr)
    return directory


class DhtattackTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.certs = tempfile.mkdtemp(prefix="dhtattack-test")
        cls.cluster = member_certs(os.path.join(cls.certs, "cluster"))
        cls.foreign = member_certs(os.path.join(cls.certs, "foreign"))  # another CA's member certificate
        cls.node = Node("--member-tls-cert", os.path.join(cls.cluster, "tls.crt"),
                        "--member-tls-key", os.path.join(cls.cluster, "tls.key"),
                        "--member-tls-ca", os.path.join(cls.cluster, "ca.crt"), host=outside_address())

    @classmethod
    def tearDownClass(cls):
        cls.node.stop()
        shutil.rmtree(cls.certs, ignore_errors=True)

    def test_every_attack_is_refused_and_each_member_port_connection_recorded(self):
        code, res, out = dhtattack("attack", "--members", self.node.url, "--times", "2", "--keys", "k1,k2",
                                   "--threads", "4")
        self.assertEqual((0, 0), (code, res["let_through"]), out)
        by = res["by_attack"]
        self.assertEqual(10, len(by), "nine client-port attacks and the member port: " + json.dumps(by))
        for name, outcomes in by.items():
            self.assertEqual(2, sum(outcomes.values()), name)
            if name != "member-port":
                self.assertTrue(all(k.startswith("http-4") for k in outcomes), "%s: %s" % (name, outcomes))
        self.assertNotIn("blocked", by["member-port"], "nothing blocks this address: TLS refused the plaintext write")
        connected = res["member_port_connected"]
        self.assertEqual(2, len(connected), out)
        for c in connected:
            self.assertEqual("%s:%d" % (self.node.host, self.node.port + MEMBER_PORT_OFFSET), c["to"])
            self.assertTrue(c["from"].startswith(self.node.host + ":"), c)
            self.assertRegex(c["at"], r"^\d\d:\d\d:\d\d\.\d{3}Z$")
            self.assertTrue(c["outcome"].startswith("no-http") or c["outcome"] == "closed", c)

    def test_the_member_port_answers_only_the_clusters_certificate(self):
        code, res, out = dhtattack("memberport", "--members", self.node.url, "--times", "2",
                                   "--cert", os.path.join(self.foreign, "tls.crt"),
                                   "--key", os.path.join(self.foreign, "tls.key"))
        self.assertEqual((0, 0, 0), (code, res["answered"], res["blocked"]), out)
        self.assertEqual({"plaintext", "tls-no-client-cert", "tls-foreign-cert"}, set(res["by_attack"]), out)
        # The refusals above are the certificate's doing: the cluster's own gets an HTTP answer on the same port.
        loopback = "http://127.0.0.1:%d" % self.node.port  # the name its certificate carries
        code, res, out = dhtattack("served", "--members", loopback, "--member-tls", self.cluster)
        self.assertEqual(0, code, out)
        self.assertTrue(res["members"][loopback]["answered"], out)


class ClientPortTlsTest(unittest.TestCase):
    def test_a_tls_client_port_refuses_the_attacks_plaintext_and_another_cas_certificate(self):
        certs = tempfile.mkdtemp(prefix="dhtattack-client-tls-test")
        try:
            cluster = client_certs(os.path.join(certs, "cluster"))
            foreign = client_certs(os.path.join(certs, "foreign"))  # another CA's read-write client certificate
            node = Node("--client-auth", "optional", tls=cluster, host=outside_address())
            try:
                code, res, out = dhtattack("attack", "--members", node.url, "--times", "2", "--threads", "4",
                                           "--client-cert", os.path.join(foreign, "client.crt"),
                                           "--client-key", os.path.join(foreign, "client.key"))
            finally:
                node.stop()
        finally:
            shutil.rmtree(certs, ignore_errors=True)
        self.assertEqual((0, 0), (code, res["let_through"]), out)
        by = res["by_attack"]
        self.assertEqual({"http-400": 2}, by["plaintext-client"], "plaintext gets 400, TLS only: " + out)
        self.assertEqual({"tls-refused": 2}, by["foreign-cert-client"], "another CA's certificate: " + out)
        for name, outcomes in by.items():
            if name not in ("member-port", "plaintext-client", "foreign-cert-client"):
                self.assertTrue(all(k.startswith("http-4") for k in outcomes), "%s over TLS: %s" % (name, outcomes))


class OpenMemberPlaneTest(unittest.TestCase):
    def test_a_plaintext_member_port_answers_and_both_commands_say_so(self):
        node = Node("--member-insecure", "true", host=outside_address())  # plaintext on every interface
        try:
            code, res, out = dhtattack("memberport", "--members", node.url, "--times", "1")
            self.assertEqual((1, 1), (code, res["answered"]), out)
            self.assertEqual("plaintext", res["examples"][0][0], out)
            code, res, out = dhtattack("attack", "--members", node.url, "--times", "1", "--threads", "4")
        finally:
            node.stop()
        # The forged write itself is refused (its timestamp is out of bounds), but it got an HTTP answer: the e2e
        # counts that connection as one its NetworkPolicy should have blocked.
        (connected,) = res["member_port_connected"]
        self.assertEqual(b"HTTP/1.1".hex(), connected["first_bytes"], out)
        self.assertRegex(connected["outcome"], r"^http-\d{3}$")
        self.assertEqual({connected["outcome"]: 1}, res["by_attack"]["member-port"], out)


if __name__ == "__main__":
    unittest.main()
