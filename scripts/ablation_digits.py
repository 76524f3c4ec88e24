"""The ablation of notebook 08 (``make ablation``): what closes the gap between the ViT and the
baselines on the digits, each variant over several seeds.

Every ViT row is :func:`vitexplain.train_digits_vit` with one recipe of
``vitexplain.DIGITS_RECIPES`` (each a step on the one before), trained twice per seed: on 1,100
pictures and scored on the 300 validation pictures carved from the 1,400 training pictures (the
numbers a recipe is chosen by), and on all 1,400 and scored once on the 397 test pictures. Two
baselines on the 64 pixels go through the same two splits: scikit-learn's logistic regression and
a small MLP (``MLPClassifier(128)``). Seed 0 of the shipped recipe is the training ``make weights``
runs, so its test count is the shipped model's.

The table goes to ``vitexplain/weights/digits_ablation.csv``: one line per variant, the number of
right answers per seed (validation of 300, test of 397), their mean and spread. Timings are
printed, never stored (they depend on the machine and its load). Runs on one thread per process
(as ``make weights`` does: a thread count changes PyTorch's float sums, hence the weights).

Usage: ``python scripts/ablation_digits.py [--seeds 0 1 2] [--jobs 2]`` (about 24 CPU-minutes:
12 to 25 minutes on 2 cores with 2 jobs, by the load). A second run writes the same table.
"""

from __future__ import annotations

import os

# One thread per process, NumPy's BLAS included (set before it loads): the runs go side by side.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse
import csv
import statistics
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import torch

import vitexplain as vx
from vitexplain.digits import SHIPPED_RECIPE, WEIGHTS_DIR

TABLE = WEIGHTS_DIR / "digits_ablation.csv"

#: (row name, what it is, how it is trained), in the order of the table.
ROWS: list[tuple[str, str]] = [
    ("short", "ViT, constant learning rate, 40 epochs"),
    ("schedule", "+ one-cycle schedule, 80 epochs"),
    ("smoothing_decay", "+ label smoothing 0.1, weight decay 0.1"),
    ("shift", "+ random shifts of ±1 pixel, 150 epochs"),
    ("no_position", "shipped recipe without position embedding"),
    ("logistic", "logistic regression on the 64 pixels"),
    ("mlp", "MLPClassifier(128) on the 64 pixels"),
]


def _score(row: str, seed: int, validation: bool) -> int:
    """Number of right answers of one variant, one seed, on validation (300) or test (397)."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    if row in ("logistic", "mlp"):
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.linear_model import LogisticRegression
        from sklearn.neural_network import MLPClassifier

        split = vx.load_digit_validation_split() if validation else vx.load_digit_split()
        x, y, x_eval, y_eval = (t.flatten(1).numpy() if t.ndim > 1 else t.numpy() for t in split)
        if row == "logistic":  # the notebook's own baseline (deterministic: seed plays no part)
            model = LogisticRegression(max_iter=2000)
        else:
            model = MLPClassifier((128,), max_iter=1000, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(x, y)
        return int((model.predict(x_eval) == y_eval).sum())
    recipe, pos_embed = (SHIPPED_RECIPE, "none") if row == "no_position" else (row, "learned")
    _, history = vx.train_digits_vit(pos_embed, recipe=recipe, seed=seed, validation=validation)
    size = 300 if validation else 397
    return round(history["test_accuracy"][-1] * size)


def _job(task: tuple[str, int, bool]) -> tuple[str, int, bool, int, float]:
    start = time.perf_counter()
    right = _score(*task)
    return (*task, right, time.perf_counter() - start)


def _summary(counts: list[int], size: int) -> list[str]:
    accuracies = [c / size for c in counts]
    spread = statistics.stdev(accuracies) if len(accuracies) > 1 else 0.0
    return [
        " ".join(str(c) for c in counts),
        f"{statistics.mean(accuracies):.4f}",
        f"{spread:.4f}",
        f"{min(accuracies):.4f}",
        f"{max(accuracies):.4f}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--jobs", type=int, default=2, help="processes, one thread each")
    parser.add_argument("--out", type=Path, default=TABLE)
    parser.add_argument(
        "--rows",
        nargs="+",
        choices=[row for row, _ in ROWS],
        default=None,
        help="train only these rows; the other rows of an existing table are kept",
    )
    args = parser.parse_args()
    args.out = args.out or TABLE
    chosen = args.rows or [row for row, _ in ROWS]
    tasks = [(row, seed, val) for row in chosen for seed in args.seeds for val in (True, False)]
    results: dict[tuple[str, int, bool], int] = {}
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for row, seed, val, right, seconds in pool.map(_job, tasks):
            results[row, seed, val] = right
            where = "validation" if val else "test"
            print(
                f"{row:<16} seed {seed}  {where:<10} {right:3d} right  ({seconds:.0f} s, "
                f"{time.perf_counter() - start:.0f} s so far)",
                flush=True,
            )
    header = ["row", "description", "seeds"]
    for part in ("validation", "test"):
        header += [f"{part}_right_by_seed", f"{part}_mean", f"{part}_std", f"{part}_min"]
        header += [f"{part}_max"]
    kept = {}
    if args.rows and args.out.is_file():
        with args.out.open(newline="") as handle:
            kept = {line[0]: line for line in csv.reader(handle) if line[0] != "row"}
    lines = []
    for row, description in ROWS:
        if row not in chosen:
            if row in kept:
                lines.append(kept[row])
            continue
        line = [row, description, " ".join(str(s) for s in args.seeds)]
        line += _summary([results[row, s, True] for s in args.seeds], 300)
        line += _summary([results[row, s, False] for s in args.seeds], 397)
        lines.append(line)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(lines)
    print(f"wrote {args.out} ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
