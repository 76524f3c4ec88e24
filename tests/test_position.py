import math
import re

import numpy as np
import pytest
import torch
from PIL import Image
from reference import sinusoid_encoding_loop

from vitexplain import (
    clock_frequencies,
    clock_pairs,
    clock_periods,
    embedding_similarity,
    relative_rotation,
    resize_pos_embed,
    sinusoid_encoding,
    sinusoid_encoding_2d,
    toeplitz_error,
)


@pytest.mark.parametrize(
    "n, d, base", [(176, 768, 1e4), (15, 400, 1e4), (20, 7, 1e2), (50, 16, 1e8)]
)
def test_sinusoid_encoding_matches_the_formula(n, d, base):
    table = sinusoid_encoding(n, d, base)
    assert table.dtype == torch.float32 and table.shape == (n, d)
    assert torch.allclose(table.double(), sinusoid_encoding_loop(n, d, base), atol=1e-7)


def test_sinusoid_encoding_spans_minus_one_to_one():
    table = sinusoid_encoding(176, 768)
    assert table.min() < -0.99 and table.max() == 1.0


def test_clock_periods():
    periods = clock_periods(18)
    assert periods.shape == (9,)
    assert periods[0] == pytest.approx(2 * np.pi)
    # the slowest clock of an 18-dimensional embedding turns once in about 22,500 tokens
    assert 22_500 <= periods[-1] < 22_600
    # after one period, each column of the table is back where it started (checked in float64)
    for i, period in enumerate(clock_periods(8)):
        angle = period / 10000.0 ** (2 * i / 8)
        assert math.sin(angle) == pytest.approx(0, abs=1e-9)
        assert math.cos(angle) == pytest.approx(1)
    assert clock_periods(7).shape == (4,)


@pytest.mark.parametrize("k", [1, 5, -3, 40])
def test_shift_is_a_rotation(k):
    torch.set_default_dtype(torch.float64)
    try:
        table = sinusoid_encoding(100, 16)
        rotation = relative_rotation(k, 16)
        lo, hi = max(0, -k), min(100, 100 - k)
        assert torch.allclose(table[lo + k : hi + k], table[lo:hi] @ rotation.T, atol=1e-10)
        assert torch.allclose(rotation @ rotation.T, torch.eye(16), atol=1e-12)
    finally:
        torch.set_default_dtype(torch.float32)
    assert relative_rotation(k, 16).dtype == torch.float32  # the default dtype, as the table


def test_similarity_depends_only_on_the_offset():
    table = sinusoid_encoding(60, 32).double()
    sim = table @ table.T
    for k in range(-10, 11):
        diagonal = torch.diagonal(sim, offset=k)
        assert torch.allclose(diagonal, diagonal[0].expand_as(diagonal), atol=1e-5)


def test_2d_encoding_is_the_row_and_column_tables_side_by_side_by_loops():
    for grid, (rows, cols) in [((3, 5), (3, 5)), (4, (4, 4))]:  # one int: a square grid
        table = sinusoid_encoding_2d(grid, 12, base=100.0)
        row_pe = sinusoid_encoding_loop(rows, 6, 100.0)  # (H, D/2)
        col_pe = sinusoid_encoding_loop(cols, 6, 100.0)  # (W, D/2)
        for n in range(rows * cols):
            expected = torch.cat([row_pe[n // cols], col_pe[n % cols]])
            assert torch.allclose(table[n].double(), expected, atol=1e-7)


def test_2d_encoding_separates_rows_and_columns():
    table = sinusoid_encoding_2d((3, 5), 16)
    rows, cols = sinusoid_encoding(3, 8), sinusoid_encoding(5, 8)
    for n in range(15):
        r, c = divmod(n, 5)
        assert torch.equal(table[n], torch.cat([rows[r], cols[c]]))
    # Patches 5 and 6 (1-based) are raster neighbours but sit at opposite ends of two rows.
    raster = sinusoid_encoding(15, 16)
    d1 = torch.linalg.norm(raster[4] - raster[5])
    d2 = torch.linalg.norm(table[4] - table[5])
    assert d2 > 2 * d1


def test_resize_pos_embed():
    table = sinusoid_encoding_2d((3, 5), 8)  # D = 8 is not N = 16: axes cannot be mixed up
    with_cls = torch.cat([torch.ones(1, 8), table])[None]
    same = resize_pos_embed(with_cls, (3, 5), (3, 5), num_prefix_tokens=1)
    assert torch.allclose(same, with_cls, atol=1e-6)
    bigger = resize_pos_embed(with_cls, (3, 5), (6, 10), num_prefix_tokens=1)
    assert bigger.shape == (1, 61, 8) and torch.equal(bigger[0, 0], torch.ones(8))
    square = resize_pos_embed(sinusoid_encoding_2d(3, 8), 3, 4)  # one int: a square grid
    assert torch.equal(square, resize_pos_embed(sinusoid_encoding_2d(3, 8), (3, 3), (4, 4)))
    assert square.shape == (16, 8)  # no leading 1 in, none out
    # A table constant along rows stays constant along rows after resizing.
    flat = resize_pos_embed(torch.arange(3.0).repeat_interleave(5)[:, None], (3, 5), (3, 9))
    assert torch.allclose(flat.view(3, 9), torch.arange(3.0)[:, None].expand(3, 9), atol=1e-6)
    message = "pos_embed holds 16 tokens, expected num_prefix_tokens=0 + old_grid 3 x 5 = 15"
    for held in (with_cls, with_cls[0]):
        with pytest.raises(ValueError, match=re.escape(message)):
            resize_pos_embed(held, (3, 5), (6, 10))


def _resize_with_pil(grid: torch.Tensor, size: tuple[int, int]) -> torch.Tensor:
    """Each channel of an (H, W, D) grid resized on its own by PIL's bicubic filter."""
    channels = [
        np.asarray(Image.fromarray(grid[:, :, c].numpy(), mode="F").resize(size[::-1], 3))
        for c in range(grid.shape[2])
    ]  # Image.BICUBIC == 3: PIL widens the kernel when it shrinks, as timm's antialias does
    return torch.tensor(np.stack(channels, axis=-1))  # (H', W', D)


@pytest.mark.parametrize("new_grid", [(6, 10), (2, 3), (1, 2), (3, 9), (5, 2)])
def test_resize_pos_embed_antialiased_is_pils_bicubic(new_grid):
    grid = torch.randn(3, 5, 4)  # (H, W, D)
    resized = resize_pos_embed(grid.reshape(15, 4), (3, 5), new_grid)  # (H'W', D)
    reference = _resize_with_pil(grid, new_grid)
    assert torch.allclose(resized.view(*new_grid, 4), reference, atol=1e-5)


def test_resize_pos_embed_antialias_filters_when_shrinking():
    # A column pattern +1, -1, +1, ... (the fastest possible) shrunk from 8 to 3 columns: plain
    # bicubic sampling picks (nearly) single columns and keeps large values, the antialiased
    # resize averages neighbours and keeps little of a pattern the small grid cannot hold.
    stripes = torch.tensor([1.0, -1.0]).repeat(4).expand(4, 8).reshape(32, 1)  # (H*W, 1)
    plain = resize_pos_embed(stripes, (4, 8), (4, 3), antialias=False)
    filtered = resize_pos_embed(stripes, (4, 8), (4, 3))
    assert plain.abs().max() > 0.5 and filtered.abs().max() < 0.2
    # Growing the grid, both keep a constant embedding constant.
    ones = torch.ones(15, 3)
    for antialias in (True, False):
        grown = resize_pos_embed(ones, (3, 5), (7, 11), antialias=antialias)
        assert torch.allclose(grown, torch.ones(77, 3), atol=1e-6)


def test_base_may_be_a_numpy_number():
    assert torch.equal(sinusoid_encoding(5, 8, base=np.float64(100)), sinusoid_encoding(5, 8, 100))


def test_clock_frequencies_are_the_columns_angular_speeds():
    for dim, base in [(18, 1e4), (128, 1e2), (7, 1e8)]:
        omega = clock_frequencies(dim, base)
        assert np.array_equal(clock_frequencies(dim), clock_frequencies(dim, 1e4))  # the default
        assert omega[0] == 1.0 and np.all(np.diff(omega) < 0)
        assert np.allclose(clock_periods(dim, base), 2 * np.pi / omega)
        # one position step turns pair i by omega_i: compare with the table, column by column
        table = sinusoid_encoding(2, dim, base).double()
        for i, w in enumerate(omega):
            assert table[1, 2 * i].item() == pytest.approx(math.sin(w), abs=1e-7)


def test_clock_pairs_spread_from_fast_to_slow():
    assert clock_pairs(18).tolist() == list(range(9))
    assert clock_pairs(8).tolist() == [0, 1, 2, 3]
    pairs = clock_pairs(768)
    assert len(pairs) == 9 and pairs[0] == 0 and pairs[-1] == 383
    assert np.all(np.diff(pairs) > 0) and np.ptp(np.diff(pairs)) <= 1  # evenly spaced
    assert clock_pairs(3).tolist() == [0]
    assert pairs.dtype.kind == "i"  # indices, to pick columns with


def test_embedding_similarity_is_the_cosine_by_loops():
    table = torch.randn(6, 5)
    sim = embedding_similarity(table)
    assert sim.dtype == torch.float32  # computed in float64, returned in the table's dtype
    for a in range(6):
        for b in range(6):
            ref = torch.nn.functional.cosine_similarity(table[a], table[b], dim=0)
            assert sim[a, b].item() == pytest.approx(ref.item(), abs=1e-6)
    pe = sinusoid_encoding(30, 64).double()
    assert torch.allclose(embedding_similarity(pe), pe @ pe.T / 32, atol=1e-12)


def test_toeplitz_error_finds_the_worst_diagonal_entry():
    offsets = torch.arange(5)[None, :] - torch.arange(5)[:, None]  # (5, 5): b - a
    toeplitz = torch.cos(offsets.double())
    assert toeplitz_error(toeplitz) == 0.0
    spoiled = toeplitz.clone()
    spoiled[3, 1] += 0.25  # diagonal -2 no longer constant
    assert toeplitz_error(spoiled) == pytest.approx(0.25)
    spoiled[0, 0] -= 0.5  # the first entry of the main diagonal: every other entry differs
    assert toeplitz_error(spoiled) == pytest.approx(0.5)


def test_numpy_float_offsets_are_accepted_and_equal_python_floats():
    from vitexplain import relative_rotation

    assert torch.equal(relative_rotation(np.float32(0.5), 8), relative_rotation(0.5, 8))
    assert torch.equal(relative_rotation(np.int64(3), 8), relative_rotation(3, 8))


def test_a_zero_dimensional_tensor_is_a_base():
    expected = sinusoid_encoding(6, 8, base=100.0)
    assert torch.equal(sinusoid_encoding(6, 8, base=torch.tensor(100.0)), expected)
    assert torch.equal(sinusoid_encoding(6, 8, base=torch.tensor(100)), expected)
    assert np.array_equal(clock_periods(8, np.array(100.0)), clock_periods(8, 100.0))


def test_an_odd_dim_cannot_be_split_into_pairs():
    from vitexplain import relative_rotation

    with pytest.raises(ValueError, match="dim must be even for the rotation identity, got 7"):
        relative_rotation(1.0, 7)
    with pytest.raises(ValueError, match="dim must be even to split between rows and columns"):
        sinusoid_encoding_2d((3, 5), 7)
