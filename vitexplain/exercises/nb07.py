"""Exercises of notebook 07: a learned position embedding, trained here."""

from __future__ import annotations

import torch

from ..learned_position import grid_similarity, neighbour_wins
from ..position import sinusoid_encoding, sinusoid_encoding_2d
from ..vit import ViT
from ._rules import Exercise, Rule, ValueSpec, close


def _learned_extra_384() -> int:
    """Trainable numbers a learned table adds to ViT-B/16 at 384 x 384: built on `meta`."""
    counts = {}
    for kind in ("sincos", "learned"):
        with torch.device("meta"):
            model = ViT(384, 16, in_chans=3, embed_dim=768, depth=1, pos_embed=kind)
        counts[kind] = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return counts["learned"] - counts["sincos"]


_EXTRA = ValueSpec(
    kind="int",
    answer=((384 // 16) ** 2 + 1) * 768,  # one row of D numbers per token, class token included
    expects="an int (a number of parameters)",
    rules=(
        Rule("close: the class token has a row of the table too", equals=24 * 24 * 768),
        Rule(
            "that is the 224 x 224 table; count the patches of a 384 x 384 image",
            equals=197 * 768,
        ),
    ),
    default="one row of D numbers per token; how many tokens does a 384 x 384 image make?",
)


def _wins_1d_4x4() -> int:
    sim = grid_similarity(sinusoid_encoding(16, 32), (4, 4))  # (4, 4, 4, 4)
    return int(neighbour_wins(sim).sum())


_WINS_1D = ValueSpec(
    kind="int",
    answer=10,
    expects="an int (a number of patches)",
    rules=(Rule("there are only 16 patches", low=0, high=16, outside=True),),
    default=(
        "in raster order, which patches have a non-neighbour at offset 1? Their best neighbour "
        "only ties with it, and a tie is not a win"
    ),
)


def _all_win_2d() -> bool:
    sim = grid_similarity(sinusoid_encoding_2d((3, 5), 32), (3, 5))  # (3, 5, 3, 5)
    return bool(neighbour_wins(sim).all())


_ALL_WIN_2D = ValueSpec(
    kind="bool",
    answer=True,
    expects="True or False",
    default=(
        "write the similarity of the 2D table as the mean of a row term and a column term, and "
        "compare a neighbour (one term at offset 0) with a diagonal patch (both terms at offset 1)"
    ),
)


def _solution_grid_similarity():
    def my_grid_similarity(table, grid_size):
        """(N, D) table, (rows, cols) grid -> (rows, cols, rows, cols) cosine similarities."""
        unit = table.double() / table.double().norm(dim=1, keepdim=True)  # (N, D): unit rows
        rows, cols = grid_size
        return (unit @ unit.T).reshape(rows, cols, rows, cols)  # patch (r, c) is row r*cols+c

    return my_grid_similarity


def _grade_grid_similarity(function) -> str | None:
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
        grade=_EXTRA,
        solution=_learned_extra_384,
        wrong=lambda: 197 * 768,
        why=(
            "384 / 16 = 24 patches per side make 576 tokens, plus the class token: 577 rows of "
            "D = 768 numbers, 443,136 trainable numbers (the sin-cos table trains none)."
        ),
    ),
    Exercise(
        id="07.2",
        grade=_WINS_1D,
        solution=_wins_1d_4x4,
        wrong=lambda: 16,
        why=(
            "In raster order the last patch of a row and the first of the next are 1 apart in "
            "the 1D table but not neighbours on the grid; a patch at a row's end ties with it "
            "and a tie is no win: 10 of the 16 patches win."
        ),
    ),
    Exercise(
        id="07.3",
        grade=_ALL_WIN_2D,
        solution=_all_win_2d,
        wrong=lambda: False,
        why=(
            "The 2D table's similarity is the mean of a row term and a column term; a grid "
            "neighbour has one of them at offset 0 (the largest value), a diagonal patch has "
            "both at offset 1, so the neighbour always wins."
        ),
    ),
    Exercise(
        id="07.4",
        grade=_grade_grid_similarity,
        solution=_solution_grid_similarity,
        wrong=lambda: _wrong_grid_similarity,
        why=(
            "Divide each row by its length, take all dot products at once (N, N), and lay the "
            "two token axes out as (rows, cols): row-major, as the tokens are numbered."
        ),
        asks="my_grid_similarity(table, grid_size)",
        returns=torch.Tensor,
        forbids=(
            "vitexplain.learned_position.grid_similarity",
            "vitexplain.position.embedding_similarity",
        ),
    ),
]
