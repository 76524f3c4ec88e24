"""scripts/export_site_vit.py: the site's copies of notebook 08's ViT and of its twin without
position are the shipped ones, fresh."""

import json
from pathlib import Path

import export_site_vit
import pytest
import torch

import vitexplain as vx

ROOT = Path(__file__).resolve().parents[1]
TRACKED = ROOT / "docs" / "_data" / "digits_vit.json"
TWIN = ROOT / "docs" / "_data" / "digits_vit_none.json"


@pytest.mark.parametrize("tracked, export", [(TRACKED, "export"), (TWIN, "export_twin")])
def test_tracked_export_equals_a_fresh_export_of_the_shipped_weights(tracked: Path, export: str):
    fresh = getattr(export_site_vit, export)()
    assert tracked.read_text(encoding="utf-8") == fresh, (
        f"docs/_data/{tracked.name} is stale: run `python scripts/export_site_vit.py` "
        "(make figures and make weights do)"
    )


def test_export_holds_the_exact_weights_pictures_and_labels():
    script = export_site_vit
    data = json.loads(TRACKED.read_text(encoding="utf-8"))
    model = vx.load_trained_digits_vit("learned")  # notebook 08's model
    state = model.state_dict()
    assert list(data["params"]) == list(state)
    for name, tensor in state.items():
        exported = torch.from_numpy(script.decode_param(data["params"][name]).copy())
        assert torch.equal(exported, tensor), name
    assert data["config"] == {**vx.DIGITS_VIT_CONFIG, "img_size": [8, 8], "pos_embed": "learned"}
    _, _, test_images, test_labels = vx.load_digit_split()
    levels = torch.tensor([int(c, 17) for c in data["test_images"]], dtype=torch.float32)
    assert torch.equal(levels.view(397, 1, 8, 8) / 16, test_images)
    assert [int(c) for c in data["test_labels"]] == test_labels.tolist()


def test_twin_export_holds_the_exact_weights_of_the_model_without_position():
    script = export_site_vit
    data = json.loads(TWIN.read_text(encoding="utf-8"))
    state = vx.load_trained_digits_vit("none").state_dict()
    assert "pos_embed" not in data["params"] and list(data["params"]) == list(state)
    for name, tensor in state.items():
        exported = torch.from_numpy(script.decode_param(data["params"][name]).copy())
        assert torch.equal(exported, tensor), name
    assert data["config"] == {**vx.DIGITS_VIT_CONFIG, "img_size": [8, 8], "pos_embed": "none"}
    assert set(data) == {"source", "config", "params"}  # the pictures are in digits_vit.json


@pytest.mark.parametrize("export", ["export", "export_twin"])
def test_export_refuses_a_model_with_a_qkv_bias(monkeypatch, export: str):
    """The page's occlusion runs take the last block's class token without a key and a value per
    token (docs/_js/vit-questions.js), which holds only for qkv_bias=False."""
    script = export_site_vit
    load = torch.load

    def biased(*args, **kwargs):
        state = load(*args, **kwargs)
        state["blocks.1.attn.qkv.bias"] = torch.zeros(3 * vx.DIGITS_VIT_CONFIG["embed_dim"])
        return state

    monkeypatch.setattr(script.torch, "load", biased)
    with pytest.raises(ValueError, match=r"assumes qkv_bias=False.*blocks\.1\.attn\.qkv\.bias"):
        getattr(script, export)()
