"""python -m chaos run|check DIR|cleanup|guard MANIFEST (from scripts/, with the project's venv: scripts/chaos.sh).

run: every parameter from the environment (what `make chaos` passes):
  CHAOS_DURATION  seconds of load and faults (also 90s, 10m)        default 300
  CHAOS_SEED      the seed of the fault schedule and the clients     default: random, printed
  CHAOS_NEMESIS   all | none | a comma list of partition,pause,crash,clock,disk   default all
  CHAOS_NODES (5), CHAOS_RF (3), CHAOS_KEYS (200), CHAOS_RATE (150 ops/s), CHAOS_CLIENTS (16),
  CHAOS_OUT (chaos-results), DHT_JAVA, DHT_NODE_JAR, DHT_FAKETIME (libfaketime.so.1; without it no clock fault)
"""
from __future__ import annotations

import os
import random
import sys
from pathlib import Path

from . import resources


def _seconds(text: str) -> float:
    text = text.strip()
    for suffix, factor in (("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)):
        if text.endswith(suffix) and text[:-len(suffix)].replace(".", "", 1).isdigit():
            return float(text[:-len(suffix)]) * factor
    return float(text)


def config():
    from .run import Config
    from .schedule import parse_kinds
    env = os.environ.get
    seed = int(env("CHAOS_SEED") or random.SystemRandom().randrange(1, 1 << 31))
    nemesis = parse_kinds(env("CHAOS_NEMESIS", "all"))
    faketime = env("DHT_FAKETIME") or None
    if "clock" in nemesis and not faketime:
        sys.exit("chaos: the clock fault needs libfaketime (DHT_FAKETIME); scripts/chaos.sh installs it")
    jar = Path(env("DHT_NODE_JAR", "node/target/dht-node.jar")).resolve()
    if not jar.exists():
        sys.exit(f"chaos: {jar} is missing (make build)")
    return Config(duration=_seconds(env("CHAOS_DURATION", "300")), seed=seed, nemesis=nemesis,
                  nodes=int(env("CHAOS_NODES", "5")), rf=int(env("CHAOS_RF", "3")), keys=int(env("CHAOS_KEYS", "200")),
                  rate=float(env("CHAOS_RATE", "150")), clients=int(env("CHAOS_CLIENTS", "16")),
                  out=Path(env("CHAOS_OUT", "chaos-results")).resolve(), java=env("DHT_JAVA", "java"), jar=jar,
                  faketime=faketime)


def main(argv: list[str]) -> int:
    cmd = argv[0] if argv else "run"
    if cmd == "run":
        from .run import run
        return run(config())
    if cmd == "check" and len(argv) == 2:
        from .run import check
        return check(Path(argv[1]).resolve())
    if cmd == "cleanup":
        for line in resources.reap_stale():
            print(f"released {line}")
        return 0
    if cmd == "guard" and len(argv) == 2:
        resources.guard(Path(argv[1]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
