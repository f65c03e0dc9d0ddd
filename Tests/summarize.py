"""The one summary line `make test` ends with: `N passed, N failed, N skipped`.

Parallel XCTest prints no summary of its own. The counts come from the parallel run's xUnit file,
the log of the tests run in a process of their own beside it (`SOLO_TESTS` in the Makefile) and its
exit status, and the skip reasons the tests append to COACH_SKIP_LOG (each printed once, above the
line). Exits with status 1 when anything failed.

    python3 Tests/summarize.py XUNIT SOLO_LOG SOLO_STATUS SKIP_LOG
"""
import os
import re
import sys
import xml.etree.ElementTree as ElementTree


def main(xunit, solo_log, solo_status, skip_log):
    cases = list(ElementTree.parse(xunit).getroot().iter("testcase"))
    failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
    solo_text = open(solo_log, errors="replace").read() if os.path.exists(solo_log) else ""
    solo = len(re.findall(r"Test Case '[^']*' (?:passed|failed|skipped)", solo_text))
    solo_failed = len(re.findall(r"Test Case '[^']*' failed", solo_text))
    if int(solo_status) != 0 and solo_failed == 0:
        # Crashed, or ended badly after its tests: one failure at least.
        print(f"the tests run on their own ended with status {solo_status} (log: {solo_log})")
        solo, solo_failed = solo + 1, 1
    if solo == 0:
        # A SOLO_TESTS that names no test would silently drop the test from both runs.
        print(f"no test ran on its own: SOLO_TESTS names none (log: {solo_log})")
        solo, solo_failed = 1, 1
    reasons = open(skip_log).read().splitlines() if os.path.exists(skip_log) else []
    for reason in sorted(set(reasons)):
        print(reason if reason.startswith("SKIPPED") else "SKIPPED: " + reason)
    total, failed, skipped = len(cases) + solo, failed + solo_failed, len(reasons)
    print(f"{total - failed - skipped} passed, {failed} failed, {skipped} skipped")
    return failed


if __name__ == "__main__":
    # Exactly one summary line whatever happens; the status is 1 when anything failed.
    try:
        sys.exit(1 if main(*sys.argv[1:5]) else 0)
    except Exception as error:  # no xUnit file (the runner crashed), unreadable files
        print(f"cannot summarise the test run: {error}")
        print("0 passed, 1 failed, 0 skipped")
        sys.exit(1)
