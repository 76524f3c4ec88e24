"""Export notebook 08's ViTs and its 397 test pictures for the site's live ViT (docs/_js/vit*.js).

The site is built without torch, so ``make figures`` and ``make weights`` run this script: it
writes ``docs/_data/digits_vit.json`` with

* ``config``: ``vx.DIGITS_VIT_CONFIG`` and the position embedding (``"learned"``);
* ``params``: every tensor of the shipped state_dict (``vitexplain/weights/digits_vit_learned.pt``,
  the model notebook 08 interprets), in state_dict order, as ``[shape, base64]`` with the float32
  values little-endian: the exact numbers torch holds;
* ``test_images``: the 397 test pictures of ``vx.load_digit_split()``, one character per pixel,
  the ink level 0..16 of the UCI digits written in base 17 (``0``-``9``, ``a``-``g``); the model
  sees level / 16, exactly as the package scales them;
* ``test_labels``: their labels, one digit per picture;

and ``docs/_data/digits_vit_none.json`` with the ``source``, ``config`` and ``params`` of its twin
without position (``vitexplain/weights/digits_vit_none.pt``, ``pos_embed="none"``), which the
page's Scramble runs beside it on the same pictures.

A unit test (tests/test_export_site_vit.py) checks that the tracked file equals a fresh export,
so weights retrained without re-exporting fail. Usage: ``python scripts/export_site_vit.py``.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import torch

import vitexplain as vx
from vitexplain.digits import WEIGHTS_DIR

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "docs" / "_data" / "digits_vit.json"
TWIN_OUTPUT = ROOT / "docs" / "_data" / "digits_vit_none.json"
POS_EMBED = "learned"  # notebook 08's model: vx.load_trained_digits_vit("learned")
TWIN_POS_EMBED = "none"  # its twin without position: vx.load_trained_digits_vit("none")
LEVELS = "0123456789abcdefg"  # ink 0..16, one character each


def _model(pos_embed: str) -> tuple[Path, dict]:
    """The shipped weights of the digits ViT with `pos_embed`: the file, and its parameters as
    ``{name: [shape, base64 of little-endian float32]}`` in state_dict order."""
    path = WEIGHTS_DIR / f"digits_vit_{pos_embed}.pt"
    state = torch.load(path, weights_only=True)
    # the page's occlusion runs compute the last block's class token without a key and a value
    # per token (classTokenBlock in docs/_js/vit-questions.js), which holds only without a bias
    biased = [name for name in state if name.endswith(".attn.qkv.bias")]
    if biased:
        raise ValueError(
            f"the site's live ViT assumes qkv_bias=False, but the model has {biased[0]}"
        )
    params = {}
    for name, tensor in state.items():
        values = tensor.detach().to(torch.float32).contiguous().numpy().astype("<f4")
        params[name] = [list(tensor.shape), base64.b64encode(values.tobytes()).decode("ascii")]
    return path, params


def _text(data: dict) -> str:
    return json.dumps(data, separators=(",", ":")) + "\n"


def export() -> str:
    """The JSON text of the export (what ``OUTPUT`` must hold)."""
    path, params = _model(POS_EMBED)
    _, _, test_images, test_labels = vx.load_digit_split()
    levels = (test_images * 16).round().to(torch.int64)  # (397, 1, 8, 8): ink 0..16
    if not torch.equal(levels.to(torch.float32) / 16, test_images):
        raise ValueError("the test pictures are not ink levels 0..16 divided by 16")
    data = {
        "source": f"vitexplain/weights/{path.name} and vx.load_digit_split(); "
        "written by scripts/export_site_vit.py",
        "config": {**vx.DIGITS_VIT_CONFIG, "pos_embed": POS_EMBED},
        "params": params,
        "test_images": "".join(LEVELS[v] for v in levels.flatten().tolist()),
        "test_labels": "".join(str(v) for v in test_labels.tolist()),
    }
    return _text(data)


def export_twin() -> str:
    """The JSON text of the twin without position (what ``TWIN_OUTPUT`` must hold)."""
    path, params = _model(TWIN_POS_EMBED)
    data = {
        "source": f"vitexplain/weights/{path.name}; written by scripts/export_site_vit.py",
        "config": {**vx.DIGITS_VIT_CONFIG, "pos_embed": TWIN_POS_EMBED},
        "params": params,
    }
    return _text(data)


def decode_param(entry: list) -> np.ndarray:
    """One ``params`` entry back to a float32 array of its shape (for the tests)."""
    shape, payload = entry
    return np.frombuffer(base64.b64decode(payload), dtype="<f4").reshape(shape)


def main() -> None:
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    for output, text in ((OUTPUT, export()), (TWIN_OUTPUT, export_twin())):
        output.write_text(text, encoding="utf-8")
        print(f"{output.relative_to(ROOT)}: {len(text.encode()) / 1024:.0f} KB")


if __name__ == "__main__":
    main()
