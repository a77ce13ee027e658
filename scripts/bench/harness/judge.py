"""The one rule every figure of a harness report is judged by: a difference counts only when it is larger than the
spread of identical windows measured in the same run, and every round agrees on its side.

A figure is measured in rounds; in each round the two things compared (two builds of the node, or a node and a
reference server) run one right after the other, in alternating order, under the same load. So:

- the ratio of a round (num / den, paired) cancels what drifts slowly (the machine's neighbours, a store that grows);
- the noise floor is the largest change between two identical windows: the same server under the same load in two
  consecutive rounds, of either side. On this 2-core VM it is a few percent for throughput and often 1.3-2x for a
  p99;
- the verdict: the median of the rounds' ratios is beyond the floor on one side of the target, and so is every
  round (not merely the median) on that side: "better" / "worse"; anything else is "not separable here".

Standard library only.
"""
from benchraw import median, window  # noqa: F401 (the reports' median: harness users take it from here)
BETTER = "better"
WORSE = "worse"
NOT_SEPARABLE = "not separable here"


def change(a, b):
    """How far apart two positive figures are, as a factor >= 1 (1.08: 8% apart, either way)."""
    return max(a / b, b / a)


def noise_floor(*series):
    """The largest change between consecutive rounds of any of the series (each the figure of one server under one
    load, round by round; None for a round that measured nothing), as a factor >= 1; None when no series has two
    consecutive rounds to compare."""
    changes = [change(a, b) for s in series for a, b in zip(s, s[1:])
               if a is not None and b is not None and a > 0 and b > 0]
    return max(changes) if changes else None


def judge(num, den, higher_is_better, target=1.0):
    """num and den: a figure per round, of the side judged and of what it is judged against (same length, paired by
    round). Returns {"ratio": the median of the rounds' num/den, "ratios": each round's, "floor": noise_floor of both,
    "target", "verdict": BETTER or WORSE (beyond the floor, every round on that side of the target) or
    NOT_SEPARABLE}. "better" means a larger ratio when higher_is_better (throughput), a smaller one otherwise
    (latency, CPU per request)."""
    if len(num) != len(den):
        raise ValueError("rounds differ: %d against %d" % (len(num), len(den)))
    ratios = [n / d if n is not None and d else None for n, d in zip(num, den)]
    valid = [r for r in ratios if r is not None and r > 0]
    ratio = median(valid)
    floor = noise_floor(num, den)
    verdict = NOT_SEPARABLE
    if ratio is not None and floor is not None and len(valid) >= 2:
        if all(r > target for r in valid) and ratio / target > floor:
            verdict = BETTER if higher_is_better else WORSE
        elif all(r < target for r in valid) and target / ratio > floor:
            verdict = WORSE if higher_is_better else BETTER
    return {"ratio": ratio, "ratios": ratios, "floor": floor, "target": target, "verdict": verdict}


def target_verdict(judgement, higher_is_better):
    """A target judged as judge() does: "met" or "missed" beyond the noise floor, else NOT_SEPARABLE; plus whether
    the median itself is on the target's side (what to say when the noise cannot separate it)."""
    r, t = judgement["ratio"], judgement["target"]
    meets = r is not None and (r >= t if higher_is_better else r <= t)
    v = judgement["verdict"]
    return {"verdict": "met" if v == BETTER else "missed" if v == WORSE else NOT_SEPARABLE, "median_meets": meets}


def round_names(names, rounds):
    """The windows of names measured in rounds: NAME-1 .. NAME-<rounds> each, in that order."""
    return ["%s-%d" % (n, r) for n in names for r in range(1, rounds + 1)]


def turn(items, k):
    """items in their order for an odd round k, reversed for an even one (the sides of a ratio taking turns going
    first)."""
    items = list(items)
    return items if int(k) % 2 else items[::-1]


def in_rounds(windows, name, rounds, figure):
    """A figure of the windows NAME-1 .. NAME-<rounds> (a report's {window name: figures}), round by round; None for
    a round that measured nothing."""
    return [(windows.get("%s-%d" % (name, r)) or {}).get(figure) for r in range(1, rounds + 1)]


def judged(num, den, higher_is_better, target=1.0):
    """judge() with its target's words (target_verdict: "met", "missed" or NOT_SEPARABLE, and whether the median
    meets it) and both sides' rounds: what a report keeps of a judged ratio."""
    j = judge(num, den, higher_is_better, target)
    t = target_verdict(j, higher_is_better)
    return dict(j, num=list(num), den=list(den), target_verdict=t["verdict"], median_meets=t["median_meets"])


def side_by_side(result, side, against, targets):
    """The ratios a report of windows measured in rounds judges (result: its "wrk", "oha" and "rounds"): side over
    against in wrk's throughput per operation against targets ({"put": 0.75, ...}, higher is better), and in the p99
    at the reference rate (the oha windows OP-ref) against 1, what the side adds to latency."""
    w, o, n = result["wrk"], result["oha"], result["rounds"]
    j = {op: judged(in_rounds(w, "%s-%s" % (side, op), n, "rps"), in_rounds(w, "%s-%s" % (against, op), n, "rps"),
                    True, target) for op, target in targets.items()}
    for op in ("put-ref", "get-ref"):
        j[op] = judged(in_rounds(o, "%s-%s" % (side, op), n, "p99_ms"), in_rounds(o, "%s-%s" % (against, op), n,
                                                                                   "p99_ms"), False)
    return j


def lower_words(who):
    """The verdict of a ratio judged against 1 where lower is better (a p99 over another's), naming the side."""
    return {BETTER: "%s lower, beyond the floor" % who, WORSE: "%s higher, beyond the floor" % who,
            NOT_SEPARABLE: NOT_SEPARABLE}


def target_words(j):
    """A judged ratio's target verdict as a report states it: "met", "missed", or "not separable here (the median
    meets it)" / "(... misses it)"."""
    if j["target_verdict"] != NOT_SEPARABLE:
        return j["target_verdict"]
    return "%s (the median %s it)" % (NOT_SEPARABLE, "meets" if j["median_meets"] else "misses")


JUDGED_HEAD = ["| | per round | median | noise floor | target | verdict |", "|---|---|---:|---:|---|---|"]


def judged_row(label, j, show, target, verdict):
    """One Markdown row under JUDGED_HEAD: the rounds' ratios and their median (show: a ratio as text), the floor."""
    def s(x):
        return "-" if x is None else show(x)
    return "| %s | %s | **%s** | %s | %s | %s |" % (label, " ".join(s(x) for x in j["ratios"]), s(j["ratio"]),
                                                  plus_minus(j["floor"]), target, verdict)


def against(ratio, target, floor, higher_is_better):
    """One measured ratio (an event's window over the same run's window without it) against a fixed target, given
    the noise floor of that run (noise_floor of identical windows with no event): "met" or "missed" only when the
    ratio is on that side of the target by more than the floor, else NOT_SEPARABLE (also without a ratio or a
    floor)."""
    if ratio is None or floor is None or ratio <= 0:
        return NOT_SEPARABLE
    good, bad = (ratio / floor >= target, ratio * floor < target) if higher_is_better else \
        (ratio * floor <= target, ratio / floor > target)
    return "met" if good else "missed" if bad else NOT_SEPARABLE


def beyond(ratio, floor):
    """A phase's figure over the same figure before the event: "higher" or "lower" only beyond the run's noise
    floor, else NOT_SEPARABLE (also without a ratio or a floor)."""
    if ratio is None or floor is None:
        return NOT_SEPARABLE
    return "higher" if ratio > floor else "lower" if ratio < 1 / floor else NOT_SEPARABLE


def phase_floor(rows, start_s, end_s, ok_codes, figure, parts=2):
    """The noise floor of one phase with no event (the load before a pause, a repair, a scale): the phase cut into
    `parts` identical windows (benchraw.window over rows), the largest change of `figure` ("p99_ms", "rps")
    between consecutive ones (noise_floor)."""
    step = (end_s - start_s) / parts
    return noise_floor([window(rows, start_s + k * step, start_s + (k + 1) * step, ok_codes)[figure]
                        for k in range(parts)])


def over_before(before, now, floor):
    """A phase's figure over the same figure before any event, rounded to 0.01 (None without both), and where it
    lies against the run's noise floor (beyond()): (ratio, change)."""
    ratio = round(now / before, 2) if before and now is not None else None
    return ratio, beyond(ratio, floor)


def plus_minus(factor, none="not measured"):
    """A noise floor as the reports print it: '+-8.7%'; None as none."""
    return none if factor is None else "+-%.1f%%" % ((factor - 1.0) * 100.0)


def inside(ratio, target, floor):
    """Whether ratio and target are no further apart than floor: the run cannot tell which side of the target the
    figure is on ("not separable here"). False when there is no floor to judge by."""
    return floor is not None and bool(ratio) and max(ratio / target, target / ratio) <= floor


def percent(factor):
    """A noise floor or a ratio as a signed percentage for the report ('+8.0%', '-3.1%'); None as '-'."""
    if factor is None:
        return "-"
    return "%+.1f%%" % ((factor - 1.0) * 100.0)
