"""Every public callable refuses bad input clearly: a sweep over ``vx.__all__``, as plain pytest.

For each name of ``vitexplain.__all__`` that is callable with arguments (classes too), the table
in :func:`cases` gives valid base arguments and bad variants of them: wrong type, wrong shape or
dtype, out of range, NaN, huge. On top of the table's variants, every base argument that is an
int, a float, a bool, a tensor, an array or a module is also tried with a value of the wrong type
(a str for those, "no" for a bool) or NaN (for a float). Each bad call is one test: it must raise
a ``ValueError`` or ``TypeError`` whose message names the argument (``pytest.raises(match=...)``);
returning (silent), any other exception (unclear), a ``MemoryError`` or running past the time
limit (pytest-timeout: a hang) fails it. A row made with :func:`warns` expects a warning naming
the argument instead (a cost the user may choose, such as a huge epoch count). Calls run under a
memory limit (``RLIMIT_AS``). The base arguments themselves are called once per callable and must
work, so the table cannot go stale; a new public name without a table entry fails
``test_every_public_callable_is_in_the_table`` until it gets one. The terminal summary reports the
sweep's count (tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import inspect
import re
import resource
import shutil
import tempfile
import warnings
from pathlib import Path

import pytest

import vitexplain as vx

MEMORY_HEADROOM = 3 * 2**30  # bytes of address space a call may add to what the process has
CALL_SECONDS = 60  # one bad call (a refusal takes milliseconds; the machine may be busy)
BASE_SECONDS = 300  # one call with the base arguments (train_digits_vit trains an epoch)

# Callables that take no argument: nothing to get wrong.
NO_ARGUMENTS = {"load_mountains"}

# Known gaps in modules this sweep may not change yet: {callable: reason}. Their calls still run;
# their test is an expected failure (strict: it fails when the gap is closed, to be removed here).
KNOWN_GAPS: dict[str, str] = {}

# Figure functions check only what Matplotlib or NumPy would not report clearly (issue 36): their
# bad-input rows are not run here (tests/test_plotting_*.py test the refusals they keep); their
# base arguments must still work.
FIGURES = set(vx.plotting.__all__)


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


#: Marks the expected name of a row whose call must warn (naming it) rather than raise.
WARNS = "warns:"


def warns(**override: object) -> tuple[dict, str]:
    """A costly but legal value: the call must warn, naming the argument, before the work."""
    (name,) = override
    return override, WARNS + name


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
            # a huge image is fine: count_tokens only counts (round three)
            [bad(k=20), bad(s=0), bad(p=-1), bad(h=2.5), bad(w=-8)],
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
            [
                bad(recipe="best"),
                bad(epochs=0),
                bad(validation="yes"),
                bad(seed=-1),
                bad(recipe=["schedule"]),
            ],
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
            [
                bad(patch=np.zeros(3)),
                bad(highlight_row=5),
                bad(number=-1),
                bad(patch="x"),
                bad(ncols=3),
            ],
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
            [
                bad(labels=[0, 2]),
                bad(orders=[[0, 1, 2, 3]]),
                bad(ncols=0),
                bad(patch_size=3),
                bad(by_column="yes"),
            ],
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
            [
                bad(tokens=np.zeros(9)),
                bad(tokens="x"),
                bad(tokens=np.zeros((1, 2, 3))),
                bad(colorbar_location="left"),
            ],
        ),
        "show_tokenization": (
            {"image": picture, "patch_size": 4},
            [bad(patch_size=3), bad(max_labels=-1), bad(image=np.zeros((2, 8, 8)))],
        ),
        "softsplit_explore": (
            {"image": picture},
            [bad(image=np.zeros((2, 8, 8))), bad(image="x")],
        ),
        "tokenization_explore": (
            {"image": picture},
            [bad(image=np.zeros((2, 8, 8))), bad(image="x")],
        ),
        "show_tokens_plus_embedding": (
            {"tokens": np.zeros((4, 8)), "embedding": np.zeros((4, 8))},
            [
                bad(embedding=np.zeros((4, 9))),
                bad(tokens=np.zeros(8)),
                bad(column_px=0),
                bad(row_px=nan),
                bad(parts=0),
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
            [bad(a=4), bad(b=-1), bad(patch_size=3), bad(images=images[0]), bad(images=[1])],
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
            [
                bad(pos_embed="sin"),
                bad(epochs=0),
                bad(log="x"),
                bad(recipe=["schedule"]),  # a list: was "unhashable type", now names recipe
                bad(validation="yes"),
            ],
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


# --- the tests --------------------------------------------------------------------------------

NAMES = public_callables()
SCRATCH = Path(tempfile.mkdtemp(prefix="vx_sweep_"))  # the files the calls write


def _table() -> dict[str, tuple[dict, list[tuple[dict, str]]]]:
    import matplotlib

    matplotlib.use("Agg")
    return cases(SCRATCH)


TABLE = _table()


def _describe(override: dict) -> str:
    (key, value), *_ = override.items()
    shape = getattr(value, "shape", None)
    text = f"{type(value).__name__}{tuple(shape)}" if shape is not None else repr(value)
    return f"{key}={text[:40]}"


def _rows() -> list:
    rows = []
    for name in NAMES:
        if name not in TABLE or name in FIGURES:
            continue
        base, variants = TABLE[name]
        for i, (override, expected) in enumerate(variants + automatic_variants(base)):
            marks = [pytest.mark.timeout(CALL_SECONDS)]
            if name in KNOWN_GAPS:
                marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[name]))
            case_id = f"{name}-{i}-{_describe(override)}"
            rows.append(pytest.param(name, override, expected, id=case_id, marks=marks))
    return rows


@pytest.fixture(scope="module", autouse=True)
def _scratch_removed_at_the_end():
    yield
    shutil.rmtree(SCRATCH, ignore_errors=True)


@contextlib.contextmanager
def _memory_limit():
    """Cap the address space at what the process maps now plus MEMORY_HEADROOM, for one call."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * resource.getpagesize()
    limit = mapped + MEMORY_HEADROOM
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _call(function, kwargs: dict) -> object:
    result = function(**kwargs)
    if inspect.isgenerator(result):  # a generator must refuse at the call, not at next()
        return next(result)
    return result


def test_every_public_callable_is_in_the_table():
    missing = sorted(set(NAMES) - set(TABLE))
    assert not missing, f"add base arguments and bad inputs for {missing} to cases()"


@pytest.mark.parametrize("name", [n for n in NAMES if n in TABLE])
@pytest.mark.timeout(BASE_SECONDS)
def test_base_arguments_work_and_many_bad_inputs_are_tried(name, monkeypatch, capsys):
    monkeypatch.delenv("VITEXPLAIN_FIGURES_DIR", raising=False)
    base, variants = TABLE[name]
    assert len(variants + automatic_variants(base)) >= 3, f"{name}: fewer than 3 bad inputs"
    with _memory_limit(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _call(getattr(vx, name), dict(base))


@pytest.mark.parametrize(("name", "override", "expected"), _rows())
def test_bad_input_is_refused_by_name(name, override, expected, monkeypatch):
    monkeypatch.delenv("VITEXPLAIN_FIGURES_DIR", raising=False)
    base, _ = TABLE[name]
    function = getattr(vx, name)
    if expected.startswith(WARNS):  # a legal but costly value: said before the work starts
        expected = expected.removeprefix(WARNS)
        named = rf"(?<!\w){re.escape(expected)}(?!\w)"
        with _memory_limit(), warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)  # the warning stops the call
            with pytest.raises(UserWarning, match=named):
                _call(function, {**base, **override})
        return
    named = rf"(?<!\w){re.escape(expected)}(?!\w)"
    with _memory_limit(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError), match=named):
            _call(function, {**base, **override})


# --- round three: reproducers that are no variant of a table row -------------------------------


def round_three() -> list[tuple[str, object, str]]:
    """(id, call, argument its message must name): module forwards, mixed devices, values that
    were refused unclearly, passed silently or hung before (a ``warns:`` name: a warning)."""
    import numpy as np
    import torch
    from matplotlib.figure import Figure

    torch.manual_seed(0)
    q = torch.randn(1, 4, 8)  # (B, N, d)
    meta = torch.empty(1, 1, 8, 8, device="meta")
    vit = vx.ViT((8, 8), 2, num_classes=3, embed_dim=8, depth=1, num_heads=2)
    linear = torch.nn.Linear(4, 2)
    frame = np.zeros((4, 6, 3), dtype=np.uint8)
    inf, nan = float("inf"), float("nan")
    figure = Figure()
    figure.add_subplot().plot([0, 1])
    maps = vx.attention_maps(vit, torch.rand(2, 1, 8, 8))
    return [
        # unclear before: torch's own error, no argument named
        ("AbsPosEmb1D.forward float64", lambda: vx.AbsPosEmb1D(4, 8)(q[0].double()), "q"),
        ("RelPosEmb1D.forward float64", lambda: vx.RelPosEmb1D(4, 8)(q[0].double()), "q"),
        ("RelPosEmb2D.forward float64", lambda: vx.RelPosEmb2D(2, 8)(q[None].double()), "q"),
        (
            "articles_rel_pos_2d float64 q",
            lambda: vx.articles_rel_pos_2d(
                q[None].double(), 2, torch.randn(3, 8), torch.randn(3, 8)
            ),
            "table_h",
        ),
        ("attention bool", lambda: vx.attention(q.bool(), q.bool(), q.bool()), "q"),
        ("attention complex", lambda: vx.attention(q.cfloat(), q.cfloat(), q.cfloat()), "q"),
        ("attention uint8", lambda: vx.attention(q.byte(), q.byte(), q.byte()), "q"),
        ("Block.forward width", lambda: vx.Block(8, 2)(torch.randn(1, 4, 6)), "x"),
        ("Block.forward float64", lambda: vx.Block(8, 2)(q.double()), "x"),
        ("Mlp.forward width", lambda: vx.Mlp(8)(torch.randn(1, 4, 6)), "x"),
        ("Mlp.forward float64", lambda: vx.Mlp(8)(q.double()), "x"),
        ("TokenTransformer.forward width", lambda: vx.TokenTransformer(8, 4)(q[..., :6]), "x"),
        ("TokenTransformer.forward float64", lambda: vx.TokenTransformer(8, 4)(q.double()), "x"),
        ("PatchEmbed.forward meta", lambda: vx.PatchEmbed(8, 2, embed_dim=8)(meta), "x"),
        ("ViT.forward meta", lambda: vit(meta), "x"),
        (
            "attention_with_position meta q",
            lambda: vx.attention_with_position(
                q[None].to("meta"), q[None], q[None], torch.zeros(1, 1, 4, 4)
            ),
            "q",
        ),
        ("rank_correlation meta", lambda: vx.rank_correlation(meta[0, 0], meta[0, 0]), "a"),
        (
            "resize_pos_embed zero width",
            lambda: vx.resize_pos_embed(torch.randn(1, 4, 0), 2, 3),
            "pos_embed",
        ),
        (
            "fit batch_loss non-scalar",
            lambda: next(
                vx.fit(linear, 8, lambda i: torch.ones(3, requires_grad=True), 1, 4, 1e-3)
            ),
            "batch_loss",
        ),
        (
            "fit batch_loss float",
            lambda: next(vx.fit(linear, 8, lambda i: 1.0, 1, 4, 1e-3)),
            "batch_loss",
        ),
        (
            "evaluate empty",
            lambda: vx.evaluate(linear, torch.zeros(0, 4), torch.zeros(0).long()),
            "images",
        ),
        ("show_matrix 0 x 0", lambda: vx.show_matrix(np.zeros((0, 0))), "matrix"),
        ("show_attention_heads 1-D", lambda: vx.show_attention_heads(np.zeros(2)), "weights"),
        (
            "show_attention_heads empty",
            lambda: vx.show_attention_heads(np.zeros((0, 2, 2))),
            "weights",
        ),
        ("figure_to_png dpi 2.5", lambda: vx.figure_to_png(figure, dpi=2.5), "dpi"),
        ("show_image a Figure as ax", lambda: vx.show_image(np.zeros((3, 3)), ax=Figure()), "ax"),
        ("show_matrix a Figure as ax", lambda: vx.show_matrix(np.eye(2), ax=Figure()), "ax"),
        (
            "show_matrix tick labels of the wrong count",
            lambda: vx.show_matrix(np.eye(3), xticklabels=["a", "b"]),
            "xticklabels",
        ),
        (
            "show_attention_heads float ncols",
            lambda: vx.show_attention_heads(maps[0][0], ncols=1.5),
            "ncols",
        ),
        (
            "top_k_overlap batch sizes differ",
            lambda: vx.top_k_overlap(torch.rand(2, 5), torch.rand(3, 5)),
            "a",
        ),
        # silent before: a result without a word
        ("attention meta q, cpu k and v", lambda: vx.attention(q.to("meta"), q, q), "q"),
        ("attention over zero keys", lambda: vx.attention(q, q[:, :0], q[:, :0]), "k"),
        ("attention inf in q", lambda: vx.attention(torch.full_like(q, inf), q, q), "q"),
        (
            "attention_with_position all -inf",
            lambda: vx.attention_with_position(
                q[None], q[None], q[None], torch.full((1, 1, 4, 4), -inf)
            ),
            "position_logits",
        ),
        (
            "top_k_overlap NaN",
            lambda: vx.top_k_overlap(torch.full((2, 5), nan), torch.rand(2, 5)),
            "a",
        ),
        (
            "top_k_overlap bool",
            lambda: vx.top_k_overlap(torch.ones(2, 5).bool(), torch.rand(2, 5)),
            "a",
        ),
        ("toeplitz_error NaN", lambda: vx.toeplitz_error(torch.full((3, 3), nan)), "matrix"),
        (
            "grid_similarity bool",
            lambda: vx.grid_similarity(torch.ones(6, 4).bool(), (2, 3)),
            "table",
        ),
        (
            "patchify patch_size tensor(True)",
            lambda: vx.patchify(torch.rand(1, 1, 4, 4), torch.tensor(True)),
            "patch_size",
        ),
        (
            "train_digits_vit validation='yes'",
            lambda: vx.train_digits_vit(epochs=1, validation="yes"),
            "validation",
        ),
        (
            "attention_entropy zero heads",
            lambda: vx.attention_entropy([torch.rand(1, 0, 5, 5)]),
            "maps",
        ),
        (
            "trace_shapes names=[]",
            lambda: vx.trace_shapes(vit, torch.rand(1, 1, 8, 8), []),
            "names",
        ),
        ("save_gif fps=inf", lambda: vx.save_gif([frame], SCRATCH / "x.gif", fps=inf), "fps"),
        ("gif_bytes fps=1000", lambda: vx.gif_bytes([frame], fps=1000), "fps"),
        ("show_matrix NaN only", lambda: vx.show_matrix(np.full((3, 3), nan)), "matrix"),
        ("show_image NaN only", lambda: vx.show_image(np.full((3, 3), nan)), "image"),
        ("show_image inf", lambda: vx.show_image(np.full((3, 3), inf)), "image"),
        ("show_embedding inf", lambda: vx.show_embedding(np.full((3, 3), inf)), "table"),
        ("show_token_matrix empty", lambda: vx.show_token_matrix(np.zeros((0, 3))), "tokens"),
        ("show_matrix empty rows", lambda: vx.show_matrix(np.zeros((0, 3))), "matrix"),
        # hang or out of memory before: a size guard, or a warning with the cost
        (
            "patchify_by_slicing 16M patches",
            lambda: vx.patchify_by_slicing(torch.zeros(1, 1, 4000, 4000), 1),
            "patch_size",
        ),
        ("clock_frequencies dim=10**9", lambda: vx.clock_frequencies(10**9), "dim"),
        ("clock_periods dim=2*10**9", lambda: vx.clock_periods(2 * 10**9), "dim"),
        (
            "reference_attention (300, 300)",
            lambda: vx.reference_attention((300, 300), "uniform"),
            "grid_size",
        ),
        (
            "train_classifier epochs=10**6",
            lambda: vx.train_classifier(
                linear, (torch.rand(8, 4), torch.zeros(8).long()), epochs=10**6, log=None
            ),
            WARNS + "epochs",
        ),
        (
            "train_where_am_i epochs=10**6",
            lambda: vx.train_where_am_i(
                vx.ViT((8, 8), 4, num_classes=4, embed_dim=8, depth=1),
                torch.rand(4, 1, 8, 8),
                2,
                epochs=10**6,
            ),
            WARNS + "epochs",
        ),
        (
            "train_digits_vit epochs=10**6",
            lambda: vx.train_digits_vit(epochs=10**6),
            WARNS + "epochs",
        ),
    ]


def sensible() -> list[tuple[str, object]]:
    """(id, call): sensible inputs refused before round three; each must now work."""
    import numpy as np
    import torch

    grid, pair = np.array([2, 3]), torch.tensor([2, 3])
    vit = vx.ViT((4, 6), 2, num_classes=3, embed_dim=8, depth=1).eval()
    maps = vx.attention_maps(vit, torch.rand(1, 1, 4, 6))  # a 2 x 3 grid
    return [
        ("ViT img_size array", lambda: vx.ViT(np.array([8, 8]), 2, embed_dim=8, depth=1)),
        ("ViT img_size tensor", lambda: vx.ViT(torch.tensor([8, 8]), 2, embed_dim=8, depth=1)),
        (
            "T2TViT img_size array",
            lambda: vx.T2TViT(np.array([8, 8]), embed_dim=8, depth=1, token_dim=4),
        ),
        ("PatchEmbed img_size array", lambda: vx.PatchEmbed(np.array([8, 8]), 2, embed_dim=8)),
        (
            "unpatchify img_size array",
            lambda: vx.unpatchify(torch.rand(1, 16, 4), np.array([8, 8]), 2),
        ),
        ("sinusoid_encoding_2d grid array", lambda: vx.sinusoid_encoding_2d(grid, 8)),
        ("grid_offsets grid array", lambda: vx.grid_offsets(grid, 1)),
        ("RelPosEmb2D grid tensor", lambda: vx.RelPosEmb2D(pair, 4)),
        (
            "articles_rel_pos_2d grid array",
            lambda: vx.articles_rel_pos_2d(
                torch.randn(1, 1, 4, 8), np.array([2, 2]), torch.randn(3, 8), torch.randn(3, 8)
            ),
        ),
        (
            "resize_pos_embed grids array",
            lambda: vx.resize_pos_embed(torch.randn(1, 6, 4), grid, np.array([4, 6])),
        ),
        ("mean_attention_distance grid array", lambda: vx.mean_attention_distance(maps, grid, 2)),
        ("reference_attention grid array", lambda: vx.reference_attention(grid, "uniform")),
        ("position_targets grid array", lambda: vx.position_targets(grid)),
        ("grid_similarity grid array", lambda: vx.grid_similarity(torch.randn(6, 4), grid)),
        (
            "check_shape array shape",
            lambda: vx.check_shape("x", torch.zeros(2, 3), np.array([2, 3]), show=False),
        ),
        (
            "count_tokens 20000 x 20000 (only counts)",
            lambda: vx.count_tokens(20000, 20000, 16, 16, 0),
        ),
        (
            "rank_correlation empty batch",
            lambda: vx.rank_correlation(torch.zeros(0, 5), torch.zeros(0, 5)),
        ),
        ("occlusion_map empty batch", lambda: vx.occlusion_map(vit, torch.zeros(0, 1, 4, 6), 2)),
        ("mountain_at_dusk tensor height", lambda: vx.mountain_at_dusk(torch.tensor(60), 100)),
        ("Number NumPy integers", lambda: vx.Number(np.int64(2), np.int32(1), 4, "k")),
        (
            "gif_bytes a generator of frames",
            lambda: vx.gif_bytes(np.zeros((4, 6, 3), np.uint8) for _ in range(2)),
        ),
    ]


ROUND_THREE = round_three()
SENSIBLE = sensible()


@pytest.mark.parametrize(
    ("call", "expected"),
    [pytest.param(c, e, id=i) for i, c, e in ROUND_THREE if i.split()[0] not in FIGURES],
)
@pytest.mark.timeout(CALL_SECONDS)
def test_round_three_is_refused_by_name(call, expected, monkeypatch):
    monkeypatch.delenv("VITEXPLAIN_FIGURES_DIR", raising=False)
    warning = expected.startswith(WARNS)
    named = rf"(?<!\w){re.escape(expected.removeprefix(WARNS))}(?!\w)"
    with _memory_limit(), warnings.catch_warnings():
        warnings.simplefilter("error" if warning else "ignore", UserWarning)
        with pytest.raises(UserWarning if warning else (ValueError, TypeError), match=named):
            call()


@pytest.mark.parametrize("call", [pytest.param(c, id=i) for i, c in SENSIBLE])
@pytest.mark.timeout(CALL_SECONDS)
def test_round_three_sensible_input_is_accepted(call):
    with _memory_limit():
        call()
