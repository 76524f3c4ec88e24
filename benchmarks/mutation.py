"""Mutation testing of the idea modules and the exercise grader's rules (``make mutation``).

    .venv/bin/python benchmarks/mutation.py [attention vit ...]

For each module below, mutmut (3.x, installed by ``make mutation``, not in requirements.lock)
plants one-line bugs in that module alone and runs only the module's own test file(s) against
each, so a module's score says what its mirrored tests catch (``tests/test_attention.py`` for
``vitexplain/attention.py``, ...). Each module runs in its own copy of the project under
``build/mutation/<module>/`` (mutmut works in the current folder and writes ``mutants/`` there);
the surviving mutants' names go to ``build/mutation/<module>/survivors.txt`` (``cd`` there and
``python -m mutmut show NAME`` prints one's diff).

Prints one Markdown row per module: killed, survived, timeout, other (suspicious, segfault, no
tests), total. The results recorded in ``benchmarks/mutation.md`` are measurements made with this
script, not run in CI (a full run takes tens of minutes on 2 cores).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "mutation"

# module (a path under vitexplain/) -> its own tests
MODULES = {
    "patches": ["tests/test_patches.py"],
    "unfold": ["tests/test_unfold.py"],
    "position": ["tests/test_position.py"],
    "relative_position": ["tests/test_relative_position.py"],
    "attention": ["tests/test_attention.py"],
    "vit": ["tests/test_vit.py"],
    "t2t": ["tests/test_t2t.py"],
    "torch_modules": ["tests/test_torch_modules.py"],
    "interpret": ["tests/test_interpret.py"],
    "learned_position": ["tests/test_learned_position.py"],
    # The files that test the rules, not the ones that test the worker processes (learner,
    # spawn, output: a process per case); without the tests that recompute a worked solution
    # (trainings: each grades one answer, which the other tests grade in every form) or wait
    # for a time limit (they test _run.py).
    "exercises/_rules": [
        "tests/test_exercises_graders.py",
        "tests/test_exercises_grammar.py",
        "tests/test_exercises.py",
        "tests/test_predictions.py",
        "tests/test_exercises_site.py",
        "-k",
        "not shipped_answer and not spec_answer and not 08_1_slips and not 06_1_formula"
        " and not under_a_second and not loop and not threaded_torch and not never_returns",
    ],
}


def _config(module: str, tests: list[str]) -> str:
    """The [tool.mutmut] section for one module (mutmut reads it from pyproject.toml)."""
    return (
        "\n[tool.mutmut]\n"
        'source_paths = ["vitexplain"]\n'
        f'only_mutate = ["vitexplain/{module}.py"]\n'
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}\n"
        # the bare run would use the addopts above; no cache folder in the copy
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q"]\n'
        # torch is not fork-safe once its thread pool ran: fork workers from a clean server
        'process_isolation = "forkserver"\n'
        "use_git_change_detection = false\n"
        # beside tests/ (which mutmut copies), what the tests read: the notebooks, the scripts
        # they import (export_exercises), the site's grader and data
        'also_copy = ["notebooks", "data", "scripts", "docs"]\n'
    )


def run(module: str, tests: list[str]) -> dict:
    """mutmut over one module in a fresh copy of the project; returns its counts."""
    work = BUILD / module.replace("/", "_")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("vitexplain", "tests", "data", "notebooks", "scripts", "docs"):
        shutil.copytree(ROOT / folder, work / folder, ignore=ignore)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    (work / "pyproject.toml").write_text(pyproject + _config(module, tests), encoding="utf-8")
    mutmut = [sys.executable, "-m", "mutmut"]
    log = (work / "run.log").open("w")
    # One kernel thread: a worker forked after PyTorch's OpenMP pool started waits forever in
    # libgomp's barrier (every mutant of vit timed out), and two workers share the 2 cores anyway.
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    subprocess.run(
        [*mutmut, "run", "--max-children", "2"], cwd=work, env=env, stdout=log, stderr=log
    )
    subprocess.run([*mutmut, "export-cicd-stats"], cwd=work, stdout=log, stderr=log, check=True)
    counts = json.loads((work / "mutants" / "mutmut-cicd-stats.json").read_text())
    results = subprocess.run(
        [*mutmut, "results"], cwd=work, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    status = dict(line.strip().partition(": ")[::2] for line in results if "__mutmut_" in line)
    untested = [name for name, said in status.items() if said == "no tests"]
    if untested:  # functions that run only in a forked grading worker (exercises/_rules)
        retested = _retest(work, env, untested, tests)
        status.update(retested)
        for said in retested.values():
            counts["no_tests"] -= 1
            counts[said] += 1
    names = [name for name, said in status.items() if said == "survived"]
    (work / "survivors.txt").write_text("".join(f"{name}\n" for name in names))
    return counts


def _retest(work: Path, env: dict, names: list[str], tests: list[str]) -> dict[str, str]:
    """Each mutant of ``names`` against the module's tests, stopping at the first failure:
    "killed", "survived" or "timeout". mutmut runs a mutant against the tests its stats saw
    calling the function, and it records those calls in the test process: a function that
    runs only in a forked grading worker (``coerce``) has none, so mutmut says "no tests".
    The mutant is chosen as mutmut chooses it (``MUTANT_UNDER_TEST``, inherited by the
    worker); two at a time."""
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]

    def one(name: str) -> str:
        try:
            done = subprocess.run(
                command, cwd=work / "mutants", env={**env, "MUTANT_UNDER_TEST": name},
                capture_output=True, timeout=900,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return "timeout"
        if done.returncode not in (0, 1):
            raise RuntimeError(f"{name}: pytest exited {done.returncode}\n{done.stdout[-2000:]}")
        return "survived" if done.returncode == 0 else "killed"

    with ThreadPoolExecutor(2) as pool:
        return dict(zip(names, pool.map(one, names), strict=True))


def main(argv: list[str]) -> int:
    chosen = argv or list(MODULES)
    unknown = [m for m in chosen if m not in MODULES]
    if unknown:
        print(f"unknown module(s) {unknown}; choose from {list(MODULES)}", file=sys.stderr)
        return 2
    print("| module | killed | survived | timeout | other | total | score |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for module in chosen:
        c = run(module, MODULES[module])
        other = c["suspicious"] + c["segfault"] + c["no_tests"] + c["skipped"]
        score = c["killed"] / c["total"] if c["total"] else float("nan")
        row = [module, c["killed"], c["survived"], c["timeout"], other, c["total"], f"{score:.0%}"]
        print("| " + " | ".join(map(str, row)) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
