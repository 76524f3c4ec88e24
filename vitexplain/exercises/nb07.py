"""Exercises of notebook 07: a learned position embedding, trained here."""

from __future__ import annotations

import numpy as np
import torch

from ..data import load_mountains
from ..learned_position import grid_similarity, neighbour_wins, train_where_am_i
from ..patches import scramble_patches
from ..position import embedding_similarity, sinusoid_encoding, sinusoid_encoding_2d
from ..scramble import make_scramble_dataset
from ..training import train_classifier
from ..vit import ViT
from ._rules import ChoiceSpec, Exercise, Rule, ValueSpec, close


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


# --- warm-ups: notebooks 02 and 03 -----------------------------------------------------------


def _as_close_as_patch_4() -> int:
    """Under a 1D table in raster order on the 3 x 5 grid, the patch other than 4 that is most
    similar to patch 5 (1-based)."""
    similarity = embedding_similarity(sinusoid_encoding(15, 400))[4].clone()  # (15,)
    similarity[[3, 4]] = -2.0  # leave out patch 4 and patch 5 itself
    return int(similarity.argmax()) + 1


def _no_position_tells_scrambled() -> bool:
    """Whether a ViT without position information gives the intact and a scrambled Mountain
    different outputs (it does not: attention is permutation-equivariant)."""
    torch.manual_seed(0)
    model = ViT((60, 100), 20, num_classes=1, embed_dim=32, depth=1, num_heads=2, pos_embed="none")
    order = torch.randperm(15, generator=torch.Generator().manual_seed(7)).numpy()
    image = load_mountains()
    pair = torch.tensor(np.stack([image, scramble_patches(image, 20, order)]))[:, None]
    with torch.no_grad():
        logits = model(pair.float())  # (2, 1)
    return not torch.allclose(logits[0], logits[1], atol=1e-5)


WARMUPS: list[Exercise] = [
    Exercise(
        id="07.w1",
        grade=ValueSpec(
            kind="int",
            answer=_as_close_as_patch_4(),
            expects="an int (a patch number, 1 to 15)",
            rules=(
                Rule(
                    "on the picture patch 10 lies below patch 5, but the 1D table counts only "
                    "raster positions",
                    equals=10,
                ),
            ),
            default="in raster order, which patch sits one position after patch 5?",
        ),
        solution=_as_close_as_patch_4,
        wrong=lambda: 10,
        why=(
            "Patch 6: in raster order it follows patch 5 (offset 1, like patch 4), although on "
            "the grid it starts the next row, four columns away."
        ),
    ),
    Exercise(
        id="07.w2",
        grade=ValueSpec(
            kind="bool",
            answer=False,  # by _no_position_tells_scrambled (a ViT's forward: not at import)
            expects="True or False",
            default="without position, scrambling the patches only reorders the tokens: what "
            "does the class token's output become?",
        ),
        solution=_no_position_tells_scrambled,
        wrong=lambda: True,
        why=(
            "False: without position, attention is permutation-equivariant and the class token "
            "averages over the patches, so scrambling leaves its output unchanged."
        ),
    ),
]


# --- predictions -----------------------------------------------------------------------------


def _small_vit(num_classes: int) -> ViT:
    """Notebook 07's small ViT with a learned table, seeded as the notebook seeds it."""
    torch.manual_seed(0)
    kwargs = dict(embed_dim=32, depth=1, num_heads=2, mlp_ratio=2.0, pos_embed="learned")
    return ViT((60, 100), patch_size=20, num_classes=num_classes, **kwargs)


def _scramble_history(epochs: int) -> list[float]:
    """Notebook 07, section 2: the learned table trained on the scramble task. The notebook
    trains 20 epochs at a constant learning rate, so fewer epochs give its first ones."""
    model = _small_vit(num_classes=1)
    train, test = make_scramble_dataset(512, seed=0), make_scramble_dataset(256, seed=1)
    run = train_classifier(
        model, train, test, epochs=epochs, batch_size=32, lr=1e-3, seed=0, log=None
    )
    return run["test_accuracy"]


def _after_6_epochs() -> str:
    """Test accuracy after 6 epochs with the learned table: "a" above 0.9 as with the sin-cos
    table, "b" near chance (below 0.65), "c" in between."""
    after_6 = _scramble_history(epochs=6)[5]
    return "a" if after_6 > 0.9 else "b" if after_6 < 0.65 else "c"


def _sincos_not_neighbours() -> tuple[int, ...]:
    """Patches (1-based) of the 3 x 5 grid whose most similar patch under the model's fixed 1D
    sin-cos table (16 x 32, the class token first) is not a grid neighbour."""
    similarity = grid_similarity(sinusoid_encoding(16, 32), (3, 5), num_prefix_tokens=1)
    wins = neighbour_wins(similarity)  # (3, 5) bool
    return tuple(int(i) + 1 for i in (~wins).flatten().nonzero()[:, 0])


def _where_table_is_a_grid() -> bool:
    """After 'where am I?' (notebook 07, section 3), is every patch's most similar patch a
    neighbour in the learned table?"""
    scrambled = make_scramble_dataset(512, seed=0)[0][256:]  # (256, 1, 60, 100)
    model = _small_vit(num_classes=3 + 5)
    train_where_am_i(model, scrambled, (3, 5), sigma=1.0, epochs=12, lr=3e-3)
    similarity = grid_similarity(model.pos_embed, (3, 5), num_prefix_tokens=1)
    return bool(neighbour_wins(similarity).all())


PREDICTIONS: list[Exercise] = [
    Exercise(
        id="07.p1",
        grade=ChoiceSpec(
            answer="b",
            options=(
                "above 0.9, as with the sin-cos table",
                "near chance, about 0.5",
                "between the two, about 0.75",
            ),
            rules=(
                Rule(
                    "the table starts as noise of std 0.02, a ninth of the patch tokens': too "
                    "small to tell the slots apart, so 6 epochs leave the model near chance.",
                    equals="a",
                ),
            ),
            default="a table of small noise gives the slots almost nothing to tell them apart.",
        ),
        solution=_after_6_epochs,
        wrong=lambda: "a",
        why=(
            "Many expect the learned table to do as well as the fixed one; but it starts as "
            "noise of std 0.02, too small to tell the slots apart: near chance after 6 epochs."
        ),
    ),
    Exercise(
        id="07.p2",
        grade=ValueSpec(
            kind="int_set",
            answer=_sincos_not_neighbours(),
            expects="a list of patch numbers (1 to 15), [] for none",
            grid=(3, 5),  # the site shows the patches to press
            rules=(
                Rule(
                    "the 1D table is smooth in raster order, not on the grid: the ends of rows "
                    "have their raster neighbour in another row.",
                    equals=(),
                ),
                Rule(
                    "the jump from row 2 to row 3 fails alike: patches 10 and 11 too.",
                    equals=(5, 6),
                ),
            ),
            default="look where the raster order jumps from one row to the next.",
        ),
        solution=_sincos_not_neighbours,
        wrong=lambda: [],
        why=(
            "A common guess is none, since a smooth table makes neighbours alike; but it is "
            "smooth in raster order: 5 and 6, 10 and 11 are offset 1 apart, rows apart."
        ),
    ),
    Exercise(
        id="07.p3",
        grade=ValueSpec(
            kind="bool",
            answer=True,  # by _where_table_is_a_grid (it trains for a few seconds)
            expects="True or False",
            rules=(
                Rule(
                    "on the scramble task the table stayed noise-like; here every token must "
                    "name its row and column, and similar answers make similar rows.",
                    equals=False,
                ),
            ),
            default="the task rewards similar position vectors for nearby patches.",
        ),
        solution=_where_table_is_a_grid,
        wrong=lambda: False,
        why=(
            "Many expect a table trained from noise to stay noise-like, as on the scramble task; "
            "but naming its own row and column makes neighbours' vectors alike: every patch."
        ),
    ),
]
