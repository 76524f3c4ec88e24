"""Exercises of notebook 07: a learned position embedding, trained here."""

from __future__ import annotations

import torch

from ..learned_position import grid_similarity, neighbour_wins
from ..position import sinusoid_encoding, sinusoid_encoding_2d
from ..vit import ViT
from . import Exercise, as_int, close, short


def _exact_int(answer: object, what: str) -> str | None:
    """None if ``answer`` is a whole number (not a bool), else a hint about the type."""
    if as_int(answer) is None:
        return f"expected an int ({what}), got {short(answer)}"
    return None


def _learned_extra_384() -> int:
    """Trainable numbers a learned table adds to ViT-B/16 at 384 x 384: built on `meta`."""
    counts = {}
    for kind in ("sincos", "learned"):
        with torch.device("meta"):
            model = ViT(384, 16, in_chans=3, embed_dim=768, depth=1, pos_embed=kind)
        counts[kind] = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return counts["learned"] - counts["sincos"]


def _grade_extra(answer: object) -> str | None:
    hint = _exact_int(answer, "a number of parameters")
    if hint is not None:
        return hint
    answer = as_int(answer)
    if answer == _learned_extra_384():
        return None
    if answer == 24 * 24 * 768:
        return "close: the class token has a row of the table too"
    if answer == 197 * 768:
        return "that is the 224 x 224 table; count the patches of a 384 x 384 image"
    return "one row of D numbers per token; how many tokens does a 384 x 384 image make?"


def _wins_1d_4x4() -> int:
    sim = grid_similarity(sinusoid_encoding(16, 32), (4, 4))  # (4, 4, 4, 4)
    return int(neighbour_wins(sim).sum())


def _grade_wins_1d(answer: object) -> str | None:
    hint = _exact_int(answer, "a number of patches")
    if hint is not None:
        return hint
    answer = as_int(answer)
    if answer == _wins_1d_4x4():
        return None
    if not 0 <= answer <= 16:
        return "there are only 16 patches"
    return (
        "in raster order, which patches have a non-neighbour at offset 1? Their best neighbour "
        "only ties with it, and a tie is not a win"
    )


def _all_win_2d() -> bool:
    sim = grid_similarity(sinusoid_encoding_2d((3, 5), 32), (3, 5))  # (3, 5, 3, 5)
    return bool(neighbour_wins(sim).all())


def _grade_all_win_2d(answer: object) -> str | None:
    if not isinstance(answer, bool):
        return f"expected True or False, got {short(answer)}"
    if answer == _all_win_2d():
        return None
    return (
        "write the similarity of the 2D table as the mean of a row term and a column term, and "
        "compare a neighbour (one term at offset 0) with a diagonal patch (both terms at offset 1)"
    )


def _reference_grid_similarity(table: torch.Tensor, grid_size: tuple[int, int]) -> torch.Tensor:
    """Solution of 07.4: normalise the rows, take all dot products, lay them out on the grid."""
    unit = table.double() / table.double().norm(dim=1, keepdim=True)  # (N, D)
    rows, cols = grid_size
    return (unit @ unit.T).reshape(rows, cols, rows, cols)


def _grade_grid_similarity(function: object) -> str | None:
    if not callable(function):
        return f"expected a function my_grid_similarity(table, grid_size), got {short(function)}"
    generator = torch.Generator().manual_seed(7)
    for rows, cols, dim in ((3, 5, 32), (2, 2, 3), (4, 3, 10)):
        table = torch.randn(rows * cols, dim, generator=generator) * 3  # rows of unequal length
        result = function(table, (rows, cols))  # a tensor (an array is converted)
        if tuple(result.shape) != (rows, cols, rows, cols):
            return (
                f"for a {rows} x {cols} grid the result should have shape "
                f"({rows}, {cols}, {rows}, {cols}), got {tuple(result.shape)}"
            )
        expected = grid_similarity(table, (rows, cols))
        if not close(result, expected):
            return (
                "the shape is right but some values are not: a cosine similarity divides each dot "
                "product by the lengths of both vectors, and patch (r, c) is row r * cols + c"
            )
    return None


def _wrong_grid_similarity(table: torch.Tensor, grid_size: tuple[int, int]) -> torch.Tensor:
    rows, cols = grid_size
    return (table @ table.T).reshape(rows, cols, rows, cols)  # dot products, not normalised


EXERCISES: list[Exercise] = [
    Exercise(
        id="07.1",
        task=(
            "Predict before computing: ViT-B/16 (D = 768, patches of 16 x 16) fine-tuned at "
            '384 x 384 pixels, with `pos_embed="learned"`. How many trainable numbers does its '
            "position table hold? (Check with `vx.count_parameters` on the `meta` device.)"
        ),
        grade=_grade_extra,
        solution=_learned_extra_384,
        wrong=lambda: 197 * 768,
    ),
    Exercise(
        id="07.2",
        task=(
            "Predict, then check with `vx.neighbour_wins`: the fixed 1D sin-cos table "
            "`vx.sinusoid_encoding(16, 32)` on a 4 x 4 grid (no class token). For how many of the "
            "16 patches is the most similar other patch a row or column neighbour?"
        ),
        grade=_grade_wins_1d,
        solution=_wins_1d_4x4,
        wrong=lambda: 16,
    ),
    Exercise(
        id="07.3",
        task=(
            "Change the table and explain: with the 2D sin-cos table "
            "`vx.sinusoid_encoding_2d((3, 5), 32)` (half the numbers for the row, half for the "
            "column), does every patch of the 3 x 5 grid pass the neighbour test? Answer True "
            "or False."
        ),
        grade=_grade_all_win_2d,
        solution=_all_win_2d,
        wrong=lambda: not _all_win_2d(),
    ),
    Exercise(
        id="07.4",
        task=(
            "Write `my_grid_similarity(table, grid_size)`: for a table of shape (N, D) and a grid "
            "(rows, cols) with rows * cols = N, return the (rows, cols, rows, cols) tensor of "
            "cosine similarities, entry [r, c, r2, c2] for patches (r, c) and (r2, c2) "
            "(row-major), without calling `vx.grid_similarity`."
        ),
        grade=_grade_grid_similarity,
        solution=lambda: _reference_grid_similarity,
        wrong=lambda: _wrong_grid_similarity,
        returns=torch.Tensor,
        forbids=("vitexplain.learned_position.grid_similarity",),
    ),
]
