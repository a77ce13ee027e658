"""The one oha command line of scripts/bench (harness/load.oha_command, used by the harness's windows and loads and by
the runner's tapes): a secured cluster's bearer token (DHT_TOKEN) goes on every request, never into the log; https://
targets get the CA and the client certificate."""
import unittest

from harness import load


def tape_command(url, urls_file, token=None, tls=None):
    """As runner/oha.py's Step builds it for one part of a tape."""
    return load.oha_command("oha", "PUT" if "k-" in url else "GET", url, 4,
                            load.fixed_rate(100, 5, wait=True) + ["--output-format", "json", "-o", "a.json",
                                                                  "--db-url", "a.db"],
                            "v", urls_file, token=token, tls=tls)


class OhaCommandTest(unittest.TestCase):
    def test_a_token_is_sent_as_a_bearer_header(self):
        cmd = tape_command("http://h:8080/v0/entity?id=k-[0-9]{4}", False, token="s3cret")
        self.assertIn("-H", cmd)
        self.assertEqual(cmd[cmd.index("-H") + 1], "Authorization: Bearer s3cret")
        self.assertNotIn("s3cret", load.shown(cmd))
        self.assertIn("Authorization: Bearer ***", load.shown(cmd))

    def test_no_token_no_header(self):
        cmd = tape_command("urls.txt", True)
        self.assertNotIn("-H", cmd)
        self.assertNotIn("Authorization", " ".join(cmd))
        self.assertEqual(cmd[-2:], ["--urls-from-file", "urls.txt"])

    def test_a_fixed_rate_window(self):
        cmd = tape_command("http://h:8080/v0/entity?id=k-[0-9]{4}", False)
        self.assertEqual(cmd[:7], ["oha", "-z", "5s", "-q", "100", "--latency-correction", "-w"])
        self.assertEqual(cmd[cmd.index("-d") + 1], "v")
        self.assertEqual(cmd[-2:], ["--rand-regex-url", "http://h:8080/v0/entity?id=k-[0-9]{4}"])
        self.assertEqual(load.fixed_rate(333.3333, 1.5), ["-z", "1.5s", "-q", "333.333", "--latency-correction"])


class OhaTlsTest(unittest.TestCase):
    def test_the_ca_and_the_client_certificate_are_passed_for_https_targets(self):
        cmd = tape_command("https://h:8080/v0/entity?id=k", False, tls=("/ca.crt", "/c/tls.crt", "/c/tls.key"))
        self.assertEqual(cmd[cmd.index("--cacert") + 1], "/ca.crt")
        self.assertEqual(cmd[cmd.index("--cert") + 1], "/c/tls.crt")
        self.assertEqual(cmd[cmd.index("--key") + 1], "/c/tls.key")
        plain = tape_command("http://h:8080/v0/entity?id=k", False)
        self.assertNotIn("--cacert", plain)


if __name__ == "__main__":
    unittest.main()
