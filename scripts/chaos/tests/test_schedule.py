"""The nemesis's plan: a seed names one plan, every kind in the mix comes, the bounds hold; and the ring port
agrees with the node's ring on known placements."""
import unittest

from chaos.placement import Ring, xxh64
from chaos.schedule import KINDS, PARTITION_MODES, plan


class Plan(unittest.TestCase):
    def test_a_seed_names_one_plan(self):
        self.assertEqual(plan(7, 600, list(KINDS), 5), plan(7, 600, list(KINDS), 5))
        self.assertNotEqual(plan(7, 600, list(KINDS), 5), plan(8, 600, list(KINDS), 5))

    def test_every_kind_comes_even_in_a_short_run(self):
        for seed in range(20):
            kinds = {f.kind for f in plan(seed, 90, list(KINDS), 5)}
            self.assertEqual(kinds, set(KINDS), seed)

    def test_every_partition_mode_comes_before_any_comes_twice(self):
        for seed in range(20):
            modes = [f.params["mode"] for f in plan(seed, 600, list(KINDS), 5) if f.kind == "partition"]
            self.assertGreaterEqual(len(modes), len(PARTITION_MODES), seed)
            self.assertEqual(set(modes[:len(PARTITION_MODES)]), set(PARTITION_MODES), (seed, modes))

    def test_bounds(self):
        for seed in range(50):
            faults = plan(seed, 600, list(KINDS), 5)
            for f in faults:
                self.assertGreaterEqual(f.start, 5)
                self.assertLessEqual(f.end, 600 - 5 + 1e-9)
                for node in f.nodes():
                    self.assertIn(node, range(5))
            for t in range(0, 600):
                now = [f for f in faults if f.start <= t < f.end]
                self.assertLessEqual(len(now), 2)
                stopped = [n for f in now if f.kind in ("pause", "crash") for n in f.nodes()]
                self.assertLessEqual(len(stopped), 2, (seed, t, now))
                self.assertLessEqual(len([f for f in now if f.kind == "partition"]), 1)
                node_faults = [n for f in now if f.kind != "partition" for n in f.nodes()]
                self.assertEqual(len(node_faults), len(set(node_faults)), (seed, t, now))

    def test_only_the_kinds_asked_for(self):
        self.assertEqual({f.kind for f in plan(3, 300, ["pause"], 5)}, {"pause"})
        self.assertEqual(plan(3, 300, [], 5), [])


class Placement(unittest.TestCase):
    def test_xxh64_matches_the_specification_vectors(self):
        self.assertEqual(xxh64(b""), 0xEF46DB3751D8E999)
        self.assertEqual(xxh64(b"a"), 0xD24EC4F1A98C6E5B)
        self.assertEqual(xxh64(b"abc"), 0x44BC2CF5AD770999)

    def test_the_same_replicas_as_the_nodes_ring(self):
        # printed by dev.dht.node.ring.Ring for these members (node jar, main at 9e02ae4)
        ring = Ring([f"http://10.250.3.1{i}:8080" for i in range(5)])
        self.assertEqual(ring.replicas("k0", 3), ["http://10.250.3.11:8080", "http://10.250.3.13:8080",
                                                  "http://10.250.3.14:8080"])
        self.assertEqual(ring.replicas("k199", 3), ["http://10.250.3.11:8080", "http://10.250.3.10:8080",
                                                    "http://10.250.3.12:8080"])
        long_key = "a-much-longer-key-with-more-than-thirty-two-bytes-in-it"
        self.assertEqual(ring.replicas(long_key, 2), ["http://10.250.3.11:8080", "http://10.250.3.10:8080"])


if __name__ == "__main__":
    unittest.main()
