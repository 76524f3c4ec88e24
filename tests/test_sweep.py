"""Every public callable refuses bad input clearly: a sweep over ``vx.__all__``.

For each name of ``vitexplain.__all__`` that is callable with arguments (classes too), the table
in :func:`cases` gives valid base arguments and bad variants of them: wrong type, wrong shape or
dtype, out of range, NaN, huge. On top of the table's variants, every base argument that is an
int, a float, a bool, a tensor, an array or a module is also tried with a value of the wrong type
(a str for those, "no" for a bool) or NaN (for a float). Every call must end in a ``ValueError``
or ``TypeError`` whose message names the argument; returning (silent), any other exception
(unclear), a ``MemoryError`` or running past the time limit (a hang) fails the callable's test.
The base arguments themselves are called once and must work, so the table cannot go stale.

The calls run in child processes, a few callables per child, under a memory limit
(``RLIMIT_AS``) and a time limit per call (``SIGALRM``); a child that is stuck in C code past its
overall limit is killed, and the call it was making is reported by name. A new public name
without a table entry fails its test until it gets one.

Run as a script (``python tests/test_sweep.py``) to print the numbers: callables, calls, outcomes.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import vitexplain as vx

MEMORY_LIMIT = 3 * 2**30  # bytes of address space per child (torch alone maps ~0.7 GiB)
CALL_SECONDS = 20.0  # one bad call; a refusal takes milliseconds
BASE_SECONDS = 90.0  # one call with the base arguments (train_digits_vit trains an epoch)
CHILD_SECONDS = 300.0  # one child, all its calls, on a busy machine
CHILDREN = 3

# Callables that take no argument: nothing to get wrong.
NO_ARGUMENTS = {"load_mountains"}

# Known gaps in modules this sweep may not change yet: {callable: reason}. Their calls still run;
# their test is an expected failure (strict: it fails when the gap is closed, to be removed here).
KNOWN_GAPS: dict[str, str] = {}


def public_callables() -> list[str]:
    """Names of vx.__all__ that are callable with at least one argument."""
    names = []
    for name in vx.__all__:
        value = getattr(vx, name)
        if not callable(value) or name in NO_ARGUMENTS:
            continue
        if inspect.signature(value).parameters:
            names.append(name)
    return sorted(names, key=str.lower)


# --- the table -------------------------------------------------------------------------------


def bad(**override: object) -> tuple[dict, str]:
    """A bad variant of one argument; the message must name that argument."""
    (name,) = override
    return override, name


def bad_as(expected: str, **override: object) -> tuple[dict, str]:
    """A bad variant whose message must name ``expected`` (e.g. the element of a list)."""
    return override, expected


def cases(scratch: Path) -> dict[str, tuple[dict, list[tuple[dict, str]]]]:
    """{name: (base keyword arguments, [(override, argument the message must name), ...])}.

    Files the calls write go to the folder ``scratch``.
    """
    import numpy as np
    import torch
    from matplotlib.figure import Figure

    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    nan, huge = float("nan"), 10**6
    images = torch.rand(2, 1, 8, 8)  # (B, C, H, W)
    picture = rng.random((8, 8))  # (H, W)
    vit = vx.ViT((8, 8), 2, num_classes=10, embed_dim=8, depth=2, num_heads=2).eval()
    t2t = vx.T2TViT((8, 8), embed_dim=8, depth=1, token_dim=4).eval()
    maps = vx.attention_maps(vit, images)  # 2 x (2, 2, 17, 17)
    block = vx.Block(8, 2)
    attn = vx.Attention(8, 2)
    embed = vx.PatchEmbed(8, 2, embed_dim=8)
    fig = Figure()
    fig.add_subplot().plot([0, 1])
    frame = np.zeros((4, 6, 3), dtype=np.uint8)
    tmp = scratch
    q = torch.randn(1, 4, 8)  # (B, N, d)
    offsets = torch.arange(1, 16).reshape(3, 5)  # (L, 2L - 1): codes 1 .. 15
    sim = vx.grid_similarity(torch.randn(6, 8), (2, 3))  # (2, 3, 2, 3)
    table = vx.sinusoid_encoding(10, 8)  # (L, D)
    history = {"epoch": [1, 2], "loss": [0.7, 0.6], "train_accuracy": [0.5, 0.6]}
    history["test_accuracy"] = [0.5, 0.55]
    labels = torch.tensor([0, 1])
    where = vx.ViT((8, 8), 4, num_classes=4, embed_dim=8, depth=1)  # 2 x 2 grid: 2 + 2 outputs

    def draw(size: int) -> Figure:
        return Figure(figsize=(size, size))

    import ipywidgets

    slider = ipywidgets.IntSlider(value=2, min=1, max=3)

    return {
        "AbsPosEmb1D": (
            {"tokens": 4, "dim_head": 8},
            [bad(tokens=0), bad(dim_head=2.5), bad(tokens=huge**2)],
        ),
        "articles_rel_pos_2d": (
            {
                "q": torch.randn(1, 1, 4, 8),
                "grid_size": 2,
                "table_h": torch.randn(3, 8),
                "table_w": torch.randn(3, 8),
            },
            [bad(q=torch.randn(4, 8)), bad(grid_size=0), bad(table_h=torch.randn(5, 8))],
        ),
        "Attention": (
            {"dim": 8, "num_heads": 2},
            [bad(num_heads=3), bad(dim=huge), bad(qk_scale=nan), bad(fused="no")],
        ),
        "attention": (
            {"q": q, "k": q, "v": q},
            [
                bad(q=q.double()),
                bad(k=torch.randn(1, 4, 5)),
                bad(v=torch.randn(1, 3, 8)),
                bad(scale=nan),
                bad(scale="x"),
            ],
        ),
        "attention_by_origin": (
            {
                "weights": torch.rand(2, 4),
                "orders": torch.tensor([[0, 1, 2, 3]] * 2),
                "grid_size": 2,
            },
            [
                bad(orders=torch.tensor([[0, 1, 2, 9]] * 2)),
                bad(weights=torch.rand(2, 5)),
                bad(grid_size=-1),
                bad(orders=torch.rand(2, 4)),
            ],
        ),
        "attention_maps": (
            {"model": vit, "x": images},
            [bad(x=images.double()), bad(model=torch.nn.Linear(2, 2)), bad(x=torch.rand(2, 8, 8))],
        ),
        "attention_entropy": (
            {"maps": maps},
            [
                bad(maps=[]),
                bad(num_prefix_tokens=-1),
                bad_as("maps[0]", maps=[torch.full((2, 2, 17, 17), nan)]),
                bad(num_prefix_tokens=17),
            ],
        ),
        "Choice": (
            {"options": [1, 2], "value": 1, "description": "size"},
            [bad(options=[]), bad(value=3), bad(description=3), bad(options=5)],
        ),
        "fixed_top_key": (
            {"maps": maps},
            [bad(maps="x"), bad(num_prefix_tokens=1.5), bad_as("maps[0]", maps=[maps[0][0]])],
        ),
        "Number": (
            {"value": 2, "min": 1, "max": 4, "description": "k"},
            [bad(value=9), bad(min=5), bad(step=0), bad(value=2.5), bad(description=None)],
        ),
        "random_shift": (
            {"images": images, "max_shift": 1, "generator": torch.Generator()},
            [bad(images=images[0]), bad(max_shift=-1), bad(max_shift=8), bad(generator=0)],
        ),
        "reference_attention": (
            {"grid_size": 4, "kind": "uniform"},
            [bad(kind="global"), bad(grid_size=0), bad(num_prefix_tokens=-1), bad(kind=1)],
        ),
        "show_attention_locality": (
            {
                "distances": torch.rand(2, 2),
                "entropy": torch.rand(2, 2),
                "top_share": torch.rand(2, 2),
                "references": {"uniform": (4.0, 2.77, 0.06)},
            },
            [
                bad(distances=torch.rand(2)),
                bad(entropy=torch.rand(3, 2)),
                bad(top_share=torch.full((2, 2), nan)),
                bad(references=[1, 2, 3]),
            ],
        ),
        "top_k_overlap": (
            {"a": torch.rand(3, 16), "b": torch.rand(3, 16)},
            [bad(b=torch.rand(3, 4)), bad(k=17), bad(k=0), bad(a="x")],
        ),
        "top_key_share": (
            {"maps": maps},
            [bad(maps=None), bad(num_prefix_tokens="1"), bad_as("maps[0]", maps=[maps[0] * 3])],
        ),
        "attention_rollout": (
            {"maps": maps},
            [
                bad_as("maps[1]", maps=[maps[0], maps[1] * 5]),  # raw logits, not weights
                bad_as("maps[0]", maps=[torch.full((2, 2, 17, 17), nan)]),
                bad(residual="no"),
                bad_as("maps[1]", maps=[maps[0], maps[1][0]]),
                bad(maps=maps[0]),
            ],
        ),
        "attention_with_position": (
            {"q": q, "k": q, "v": q, "position_logits": torch.randn(4, 4)},
            [
                bad(scale="x"),
                bad(scale=nan),
                bad(position_logits=torch.randn(4, 5)),
                bad(q=q.double()),
            ],
        ),
        "Block": (
            {"dim": 8, "num_heads": 2},
            [bad(mlp_ratio=-1.0), bad(dim=huge), bad(qk_scale=0.0), bad(num_heads=5)],
        ),
        "check_shape": (
            {"name": "x", "tensor": torch.zeros(2, 3), "shape": (2, 3), "show": False},
            [bad(shape=(2, 4)), bad(shape="23"), bad(tensor=[[0, 0]]), bad(name=3)],
        ),
        "class_token_attention": (
            {"model": vit, "images": images},
            [bad(model=t2t.tokens_to_token), bad(block=2), bad(images=images[0]), bad(block=1.0)],
        ),
        "clock_frequencies": (
            {"dim": 8},
            [bad(dim=0), bad(base=1.0), bad(base=nan), bad(dim=2.0)],
        ),
        "clock_pairs": ({"dim": 8}, [bad(dim=1), bad(count=0), bad(count=2.5)]),
        "clock_periods": ({"dim": 8}, [bad(dim=-1), bad(base=0.5), bad(base=nan)]),
        "count_parameters": ({"model": vit}, [bad(model=None), bad(model=vit.state_dict())]),
        "count_tokens": (
            {"h": 8, "w": 8, "k": 3, "s": 2, "p": 1},
            [bad(k=20), bad(s=0), bad(p=-1), bad_as("k", h=huge, w=huge, k=1, s=1)],
        ),
        "accuracy_standard_error": (
            {"accuracy": 0.9, "n": 10},
            [bad(accuracy=1.5), bad(accuracy="x"), bad(n=0)],
        ),
        "digits_vit": ({}, [bad(pos_embed="sin"), bad(pos_embed=1), bad(pos_embed=None)]),
        "filled_patch_outputs": (
            {"model": vit, "images": images, "patch_size": 2},
            [bad(model="x"), bad(images=images[0]), bad(patch_size=3), bad(value=nan)],
        ),
        "moved_patch_outputs": (
            {"model": vit, "images": images, "patch_size": 2},
            [bad(model="x"), bad(images=images[0]), bad(patch_size=3)],
        ),
        "show_probe_comparison": (
            {"black_share": np.zeros(4), "moved_share": np.zeros((4, 4))},
            [bad(black_share=np.zeros((2, 2))), bad(moved_share=np.zeros((3, 3)))],
        ),
        "train_digits_cnn": (
            {"epochs": 1},
            [bad(recipe="best"), bad(epochs=0), bad(validation="yes"), bad(seed=-1)],
        ),
        "display_figure": (
            {"fig": fig, "name": None, "alt": "a line from zero to one"},
            [bad(fig="x"), bad(alt="short"), bad(name="a/b"), bad(dpi=0), bad(dpi=huge)],
        ),
        "display_gif": (
            {"frames": [frame], "name": None, "alt": "a black frame, nothing else"},
            [bad(frames=[]), bad(fps=nan), bad(alt=3), bad(frames=[frame[..., 0]])],
        ),
        "embedding_components": (
            {"model": vit, "k": 2},
            [bad(model=t2t), bad(k=0), bad(k=100), bad(model="vit")],
        ),
        "embedding_similarity": (
            {"table": table},
            [
                bad(table=torch.zeros(3, 4)),
                bad(table=torch.zeros(0, 4)),
                bad(table=table[0]),
                bad(table=torch.randn(huge * 20, 1)),
            ],
        ),
        "evaluate": (
            {"model": vit, "images": images, "labels": labels},
            [bad(labels=labels.float()), bad(batch_size=0), bad(images=images.double())],
        ),
        "fit": (
            {
                "model": vit,
                "n": 2,
                "batch_loss": lambda batch: vit(images[batch]).sum(),
                "epochs": 1,
                "batch_size": 2,
                "lr": 1e-3,
            },
            [bad(n=0), bad(batch_loss="x"), bad(lr=nan), bad(epochs=-1), bad(weight_decay=-1.0)],
        ),
        "figure_to_array": ({"fig": fig}, [bad(fig="x"), bad(fig=None), bad(fig=np.zeros(3))]),
        "figure_to_png": ({"fig": fig}, [bad(fig="x"), bad(dpi=0), bad(dpi=huge)]),
        "fold_tokens": (
            {"tokens": torch.rand(1, 16, 9), "h": 8, "w": 8, "k": 3, "s": 2, "p": 1},
            [bad(tokens=torch.rand(1, 15, 9)), bad(k=0), bad(s=10), bad(tokens=torch.rand(16, 9))],
        ),
        "gif_bytes": ({"frames": [frame]}, [bad(frames=[]), bad(fps=0), bad(frames="x")]),
        "grid_neighbours": (
            {"grid_size": 3},
            [bad(grid_size=0), bad(grid_size=(2, 3, 4)), bad(grid_size=huge)],
        ),
        "grid_offsets": (
            {"grid_size": 3, "index": 0},
            [bad(index=9), bad(index=-1), bad(grid_size="3")],
        ),
        "grid_similarity": (
            {"table": torch.randn(7, 8), "grid_size": (2, 3), "num_prefix_tokens": 1},
            [bad(num_prefix_tokens=0), bad(grid_size=(3, 3)), bad(table=torch.randn(7))],
        ),
        "interact_figure": (
            {"draw": draw, "size": slider},
            [bad(draw="x"), bad(size=3), bad_as("size", size="slider")],
        ),
        "load_digit_split": ({}, [bad(seed=-1), bad(seed=1.5), bad(seed="0")]),
        "load_trained_digits_vit": (
            {},
            [bad(pos_embed="sincos"), bad(pos_embed=3), bad(pos_embed=None)],
        ),
        "logit_lens": (
            {"model": vit, "images": images},
            [bad(model=t2t.tokens_to_token), bad(images=images[0]), bad(images=images.double())],
        ),
        "make_scramble_dataset": (
            {"n": 2, "seed": 0},
            [bad(n=huge), bad(n=3), bad(patch_size=7), bad(noise=nan), bad(return_orders="yes")],
        ),
        "mean_attention_distance": (
            {"maps": maps, "grid_size": 4, "patch_size": 2},
            [bad(grid_size=3), bad(patch_size=0), bad(num_prefix_tokens=-1), bad(maps=[])],
        ),
        "Mlp": (
            {"in_features": 8},
            [bad(in_features=0), bad(hidden_features=huge**2), bad(out_features=2.0)],
        ),
        "mountain_at_dusk": (
            {"height": 8, "width": 8},
            [bad(height=4), bad(width=8.0), bad(height=huge**2)],
        ),
        "neighbour_contrast": (
            {"similarity": sim},
            [
                bad(similarity=torch.ones(1, 2, 1, 2)),
                bad(similarity=sim[0]),
                bad(similarity=torch.full((2, 2, 2, 2), nan)),
            ],
        ),
        "neighbour_wins": (
            {"similarity": sim},
            [
                bad(margin="x"),
                bad(margin=nan),
                bad(margin=-1.0),
                bad(similarity=torch.ones(1, 3, 1, 3)),
            ],
        ),
        "occlusion_map": (
            {"model": vit, "images": images, "patch_size": 2},
            [
                bad(target=torch.tensor([0.0, 1.0])),
                bad(target=torch.tensor([0, 10])),
                bad(target=torch.tensor([0, 1, 2])),
                bad(target=torch.tensor([-1, 0])),
                bad(patch_size=3),
                bad(value=nan),
            ],
        ),
        "one_hot_patch_kernels": (
            {"in_chans": 1, "patch_size": 2},
            [bad(patch_size=200), bad(in_chans=0), bad(patch_size=2.0)],
        ),
        "overlap_count": (
            {"h": 8, "w": 8, "k": 3, "s": 2, "p": 1},
            [bad(num_patches=-1), bad(k=9 + 2 + 1), bad(p=0.5)],
        ),
        "patch_embed_to_conv": (
            {"embed": embed},
            [bad(embed=vit), bad(embed=None), bad(embed="x")],
        ),
        "PatchEmbed": (
            {"img_size": 8, "patch_size": 2, "embed_dim": 8},
            [bad(patch_size=3), bad(embed_dim=huge**2), bad(img_size=(8, 0)), bad(in_chans=0)],
        ),
        "patchify": (
            {"x": images, "patch_size": 2},
            [bad(patch_size=3), bad(x=images[0]), bad(patch_size=0)],
        ),
        "patchify_by_conv": (
            {"x": images, "patch_size": 2},
            [bad(patch_size=5), bad(x=images.long()), bad(x=images[0])],
        ),
        "patchify_by_slicing": (
            {"x": images, "patch_size": 2},
            [bad(patch_size=3), bad(x=images[0]), bad(patch_size=-2)],
        ),
        "position_targets": (
            {"grid_size": 3},
            [bad(sigma=-1.0), bad(sigma=nan), bad(grid_size=huge)],
        ),
        "rank_correlation": (
            {"a": torch.rand(3, 4, 4), "b": torch.rand(3, 4, 4)},
            [
                bad(b=torch.rand(3, 16)),
                bad(a=torch.ones(3, 4, 4)),
                bad_as("a", a=torch.rand(3, 1), b=torch.rand(3, 1)),
                bad(a=torch.full((3, 4, 4), nan)),
                bad(a=[[1, 2]]),
            ],
        ),
        "relative_index": ({"length": 4}, [bad(length=0), bad(length=huge), bad(length=2.0)]),
        "relative_rotation": (
            {"offset": 1, "dim": 8},
            [bad(dim=10**5), bad(dim=7), bad(offset=nan), bad(base=1.0)],
        ),
        "relative_to_absolute": (
            {"x": offsets},
            [bad(x=torch.randn(3, 4)), bad(x=torch.randn(3)), bad(x=[1])],
        ),
        "RelPosEmb1D": (
            {"tokens": 4, "dim_head": 8},
            [bad(tokens=0), bad(heads=0), bad(dim_head=huge**2)],
        ),
        "RelPosEmb2D": (
            {"grid_size": 3, "dim_head": 8},
            [bad(grid_size=0), bad(heads=-1), bad(dim_head=0.5)],
        ),
        "resize_pos_embed": (
            {"pos_embed": torch.randn(17, 8), "old_grid": 4, "new_grid": 2, "num_prefix_tokens": 1},
            [
                bad(num_prefix_tokens=0),
                bad(new_grid=5000),
                bad(antialias="no"),
                bad(pos_embed=torch.randn(2, 17, 8)),
            ],
        ),
        "save_figure": (
            {"fig": fig, "path": tmp / "figure.png"},
            [bad(path=tmp / "figure.jpg"), bad(fig="x"), bad(dpi=0), bad(path=3)],
        ),
        "save_gif": (
            {"frames": [frame], "path": tmp / "animation.gif"},
            [bad(path=tmp / "a.png"), bad(frames=[]), bad(fps=-1.0), bad(path=None)],
        ),
        "save_mountains": (
            {"path": tmp / "mountains.npy"},
            [bad(path=3), bad(path=b"x"), bad(path=[tmp])],
        ),
        "scramble_patches": (
            {"image": picture, "patch_size": 4, "order": [3, 2, 1, 0]},
            [
                bad(order=[0, 1, 2]),
                bad(order=[0.0, 1.0, 2.0, 3.0]),
                bad(patch_size=3),
                bad(image=picture[0]),
            ],
        ),
        "show_attention_by_origin": (
            {"table": np.eye(3)},
            [bad(table=np.zeros(3)), bad(table="x"), bad(vmax=nan), bad(table=np.zeros((2, 3)))],
        ),
        "show_attention_heads": (
            {"weights": np.full((2, 4, 4), 0.25)},
            [bad(weights=np.zeros((4, 4))), bad(ncols=0), bad(labels=[1, 2]), bad(weights="x")],
        ),
        "show_class_token_attention": (
            {"image": picture, "weights": np.full((2, 4), 0.2), "patch_size": 4},
            [
                bad(weights=np.zeros((2, 5))),
                bad(patch_size=3),
                bad(image=np.zeros(8)),
                bad(vmax=nan),
            ],
        ),
        "show_class_token_maps": (
            {"image": images[0, 0], "maps": [m[:1] for m in maps], "grid_size": 4},
            [bad(maps=maps), bad(grid_size=3), bad(image=images), bad(maps="x")],
        ),
        "show_clock_explorer": ({}, [bad(dim=1), bad(base=nan), bad(num_tokens=huge**2)]),
        "show_clocks": (
            {"table": table},
            [bad(table=table[0]), bad(pairs=[99]), bad(base=nan), bad(table="x")],
        ),
        "show_columns": (
            {"table": table, "columns": [0, 1]},
            [bad(columns=[8]), bad(columns=[]), bad(base=0.5), bad(table=table[0])],
        ),
        "show_digits": (
            {"images": images, "labels": [3, 5]},
            [bad(labels=[3]), bad(ncols=0), bad(predictions=[1]), bad(images=images[0, 0])],
        ),
        "show_embedding": (
            {"table": table},
            [bad(table=table[0]), bad(table="x"), bad(table=[[1, 2], [3]])],
        ),
        "show_embedding_bases": (
            {"tables": [table, table], "bases": [100, 10000]},
            [bad(bases=[100]), bad(tables=[]), bad_as("tables[0]", tables=[table[0], table])],
        ),
        "show_fold_reconstruction": (
            {"summed": picture, "counts": np.ones((8, 8)), "recovered": picture},
            [bad(counts=np.ones((8, 7))), bad(summed=picture[0]), bad(recovered="x")],
        ),
        "show_frequencies": (
            {"frequencies": {100: vx.clock_frequencies(8, 100)}},
            [
                bad(frequencies=[1, 2]),
                bad(frequencies={}),
                bad_as("frequencies", frequencies={100: "x"}),
            ],
        ),
        "show_grid_offsets": (
            {
                "image": picture,
                "patch_size": 4,
                "row_offsets": np.zeros((2, 2), dtype=int),
                "col_offsets": np.zeros((2, 2), dtype=int),
                "highlight": 0,
            },
            [
                bad(highlight=4),
                bad(patch_size=3),
                bad(row_offsets=np.zeros((3, 3))),
                bad(highlight=-1),
            ],
        ),
        "show_grid_similarity": (
            {"maps": [np.eye(3)], "titles": ["a"], "reference": 0},
            [bad(reference=9), bad(titles=["a", "b"]), bad(maps=[]), bad(reference=0.5)],
        ),
        "show_image": ({"image": picture}, [bad(image=picture[0]), bad(image="x"), bad(vmin=nan)]),
        "show_logit_lens": (
            {"probabilities": np.full((3, 10), 0.1), "label": 3},
            [
                bad(label=10),
                bad(probabilities=np.full((2, 3, 10), 0.1)),
                bad(label=-1),
                bad(label="3"),
            ],
        ),
        "show_logit_matrices": (
            {"matrices": [np.eye(3), np.eye(3)], "titles": ["a", "b"]},
            [
                bad(titles=["a"]),
                bad(matrices=[]),
                bad(outlines=[None]),
                bad_as("matrices[0]", matrices=[np.eye(3)[0], np.eye(3)]),
            ],
        ),
        "show_looks_and_uses": (
            {
                "images": images,
                "rollout": np.zeros((2, 4, 4)),
                "occlusion": np.zeros((2, 4, 4)),
                "titles": ["a", "b"],
            },
            [
                bad(titles=["a"]),
                bad(rollout=np.zeros((2, 16))),
                bad(occlusion=np.zeros((2, 2, 2))),
                bad(images=images[:1]),
                bad(titles="ab"),
            ],
        ),
        "show_matrices": (
            {"matrices": [np.eye(2), np.eye(3)]},
            [bad(ncols=0), bad(titles=["a"]), bad(highlight_rows=[[5], None]), bad(matrices=[])],
        ),
        "show_matrix": (
            {"matrix": np.eye(3)},
            [bad(matrix=np.zeros(3)), bad(fmt=3), bad(matrix="x"), bad(vmin=nan)],
        ),
        "show_padded_token": (
            {"patch": np.zeros((3, 3)), "from_picture": np.ones((3, 3))},
            [bad(from_picture=np.ones((2, 2))), bad(patch=np.zeros(3)), bad(number=0)],
        ),
        "show_patch_and_token": (
            {"patch": np.zeros((3, 3))},
            [bad(patch=np.zeros(3)), bad(highlight_row=5), bad(number=-1), bad(patch="x")],
        ),
        "show_patch_grid": (
            {"image": picture, "patch_size": 4},
            [bad(patch_size=3), bad(highlight=4), bad(labels=[1]), bad(image=picture[0])],
        ),
        "show_position_similarity": (
            {"similarities": [sim], "titles": ["a"]},
            [bad(titles=["a", "b"]), bad(similarities=[]), bad(similarities=[sim[0]])],
        ),
        "show_relative_distances": (
            {"index": vx.relative_index(3)},
            [bad(index=np.zeros((3, 4))), bad(index="x"), bad(index=np.zeros(3))],
        ),
        "show_resized_embedding": (
            {
                "before": torch.randn(4, 8),
                "after": torch.randn(9, 8),
                "old_grid": (2, 2),
                "new_grid": (3, 3),
                "channels": [0],
            },
            [bad(channels=[9]), bad(old_grid=(3, 3)), bad(new_grid=0), bad(after=torch.randn(9))],
        ),
        "show_scramble_examples": (
            {
                "images": images[:, :, :8, :8],
                "labels": [0, 1],
                "orders": [[0, 1, 2, 3], [3, 2, 1, 0]],
                "patch_size": 4,
            },
            [bad(labels=[0, 2]), bad(orders=[[0, 1, 2, 3]]), bad(ncols=0), bad(patch_size=3)],
        ),
        "show_scrambled_patches": (
            {"image": picture, "patch_size": 4, "order": [3, 2, 1, 0]},
            [bad(order=[0, 0, 1, 2]), bad(patch_size=5), bad(image=picture[0]), bad(titles=("a",))],
        ),
        "show_similarity": (
            {"similarity": np.eye(4), "starts": (0, 2)},
            [
                bad(starts=(4,)),
                bad(similarity=np.zeros((3, 4))),
                bad(starts=()),
                bad(similarity="x"),
            ],
        ),
        "show_skew_steps": (
            {"steps": vx.skew_steps(offsets)},
            [bad(steps=vx.skew_steps(offsets)[:3]), bad(steps="x"), bad(labels=[1])],
        ),
        "show_softsplit_coverage": (
            {"image": picture, "k": 3, "s": 2, "p": 1},
            [bad(k=20), bad(s=0), bad(max_outlines=-1), bad(image=picture[0])],
        ),
        "show_softsplit_explorer": (
            {"image": picture, "k": 3, "s": 2, "p": 1},
            [bad(k="3"), bad(s=nan), bad(image="x")],
        ),
        "show_softsplit_frame": (
            {"image": picture, "k": 3, "s": 2, "p": 1, "current": 0},
            [bad(current=16), bad(current=-1), bad(k=0), bad(image=picture[0])],
        ),
        "show_table_bands": (
            {"table": table},
            [bad(parts=0), bad(parts=9), bad(column_px=0.5), bad(table=table[0])],
        ),
        "show_token_matrix": (
            {"tokens": np.zeros((4, 9))},
            [bad(tokens=np.zeros(9)), bad(tokens="x"), bad(tokens=np.zeros((1, 2, 3)))],
        ),
        "show_tokenization": (
            {"image": picture, "patch_size": 4},
            [bad(patch_size=3), bad(max_labels=-1), bad(image=np.zeros((2, 8, 8)))],
        ),
        "show_tokens_plus_embedding": (
            {"tokens": np.zeros((4, 8)), "embedding": np.zeros((4, 8))},
            [
                bad(embedding=np.zeros((4, 9))),
                bad(tokens=np.zeros(8)),
                bad(column_px=0),
                bad(row_px=nan),
            ],
        ),
        "show_training_curves": (
            {"histories": {"a": history}},
            [bad(histories=[history]), bad(histories={}), bad(chance=2.0), bad(chance=nan)],
        ),
        "show_vit_figure7": (
            {
                "components": np.zeros((2, 1, 2, 2)),
                "explained": np.array([0.6, 0.4]),
                "similarity": sim,
                "distances": np.ones((2, 2)),
                "uniform_distance": 3.0,
            },
            [
                bad(explained=np.array([1.0])),
                bad(similarity=sim[0]),
                bad(distances=np.ones(2)),
                bad(uniform_distance=nan),
                bad(components=np.zeros((2, 2))),
            ],
        ),
        "sinusoid_encoding": (
            {"num_tokens": 4, "dim": 8},
            [bad_as("num_tokens", num_tokens=huge, dim=huge), bad(base=1.0), bad(dim=0)],
        ),
        "sinusoid_encoding_2d": (
            {"grid_size": 2, "dim": 8},
            [bad(dim=7), bad(grid_size=huge), bad(base=nan)],
        ),
        "skew_steps": (
            {"x": offsets},
            [bad(x=torch.randn(3, 4)), bad(x=torch.randn(3)), bad(x=[1.0])],
        ),
        "soft_split": (
            {"kernel_size": 3},
            [bad(kernel_size=0), bad(kernel_size=2.0), bad(kernel_size="3")],
        ),
        "soft_split_boxes": (
            {"h": 8, "w": 8, "k": 3, "s": 2, "p": 1},
            [bad(k=11), bad(s=0), bad(w=0)],
        ),
        "softsplit_frames": (
            {"image": np.zeros((4, 4)), "k": 3, "s": 2, "p": 1},
            [bad(k=10), bad(image=np.zeros(4)), bad(s=-1)],
        ),
        "swap_patches": (
            {"images": images, "patch_size": 4, "a": 0, "b": 3},
            [bad(a=4), bad(b=-1), bad(patch_size=3), bad(images=images[0])],
        ),
        "T2TModule": (
            {"img_size": 8, "embed_dim": 8, "token_dim": 4},
            [
                bad(softsplit_kernels=7),
                bad_as("softsplit_kernels[0]", softsplit_kernels=(0, 3, 3)),
                bad(img_size=2),
                bad(token_dim=huge**2),
            ],
        ),
        "T2TViT": (
            {"img_size": 8, "embed_dim": 8, "depth": 1, "token_dim": 4},
            [
                bad(softsplit_kernels=(7, 3)),
                bad(embed_dim=huge),
                bad(num_heads=3),
                bad(mlp_ratio=nan),
            ],
        ),
        "to_torch_encoder_layer": (
            {"block": block},
            [bad(block=attn), bad(block=None), bad(block="x")],
        ),
        "to_torch_multihead_attention": (
            {"attn": attn},
            [bad(attn=block), bad(attn=None), bad(attn=vx.TokenAttention(8, 4))],
        ),
        "toeplitz_error": (
            {"matrix": torch.eye(3)},
            [
                bad(matrix=torch.zeros(0, 0)),
                bad(matrix=torch.zeros(2, 3)),
                bad(matrix=torch.zeros(3)),
            ],
        ),
        "token_position_logits": (
            {"model": vit, "images": images},
            [bad(model=t2t), bad(images=images[0]), bad(images=images.double())],
        ),
        "TokenAttention": (
            {"dim": 8, "out_dim": 4},
            [bad(out_dim=0), bad(num_heads=3), bad(dim=huge * 100)],
        ),
        "TokenTransformer": (
            {"dim": 8, "out_dim": 4},
            [bad(out_dim=0), bad(mlp_ratio=0.0), bad(dim=-8)],
        ),
        "trace_shapes": (
            {"model": vit, "x": images, "names": ["blocks.0"]},
            [bad(names=["nope"]), bad(names="blocks.0"), bad(x=images[0]), bad(x=images.double())],
        ),
        "train_classifier": (
            {"model": vit, "train": (images, labels), "epochs": 1, "log": None},
            [bad(train=(images, labels[:1])), bad(lr=0.0), bad(epochs=0), bad(log="x")],
        ),
        "train_digits_vit": (
            {"epochs": 1},
            [bad(pos_embed="sin"), bad(epochs=0), bad(log="x")],
        ),
        "train_where_am_i": (
            {"model": where, "images": images, "grid_size": 2, "epochs": 1},
            [bad(grid_size=3), bad(sigma=nan), bad(epochs=0), bad(model=vit)],
        ),
        "unpatchify": (
            {"tokens": torch.rand(1, 16, 4), "img_size": 8, "patch_size": 2},
            [bad(img_size=10), bad(patch_size=3), bad(tokens=torch.rand(16, 4))],
        ),
        "ViT": (
            {"img_size": 8, "patch_size": 2, "embed_dim": 8, "depth": 1},
            [
                bad(embed_dim=huge),
                bad(pos_embed="sin"),
                bad(patch_size=3),
                bad(depth=-1),
                bad(qkv_bias="no"),
            ],
        ),
    }


def automatic_variants(base: dict) -> list[tuple[dict, str]]:
    """A value of the wrong type (or NaN) for every base argument of a checkable kind."""
    import numpy as np
    import torch

    variants = []
    for name, value in base.items():
        if isinstance(value, bool):
            variants.append(({name: "no"}, name))
        elif isinstance(value, int):
            variants.append(({name: str(value)}, name))
        elif isinstance(value, float):
            variants.append(({name: float("nan")}, name))
        elif isinstance(value, torch.Tensor | np.ndarray | torch.nn.Module):
            variants.append(({name: "x"}, name))
    return variants


# --- the child: run the calls ----------------------------------------------------------------


class CallTimeout(BaseException):
    """Raised by SIGALRM in a call that runs too long (a BaseException: no except Exception)."""


def _alarm(_signum: int, _frame: object) -> None:
    raise CallTimeout


def _describe_override(override: dict) -> str:
    parts = []
    for key, value in override.items():
        shape = getattr(value, "shape", None)
        text = f"{type(value).__name__}{tuple(shape)}" if shape is not None else repr(value)
        parts.append(f"{key}={text[:60]}")
    return ", ".join(parts)


def _call(function: Callable, kwargs: dict) -> object:
    result = function(**kwargs)
    if inspect.isgenerator(result):  # a generator must refuse at the call, not at next()
        return ("generator", next(result))
    return result


def run_child(names: list[str], out_path: str) -> None:
    """Run every call of ``names``, one JSON line per event to ``out_path``."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    os.environ.pop("VITEXPLAIN_FIGURES_DIR", None)
    import io
    import warnings

    warnings.simplefilter("ignore")
    signal.signal(signal.SIGALRM, _alarm)
    out = open(out_path, "a", buffering=1)  # noqa: SIM115 - one line per event, flushed

    def write(**event: object) -> None:
        out.write(json.dumps(event) + "\n")

    table = cases(Path(out_path).parent)
    quiet = io.StringIO()  # check_shape and IPython's display print
    for name in names:
        if name not in table:
            write(name=name, kind="missing")
            continue
        function = getattr(vx, name)
        base, variants = table[name]
        variants = variants + automatic_variants(base)
        write(name=name, case="base arguments", kind="start")
        try:
            sys.stdout = quiet
            signal.setitimer(signal.ITIMER_REAL, BASE_SECONDS)
            _call(function, dict(base))
            outcome, message = "ok", ""
        except CallTimeout:
            outcome, message = "hang", f"over {BASE_SECONDS} s"
        except BaseException as error:  # noqa: BLE001 - every failure is reported
            outcome, message = "base failed", f"{type(error).__name__}: {error}"
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            sys.stdout = sys.__stdout__
        write(name=name, case="base arguments", kind="base", outcome=outcome, message=message)
        for override, expected in variants:
            case = _describe_override(override)
            write(name=name, case=case, kind="start")
            started = time.perf_counter()
            try:
                sys.stdout = quiet
                signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
                _call(function, {**base, **override})
                outcome, message = "silent", "returned without an error"
            except CallTimeout:
                outcome, message = "hang", f"over {CALL_SECONDS} s"
            except MemoryError as error:
                outcome, message = "memory", f"MemoryError: {error}"
            except (ValueError, TypeError) as error:
                message = f"{type(error).__name__}: {error}"
                named = re.search(rf"(?<![\w]){re.escape(expected)}(?![\w])", str(error))
                outcome = "clear" if named else "unnamed"
            except BaseException as error:  # noqa: BLE001
                outcome, message = "unclear", f"{type(error).__name__}: {error}"
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                sys.stdout = sys.__stdout__
            write(
                name=name,
                case=case,
                kind="call",
                expected=expected,
                outcome=outcome,
                message=message[:400],
                seconds=round(time.perf_counter() - started, 3),
            )
    out.close()


# --- the parent: split, run, collect ---------------------------------------------------------


def run_sweep(names: list[str]) -> dict[str, list[dict]]:
    """Run the sweep in CHILDREN processes; {name: [events]} (a killed child's call: 'hang')."""
    chunks = [names[i::CHILDREN] for i in range(CHILDREN)]
    folder = Path(tempfile.mkdtemp(prefix="vx_sweep_"))
    children = []
    for i, chunk in enumerate(chunks):
        path = folder / f"child{i}.jsonl"
        command = [sys.executable, __file__, "--child", str(path), *chunk]
        env = {**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}
        children.append((subprocess.Popen(command, env=env, stderr=subprocess.PIPE), path))
    deadline = time.monotonic() + CHILD_SECONDS
    stderr = {}
    for process, path in children:
        try:
            _, err = process.communicate(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate()
        stderr[path] = err.decode(errors="replace")[-2000:]
    results: dict[str, list[dict]] = {name: [] for name in names}
    for (process, path), chunk in zip(children, chunks, strict=True):
        events = (
            [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
        )
        last_start = None
        for event in events:
            if event["kind"] == "start":
                last_start = event
            else:
                results[event["name"]].append(event)
                last_start = None
        if last_start is not None:  # killed, or died, in the middle of a call
            outcome = "hang" if process.returncode == -signal.SIGKILL else "crashed"
            results[last_start["name"]].append(
                {**last_start, "kind": "call", "outcome": outcome, "message": stderr[path][-300:]}
            )
        done = {event["name"] for event in events}
        for name in chunk:
            if name not in done:
                results[name].append(
                    {
                        "name": name,
                        "kind": "call",
                        "case": "never run",
                        "outcome": "not run",
                        "message": stderr[path][-600:],
                    }
                )
    shutil.rmtree(folder, ignore_errors=True)  # the results, and the files the calls wrote
    return results


NAMES = public_callables()


@pytest.fixture(scope="module")
def sweep() -> dict[str, list[dict]]:
    return run_sweep(NAMES)


def test_every_public_callable_is_in_the_table():
    import matplotlib

    matplotlib.use("Agg")
    with tempfile.TemporaryDirectory() as scratch:
        missing = sorted(set(NAMES) - set(cases(Path(scratch))))
    assert not missing, f"add base arguments and bad inputs for {missing} to cases()"


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[n]))
        if n in KNOWN_GAPS
        else n
        for n in NAMES
    ],
)
def test_bad_input_is_refused_by_name(sweep, name):
    events = sweep[name]
    assert events, f"{name}: no result"
    assert events[0].get("outcome") != "base failed", f"{name}: {events[0]['message']}"
    assert events[0]["kind"] != "missing", f"{name} has no entry in cases()"
    calls = [e for e in events if e["kind"] == "call"]
    assert len(calls) >= 3, f"{name}: only {len(calls)} bad inputs"
    failures = [
        f"{e['case']}: {e['outcome']}: {e.get('message', '')}"
        for e in calls
        if e["outcome"] != "clear"
    ]
    assert not failures, f"{name}:\n" + "\n".join(failures)


def main() -> None:
    """Print the sweep's numbers and every failure."""
    from collections import Counter

    started = time.perf_counter()
    results = run_sweep(NAMES)
    calls = [e for events in results.values() for e in events if e["kind"] == "call"]
    counts = Counter(e["outcome"] for e in calls)
    bases = Counter(
        e["outcome"] for events in results.values() for e in events if e["kind"] == "base"
    )
    for e in calls:
        if e["outcome"] != "clear":
            print(f"{e['name']}({e['case']}): {e['outcome']}: {e.get('message', '')[:300]}")
    for events in results.values():
        for e in events:
            if e["kind"] in ("base", "missing") and e.get("outcome") != "ok":
                print(f"{e['name']}: {e['kind']}: {e.get('outcome')}: {e.get('message', '')[:300]}")
    slowest = sorted(calls, key=lambda e: -e.get("seconds", 0))[:5]
    print(
        f"callables: {len(results)}; calls: {len(calls)}; outcomes: {dict(counts)}; "
        f"base calls: {dict(bases)}"
    )
    print("slowest:", [(e["name"], e["case"][:40], e.get("seconds")) for e in slowest])
    print(f"wall time: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        import matplotlib

        matplotlib.use("Agg")
        run_child(sys.argv[3:], sys.argv[2])
    else:
        main()
