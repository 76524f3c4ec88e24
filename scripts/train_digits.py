"""Train and save the ViTs of notebook 08 (``make weights``): with and without position embedding.

The models are trained by :func:`vitexplain.train_digits_vit` (seed 0, the settings in
``vitexplain.digits.DIGITS_TRAINING``) and saved as float32 state_dicts in
``vitexplain/weights/digits_vit_<pos_embed>.pt``, package data that notebook 08 loads with
``torch.load(..., weights_only=True)`` and ``strict=True``: its figures then come from the same
weights on every CPU. On one machine a second run writes the same bytes.

Usage: ``python scripts/train_digits.py``.
"""

from __future__ import annotations

import io
import time

import torch

import vitexplain as vx
from vitexplain.digits import WEIGHTS_DIR


def main() -> None:
    torch.use_deterministic_algorithms(True)
    WEIGHTS_DIR.mkdir(parents=True, exist_ok=True)
    for pos_embed in ("learned", "none"):
        start = time.perf_counter()
        model, history = vx.train_digits_vit(pos_embed)
        buffer = io.BytesIO()
        torch.save(model.state_dict(), buffer)
        path = WEIGHTS_DIR / f"digits_vit_{pos_embed}.pt"
        path.write_bytes(buffer.getvalue())
        print(
            f"{path.name}: test accuracy {history['test_accuracy'][-1]:.3f} after "
            f"{history['epoch'][-1]} epochs, {time.perf_counter() - start:.1f} s, "
            f"{path.stat().st_size / 1024:.0f} KB"
        )


if __name__ == "__main__":
    main()
