"""The noise floor of the one-window benchmarks' figures (bench-node, bench-cluster measure each figure once, so
they cannot state it themselves): the A/B of the same build (`make bench-ab`, docs/benchmarks/ab/<base>-vs-<commit>
.json) ran the same cases in rounds on the same machine, and the floor of a figure is judge.noise_floor of that
build's rounds: the largest change between two identical windows. Standard library only."""
import glob
import json
import os

from .judge import noise_floor


def from_ab(out, commit, shape):
    """(the A/B report's name, {(side, case, figure): floor as a factor >= 1}) from the newest A/B in OUT/ab whose
    head is commit, for one of its shapes ("single", "cluster"); None when there is none."""
    if not commit:
        return None
    paths = sorted(glob.glob(os.path.join(out, "ab", "*-vs-%s.json" % commit)), key=os.path.getmtime)
    if not paths:
        return None
    with open(paths[-1], encoding="utf-8") as f:
        d = json.load(f)
    series = {}
    for w in sorted(d.get("windows", []), key=lambda w: w["round"]):
        if w["shape"] == shape:
            for figure, v in w["figures"].items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    series.setdefault((w["side"], w["case"], figure), []).append(v)
    floors = {k: noise_floor(v) for k, v in series.items()}
    return os.path.splitext(os.path.basename(paths[-1]))[0], {k: f for k, f in floors.items() if f is not None}


def plus_minus(factor):
    """A floor as the reports print it: '+-8.7%'; None as 'not measured'."""
    return "not measured" if factor is None else "+-%.1f%%" % ((factor - 1.0) * 100.0)


def inside(ratio, target, floor):
    """Whether ratio and target are no further apart than floor: the run cannot tell which side of the target the
    figure is on ("not separable here"). False when there is no floor to judge by."""
    return floor is not None and bool(ratio) and max(ratio / target, target / ratio) <= floor
