#!/usr/bin/env python3
"""test_times.py [ROOT] -> where `mvn verify`'s time went: per module, unit tests and integration tests, and the
slowest test classes, from the surefire and failsafe XML reports. make test prints it after Maven so that a test
class that grew is seen the day it grows (issue 48). With $DHT_TIMINGS set, appends one line per module and kind
("tests/<module>/<unit|it>  SECONDS") to that file, as scripts/timed.sh does for phases."""
import glob
import os
import sys
import xml.etree.ElementTree as ET

SLOWEST = 12


def suites(root):
    for kind, folder in (("unit", "surefire-reports"), ("it", "failsafe-reports")):
        for path in glob.glob(os.path.join(root, "*", "target", folder, "TEST-*.xml")):
            module = path.split(os.sep)[-4]
            try:
                suite = ET.parse(path).getroot()
            except ET.ParseError:
                continue
            yield module, kind, suite.get("name", "?"), float(suite.get("time") or 0), int(suite.get("tests") or 0)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    rows = list(suites(root))
    if not rows:
        print("[test-times] no test reports found")
        return
    totals = {}
    for module, kind, _, seconds, tests in rows:
        t = totals.setdefault((module, kind), [0.0, 0, 0])
        t[0] += seconds; t[1] += tests; t[2] += 1
    print("[test-times] seconds per module (classes, tests):")
    for (module, kind), (seconds, tests, classes) in sorted(totals.items()):
        print(f"  {module:10s} {kind:5s} {seconds:7.0f} s  ({classes} classes, {tests} tests)")
    print(f"[test-times] the {SLOWEST} slowest classes:")
    for module, kind, name, seconds, tests in sorted(rows, key=lambda r: -r[3])[:SLOWEST]:
        print(f"  {seconds:6.0f} s  {name.rsplit('.', 1)[-1]} ({module} {kind}, {tests} tests)")
    out = os.environ.get("DHT_TIMINGS")
    if out:
        with open(out, "a") as f:
            for (module, kind), (seconds, _, _) in sorted(totals.items()):
                f.write(f"tests/{module}/{kind}\t{seconds:.0f}\t\t0\n")


if __name__ == "__main__":
    main()
