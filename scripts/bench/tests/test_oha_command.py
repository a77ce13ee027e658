"""The oha command line: a secured cluster's bearer token (DHT_TOKEN) goes on every request, never into the log."""
import unittest

from runner import oha


class OhaCommandTest(unittest.TestCase):
    def test_a_token_is_sent_as_a_bearer_header(self):
        cmd = oha.command("oha", "PUT", "http://h:8080/v0/entity?id=k-[0-9]{4}", False, 100, 5, 4, "v", "a.db",
                          "a.json", token="s3cret")
        self.assertIn("-H", cmd)
        self.assertEqual(cmd[cmd.index("-H") + 1], "Authorization: Bearer s3cret")
        self.assertNotIn("s3cret", oha.shown(cmd))
        self.assertIn("Authorization: Bearer ***", oha.shown(cmd))

    def test_no_token_no_header(self):
        cmd = oha.command("oha", "GET", "urls.txt", True, 100, 5, 4, "v", "a.db", "a.json")
        self.assertNotIn("-H", cmd)
        self.assertNotIn("Authorization", " ".join(cmd))


class OhaTlsTest(unittest.TestCase):
    def test_the_ca_and_the_client_certificate_are_passed_for_https_targets(self):
        cmd = oha.command("oha", "GET", "https://h:8080/v0/entity?id=k", False, 100, 5, 4, "v", "a.db", "a.json",
                          tls=("/ca.crt", "/c/tls.crt", "/c/tls.key"))
        self.assertEqual(cmd[cmd.index("--cacert") + 1], "/ca.crt")
        self.assertEqual(cmd[cmd.index("--cert") + 1], "/c/tls.crt")
        self.assertEqual(cmd[cmd.index("--key") + 1], "/c/tls.key")
        plain = oha.command("oha", "GET", "http://h:8080/v0/entity?id=k", False, 100, 5, 4, "v", "a.db", "a.json")
        self.assertNotIn("--cacert", plain)


if __name__ == "__main__":
    unittest.main()
