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


if __name__ == "__main__":
    unittest.main()
