"""How far do notebook 06's probe claims carry: to another start, and to another processor?

Notebook 06 trains its ViT for 6 epochs and states what the trained model does with swapped,
moved and blackened patches (its section 10). That is one model, the one the starting weights of
``torch.manual_seed(0)`` lead to. This script retrains it (same data, batches and settings):

* from the initial seeds 0 to 5, and records on each model the shares of the 128 intact test
  pictures that flip behind each conclusion of section 10 (``QUANTITIES``), each with every logit
  within the notebook's margin (0.05) of 0 counted as intact, as computed and as scrambled, and
  the test accuracy; section 10 reads these to say what holds for every model the recipe makes
  and what is a detail of seed 0's;
* from seed 0 with every starting weight multiplied by ``1 + eps * n`` (``n`` standard normal, a
  generator seeded per run) for ``eps`` = 1e-6 and 1e-5, ten runs each, as another CPU's last
  bits would change it, and checks each claim of the notebook on every run, near ties counted on
  either side; section 7 reads which claims held.

Every run also trains on for 2 more epochs (the batches of epochs 1-6 do not depend on the number
of epochs, so the 6-epoch model is the notebook's) and records the test accuracy after 8; section
7 reads those too.

It writes ``vitexplain/weights/scramble_robustness.json``. ``tests/test_scramble_robustness.py``
retrains seed 0 and one perturbed run and checks that they give the stored record. 26 runs, about
20 s each: 537 s for all 26 on 2 cores shared with other jobs (load average 14 to 21). Run it
with ``make robustness``.

Usage: ``python scripts/robustness_06.py [--runs 10]``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import copy
import json
import time
from pathlib import Path

import torch

import vitexplain as vx
from vitexplain.digits import WEIGHTS_DIR

OUT = WEIGHTS_DIR / "scramble_robustness.json"
LEVELS = (1e-6, 1e-5)
MARGIN = 0.05
#: The conclusions the notebook draws (sections 7 and 10), then the details it states.
CONCLUSIONS = [
    "test accuracy 1 with position",
    "patches 1-8 put anywhere: no verdict flips",
    "patches 10-12 at places 1-8: every verdict flips",
    "patches 10-12 at place 9: more than 70 % flip; patch 15 there: none",
    "a black patch at places 9-15: no verdict flips",
    "swaps within places 1-8: none flips; swaps of 10-12 with 1-8: every one",
]
#: Per initial seed: the shares behind the conclusions of section 10 (``quantities``).
QUANTITIES = [
    "patches 1-8 put anywhere else: largest share",
    "patches 10-12 at places 1-8: smallest share",
    "swaps within places 1-8: largest share",
    "swaps of 10-12 with 1-8: smallest share",
    "patch 10 at place 9",
    "patch 11 at place 9",
    "patch 12 at place 9",
    "patch 15 at place 9",
    "a real patch at place 9: largest share",
    "a black patch at place 9",
    "a black patch at places 9-15: largest share",
]
SEEDS = range(6)
DETAILS = [
    "patches 13-15 at places 2 and 3: every verdict flips",
    "patches 11 and 12 at place 15: 30 % to 70 % flip",
    "the black patch's bins at places 1-8",
    "the bounds of the swap groups and the moon's swaps",
    "the counts of the swap table (no verdict / some / every one)",
    "the bins of the moved-patch table",
]


def perturbed_model(eps: float, run: int, seed: int = 0) -> vx.ViT:
    """Notebook 06's model before training (initial seed ``seed``), every weight nudged by a
    factor 1 + eps * n."""
    torch.manual_seed(seed)
    model = vx.ViT(
        (60, 100), patch_size=20, num_classes=1, embed_dim=32, depth=1, num_heads=2, mlp_ratio=2.0,
        pos_embed="sincos",
    )  # fmt: skip
    generator = torch.Generator().manual_seed(1000 + run)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.mul_(1 + eps * torch.randn(parameter.shape, generator=generator))
    return model


def probe_tables(model: vx.ViT, intact: torch.Tensor) -> dict[str, torch.Tensor]:
    """The logits of the three probes of section 10 on the intact test pictures."""
    swap = torch.full((15, 15, len(intact)), -torch.inf)  # [a, b]: after swapping a and b
    with torch.no_grad():
        for a in range(15):
            for b in range(a + 1, 15):
                swap[a, b] = swap[b, a] = model(vx.swap_patches(intact, 20, a, b))[:, 0]
    return {
        "moved": vx.moved_patch_outputs(model, intact, 20)[..., 0],  # (15, 15, B): [k, p]
        "black": vx.filled_patch_outputs(model, intact, 20)[..., 0],  # (15, B)
        "swap": swap,
    }


def _swap_groups(pairs: torch.Tensor) -> dict[str, torch.Tensor]:
    top, flank, ground, bottom = range(0, 8), [8], range(9, 12), range(12, 15)

    def between(group_a, group_b):
        return sorted({(min(a, b), max(a, b)) for a in group_a for b in group_b if a != b})

    groups = {
        "among 1-8": between(top, top),
        "10-12 with 1-8": between(ground, top),
        "13-15 with 1-8": between(bottom, top),
        "9 with 1-8": between(flank, top),
        "9 with 10-12": between(flank, ground),
        "9 with 13-15": between(flank, bottom),
        "among 10-15": between([*ground, *bottom], [*ground, *bottom]),
    }
    return {name: torch.stack([pairs[a, b] for a, b in g]) for name, g in groups.items()}


def _at(tables: dict[str, torch.Tensor], threshold: float) -> dict[str, object]:
    """Every claim at one threshold: bools, and the printed tables as lists."""
    moved = (tables["moved"] > threshold).float().mean(-1)  # (15, 15)
    black = (tables["black"] > threshold).float().mean(1)  # (15,)
    pairs = (tables["swap"] > threshold).float().mean(-1)  # (15, 15)
    off = ~torch.eye(15, dtype=torch.bool)
    shares = _swap_groups(pairs)
    moon = pairs[2]
    kinds = [
        [int((s == 0).sum()), int(((s > 0) & (s < 1)).sum()), int((s == 1).sum())]
        for s in shares.values()
    ]
    edges = torch.tensor([0.3, 0.7, 0.99999])  # the bins of the moved-patch table
    return {
        CONCLUSIONS[1]: bool((moved[:8][off[:8]] == 0).all()),
        CONCLUSIONS[2]: bool((moved[9:12, :8] == 1).all()),
        CONCLUSIONS[3]: bool((moved[9:12, 8] > 0.7).all() and moved[14, 8] == 0),
        CONCLUSIONS[4]: bool((black[8:] == 0).all()),
        CONCLUSIONS[5]: bool(
            (shares["among 1-8"] == 0).all() and (shares["10-12 with 1-8"] == 1).all()
        ),
        DETAILS[0]: bool((moved[12:, 1:3] == 1).all() and (pairs[12:, 1:3] == 1).all()),
        DETAILS[1]: bool(((0.3 < moved[10:12, 14]) & (moved[10:12, 14] < 0.7)).all()),
        DETAILS[2]: bool(
            (black[[1, 2, 3, 6]] == 1).all()
            and ((0.9 < black[[4, 5]]) & (black[[4, 5]] < 1)).all()
            and ((0.25 < black[[0, 7]]) & (black[[0, 7]] < 0.4)).all()
        ),
        DETAILS[3]: bool(
            (shares["13-15 with 1-8"] > 0.25).all()
            and (shares["9 with 1-8"] < 0.3).all()
            and (shares["9 with 10-12"] > 0.7).all()
            and (shares["9 with 13-15"] < 0.05).all()
            and (shares["among 10-15"] < 0.6).all()
            and (moon[:8] == 0).all()
            and 0 < moon[8] < 0.3
            and (moon[9:] == 1).all()
        ),
        "kinds": kinds,
        "moved bins": torch.bucketize(moved, edges).tolist(),
    }


def claims(tables: dict[str, torch.Tensor], accuracy: float, reference: dict | None) -> dict:
    """Which claims hold at all three thresholds; the tables as computed (threshold 0)."""
    found = [_at(tables, t) for t in (MARGIN, 0.0, -MARGIN)]
    held = {name: all(f[name] for f in found) for name in [*CONCLUSIONS[1:], *DETAILS[:4]]}
    held[CONCLUSIONS[0]] = accuracy == 1.0
    kinds, bins = found[1]["kinds"], found[1]["moved bins"]
    stable = all(f["kinds"] == kinds and f["moved bins"] == bins for f in found)
    reference = reference or {"kinds": kinds, "moved bins": bins}
    held[DETAILS[4]] = stable and kinds == reference["kinds"]
    held[DETAILS[5]] = stable and bins == reference["moved bins"]
    return {"held": held, "kinds": kinds, "moved bins": bins}


def quantities(tables: dict[str, torch.Tensor], accuracy: float) -> dict[str, object]:
    """The numbers behind section 10's conclusions, each at the thresholds MARGIN, 0, -MARGIN.

    A share is the fraction of the 128 intact pictures called scrambled after the probe; each
    list holds it with every logit within MARGIN of 0 counted as intact, as computed, and counted
    as scrambled (so the list never decreases).
    """
    rows = {name: [] for name in QUANTITIES}
    real = [k for k in range(15) if k != 8]  # every patch but the one that sits at place 9
    for threshold in (MARGIN, 0.0, -MARGIN):
        moved = (tables["moved"] > threshold).float().mean(-1)  # (15, 15): [k, p]
        black = (tables["black"] > threshold).float().mean(1)  # (15,)
        shares = _swap_groups((tables["swap"] > threshold).float().mean(-1))
        off = ~torch.eye(15, dtype=torch.bool)
        found = [
            moved[:8][off[:8]].max(),  # patches 1-8 put anywhere else
            moved[9:12, :8].min(),
            shares["among 1-8"].max(),
            shares["10-12 with 1-8"].min(),
            moved[9, 8], moved[10, 8], moved[11, 8], moved[14, 8],
            moved[real, 8].max(),
            black[8],
            black[8:].max(),
        ]  # fmt: skip
        for name, value in zip(QUANTITIES, found, strict=True):
            rows[name].append(float(value))  # k / 128: exact in a float
    return {"test accuracy": accuracy, **rows}


def run(
    eps: float, index: int, reference: dict | None = None, seed: int = 0, eight: bool = False
) -> dict:
    """Train one model from initial seed ``seed``, perturbed by eps (eps = 0: unperturbed; seed 0
    and eps 0: the notebook's own), and check every claim on it after 6 epochs. With ``eight``,
    training goes on for 2 more epochs (the same run: the batches of epochs 1-6 do not depend on
    the number of epochs) and the quantities add the test accuracy after 8."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    train = vx.make_scramble_dataset(512, seed=0)
    test_images, test_labels = vx.make_scramble_dataset(256, seed=1)
    model = perturbed_model(eps, index, seed)
    at_six = {}

    def keep_sixth(line: str) -> None:  # called after each epoch; epochs 7-8 run after it
        if line.startswith("epoch  6/"):
            at_six.update(copy.deepcopy(model.state_dict()))

    history = vx.train_classifier(
        model, train, (test_images, test_labels), epochs=8 if eight else 6, batch_size=32,
        lr=1e-3, seed=0, log=keep_sixth,
    )  # fmt: skip
    model.load_state_dict(at_six)  # the model after 6 epochs, the notebook's
    accuracy = history["test_accuracy"][5]
    tables = probe_tables(model, test_images[:128])
    found = {**claims(tables, accuracy, reference), "quantities": quantities(tables, accuracy)}
    if eight:
        found["quantities"]["test accuracy after 8 epochs"] = history["test_accuracy"][-1]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    start = time.perf_counter()
    result = {
        "margin": MARGIN, "conclusions": CONCLUSIONS, "details": DETAILS, "levels": {},
        "quantities": QUANTITIES, "seeds": {}, "eight epochs": {},
    }  # fmt: skip
    reference = None  # the notebook's own model, seed 0: the tables the others are compared with
    for seed in SEEDS:
        found = run(0.0, 0, reference, seed=seed, eight=True)
        reference = reference or found
        result["seeds"][str(seed)] = found["quantities"]
        print(
            f"{time.perf_counter() - start:4.0f} s  seed {seed}:", found["quantities"], flush=True
        )
    for eps in LEVELS:
        found = [run(eps, index, reference, eight=True) for index in range(args.runs)]
        result["levels"][f"{eps:g}"] = [f["held"] for f in found]
        result["eight epochs"][f"{eps:g}"] = [
            f["quantities"]["test accuracy after 8 epochs"] for f in found
        ]
        failed = {
            name: sum(not f["held"][name] for f in found) for name in [*CONCLUSIONS, *DETAILS]
        }
        print(f"{time.perf_counter() - start:4.0f} s  eps {eps:g}: claims failed in", failed)
        print("  test accuracy after 8 epochs:", result["eight epochs"][f"{eps:g}"], flush=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
