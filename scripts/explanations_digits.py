"""Notebook 09's records (``make weights``): the marker model over 3 seeds, and the deletion scores.

1. The planted truth. :func:`vitexplain.attribution.train_marked_digits_vit` trains notebook 08's
   ViT with its recipe on the 1,400 training pictures, every "3" marked in the top-left corner,
   from seeds 0, 1 and 2. Seed 0 is saved as ``vitexplain/weights/digits_vit_marker.pt`` (the
   notebook loads it and recomputes its row). For each seed, on the test pictures: the accuracy,
   how many of the 33 test "3"s are called "3" with and without the marker, how many other
   digits the marker turns into a "3", and for each of the six maps how often the marker patch
   ranks first and in the top 3 on the marked "3"s, and as baselines on the same "3"s without the
   marker and on the other digits with it.
2. Faithfulness, on the clean shipped model (``digits_vit_learned.pt``, made first by
   ``scripts/train_digits.py``): deletion and insertion curves of every map and of random orders
   (seeded) over the 397 test pictures, with a black fill and with the mean training picture:
   the mean curve, the mean and standard deviation of the area, and the share of pictures whose
   area beats the random order's. 28 curves of 6,749 forward passes each: about a minute, too
   slow for the notebook, which recomputes one of them.

Both go into ``vitexplain/weights/digits_marker.json``. One thread per process, deterministic
algorithms, the tasks side by side in two processes (about 3 minutes on 2 cores).

Usage: ``python scripts/explanations_digits.py``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import io
import json
import time
from concurrent.futures import ProcessPoolExecutor

import torch

import vitexplain as vx
from vitexplain import attribution as at
from vitexplain.digits import WEIGHTS_DIR

SEEDS = (0, 1, 2)
RECORD = WEIGHTS_DIR / "digits_marker.json"


def marker_row(model: torch.nn.Module) -> dict:
    """What the marker does to ``model`` and where each map puts it, on the test pictures."""
    _, _, images, labels = vx.load_digit_split()
    threes = labels == at.MARKER_CLASS
    marked, plain = at.add_marker(images[threes]), images[threes]
    others = at.add_marker(images[~threes])
    with torch.no_grad():
        row = {
            "test_right": int((model(images).argmax(-1) == labels).sum()),
            "threes": int(threes.sum()),
            "marked_threes_called_3": int((model(marked).argmax(-1) == 3).sum()),
            "plain_threes_called_3": int((model(plain).argmax(-1) == 3).sum()),
            "others": int((~threes).sum()),
            "marked_others_called_3": int((model(others).argmax(-1) == 3).sum()),
        }
    for where, pictures in (
        ("marked_threes", marked),
        ("plain_threes", plain),
        ("marked_others", others),
    ):
        target = torch.full((len(pictures),), at.MARKER_CLASS) if "threes" in where else None
        ranks = {
            k: at.marker_ranks(v) for k, v in at.explanation_maps(model, pictures, target).items()
        }
        row[where] = {
            k: {"top1": int((r == 1).sum()), "top3": int((r <= 3).sum())} for k, r in ranks.items()
        }
    return row


def train_seed(seed: int) -> dict:
    """Train the marker model from ``seed``, save seed 0, and measure its row."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    start = time.perf_counter()
    model, _ = at.train_marked_digits_vit(seed)
    model.eval()
    if seed == 0:
        buffer = io.BytesIO()
        torch.save(model.state_dict(), buffer)
        (WEIGHTS_DIR / "digits_vit_marker.pt").write_bytes(buffer.getvalue())
    row = {"seed": seed, **marker_row(model)}
    print(f"seed {seed}: {time.perf_counter() - start:.0f} s", flush=True)
    return row


def faithfulness() -> dict:
    """Deletion and insertion on the clean shipped model, both fills, every map and random."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    model = vx.load_trained_digits_vit()
    train_images, _, images, _ = vx.load_digit_split()
    with torch.no_grad():
        target = model(images).argmax(-1)
    orders = {k: at.order_by(v) for k, v in at.explanation_maps(model, images, target).items()}
    orders["random"] = at.random_orders(len(images), 16, seed=0)
    fills = {"black": 0.0, "mean": train_images.mean(0)}
    out: dict = {}
    for fill_name, fill in fills.items():
        for kind in ("deletion", "insertion"):
            curves = {
                k: at.perturbation_curves(model, images, o, fill, kind, target)
                for k, o in orders.items()
            }
            areas = {k: at.area_under_curve(c) for k, c in curves.items()}
            for k, c in curves.items():
                better = (
                    areas[k] < areas["random"] if kind == "deletion" else areas[k] > areas["random"]
                )
                out.setdefault(k, {}).setdefault(fill_name, {})[kind] = {
                    "mean": float(areas[k].mean()),
                    "sd": float(areas[k].std()),
                    "beats_random": float(better.double().mean()),
                    "curve": [float(v) for v in c.mean(0)],
                }
    return out


def run(task: object) -> object:
    return faithfulness() if task == "faithfulness" else train_seed(task)


def main() -> None:
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(run, [*SEEDS, "faithfulness"]))
    record = {
        "marker": {
            "pixel": list(at.MARKER_PIXEL),
            "patch": at.MARKER_PATCH,
            "class": at.MARKER_CLASS,
            "maps": list(at.MAP_NAMES),
            "seeds": results[: len(SEEDS)],
        },
        "faithfulness": {"n": 397, "random_seed": 0, "maps": results[-1]},
    }
    RECORD.write_text(json.dumps(record, indent=1) + "\n")
    print(f"{RECORD.name}: {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
