"""A captured profile names no machine's home directory (harness/measure.without_home): reports go to docs/."""
import os
import unittest

from harness import measure


class ProfilePathsTest(unittest.TestCase):
    def test_the_home_directory_becomes_a_tilde(self):
        home = os.path.expanduser("~").encode()
        body = b"'" + home + b"/.cache/dht/native/librocksdbjni.so', '/usr/lib/jvm/libjvm.so'"
        self.assertEqual(measure.without_home(body), b"'~/.cache/dht/native/librocksdbjni.so', '/usr/lib/jvm/libjvm.so'")


if __name__ == "__main__":
    unittest.main()
