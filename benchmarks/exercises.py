"""How long a learner waits for ``vx.exercises.check``: every exercise, first check and later.

Run with ``python benchmarks/exercises.py`` (add ``--spawn`` for the start method of macOS and
Windows). One fresh Python process per notebook, as a fresh kernel: for each of its exercises
the reference answer is checked twice and a wrong answer once; the first check of the notebook
is the first the kernel makes. Prints a row per exercise and the slowest check. Not a test: the
times depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys

_ONE_NOTEBOOK = """
import json, sys, time
import vitexplain as vx
rows = []
for exercise_id, item in vx.exercises.exercises().items():
    if not exercise_id.startswith(sys.argv[1] + "."):
        continue
    answer = vx.exercises.solution(exercise_id)
    times = []
    for given in (answer, answer, item.wrong()):
        start = time.perf_counter()
        vx.exercises.grade(exercise_id, given)
        times.append(time.perf_counter() - start)
    rows.append([exercise_id, *times])
print(json.dumps(rows))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spawn", action="store_true", help="grade without fork")
    args = parser.parse_args()
    env = dict(os.environ, VITEXPLAIN_GRADER_START="spawn" if args.spawn else "")
    method = "spawn" if args.spawn else "default"
    machine = platform.processor() or platform.machine()
    print(f"{machine}, {os.cpu_count()} cores, Python {platform.python_version()}, {method}")
    print(f"{'exercise':>8} {'first (s)':>10} {'again (s)':>10} {'wrong (s)':>10}")
    rows = []
    for notebook in range(1, 10):
        out = subprocess.run(
            [sys.executable, "-c", _ONE_NOTEBOOK, f"{notebook:02d}"],
            capture_output=True, text=True, check=True, env=env,
        ).stdout  # fmt: skip
        for exercise_id, first, again, wrong in json.loads(out.strip().splitlines()[-1]):
            rows.append((exercise_id, first, again, wrong))
            print(f"{exercise_id:>8} {first:10.3f} {again:10.3f} {wrong:10.3f}", flush=True)
    slowest = max(rows, key=lambda row: max(row[1:]))
    print(f"slowest check: {slowest[0]}, {max(slowest[1:]):.3f} s")


if __name__ == "__main__":
    main()
