"""Train and save the ViTs of notebook 08 (``make weights``): with and without position embedding.

The models are trained by :func:`vitexplain.train_digits_vit` (seed 0, the recipe in
``vitexplain.digits.DIGITS_TRAINING``, chosen on a validation split: see
``scripts/ablation_digits.py``) on the 1,400 training pictures only (the test pictures are not
read here) and saved as float32 state_dicts in
``vitexplain/weights/digits_vit_<pos_embed>.pt``, package data that notebook 08 loads with
``torch.load(..., weights_only=True)`` and ``strict=True``: its figures then come from the same
weights on every CPU. The two models train side by side, one process and one thread each (the
thread count changes PyTorch's float sums, so it is fixed; the ablation uses the same). On one
machine a second run writes the same bytes.

Usage: ``python scripts/train_digits.py``.
"""

from __future__ import annotations

import os

# One thread per process, NumPy's BLAS included (set before it loads): the runs go side by side.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import io
import time
from concurrent.futures import ProcessPoolExecutor

import torch

import vitexplain as vx
from vitexplain.digits import WEIGHTS_DIR


def train_and_save(pos_embed: str) -> str:
    """Train one model from seed 0, save it, and say how it did."""
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    start = time.perf_counter()
    model, history = vx.train_digits_vit(pos_embed)
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    path = WEIGHTS_DIR / f"digits_vit_{pos_embed}.pt"
    path.write_bytes(buffer.getvalue())
    return (
        f"{path.name}: training accuracy {history['train_accuracy'][-1]:.3f} after "
        f"{history['epoch'][-1]} epochs, {time.perf_counter() - start:.1f} s, "
        f"{path.stat().st_size / 1024:.0f} KB"
    )


def main() -> None:
    WEIGHTS_DIR.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max_workers=2) as pool:
        for line in pool.map(train_and_save, ("learned", "none")):
            print(line)


if __name__ == "__main__":
    main()
