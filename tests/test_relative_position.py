import pytest
import torch

from vitexplain import (
    AbsPosEmb1D,
    RelPosEmb1D,
    RelPosEmb2D,
    articles_rel_pos_2d,
    grid_offsets,
    relative_index,
    relative_to_absolute,
    skew_steps,
)


def test_relative_index_is_the_offset_shifted():
    index = relative_index(4)
    for i in range(4):
        for j in range(4):
            assert index[i, j] == j - i + 3
    assert index.dtype == torch.long and index.min() == 0 and index.max() == 6


@pytest.mark.parametrize("shape", [(1, 1), (4, 7), (3, 5, 9), (2, 3, 6, 11)])
def test_skew_equals_loop_and_gather(shape):
    x = torch.randn(shape)
    length = shape[-2]
    out = relative_to_absolute(x)
    expected = torch.empty(*shape[:-1], length)
    for i in range(length):
        for j in range(length):
            expected[..., i, j] = x[..., i, j - i + length - 1]
    assert torch.equal(out, expected)
    gathered = x.gather(-1, relative_index(length).expand(*shape[:-1], length))
    assert torch.equal(out, gathered)


@pytest.mark.parametrize("shape", [(4, 4), (4, 8), (3, 2, 6)])
def test_skew_rejects_wrong_last_axis(shape):
    with pytest.raises(ValueError, match=f"got {shape[-1]}"):
        relative_to_absolute(torch.zeros(shape))


def test_absolute_embedding_logits():
    emb = AbsPosEmb1D(6, 4)
    q = torch.randn(2, 6, 4)
    logits = emb(q)
    for i in range(6):
        for j in range(6):
            assert torch.allclose(logits[:, i, j], q[:, i] @ emb.abs_pos_emb[j])


@pytest.mark.parametrize("heads", [None, 3])
def test_rel_pos_emb_1d_matches_definition(heads):
    length, d = 5, 4
    emb = RelPosEmb1D(length, d, heads=heads)
    q = torch.randn(2, 3, length, d)
    logits = emb(q)
    assert logits.shape == (2, 3, length, length)
    for h in range(3):
        table = emb.rel_pos_emb if heads is None else emb.rel_pos_emb[h]
        for i in range(length):
            for j in range(length):
                expected = q[:, h, i] @ table[j - i + length - 1]
                assert torch.allclose(logits[:, h, i, j], expected, atol=1e-6)
    if heads:  # per-head tables really differ between heads
        assert emb.rel_pos_emb.shape == (3, 9, 4)
        same_query = q[:, :1].expand(2, 3, length, d).contiguous()  # one query for every head
        assert not torch.allclose(emb(same_query)[:, 0], emb(same_query)[:, 1])


@pytest.mark.parametrize("grid", [(3, 5), (5, 3), (4, 4), (1, 6)])
@pytest.mark.parametrize("heads", [None, 2])
def test_rel_pos_emb_2d_matches_definition(grid, heads):
    rows, cols = grid
    d = 4
    emb = RelPosEmb2D(grid, d, heads=heads)
    assert emb.emb_h.rel_pos_emb.shape[-2] == 2 * rows - 1
    assert emb.emb_w.rel_pos_emb.shape[-2] == 2 * cols - 1
    q = torch.randn(2, 2, rows * cols, d)
    logits = emb(q)
    for h in range(2):
        r_h = emb.emb_h.rel_pos_emb if heads is None else emb.emb_h.rel_pos_emb[h]
        r_w = emb.emb_w.rel_pos_emb if heads is None else emb.emb_w.rel_pos_emb[h]
        for a in range(rows * cols):
            for b in range(rows * cols):
                (ra, ca), (rb, cb) = divmod(a, cols), divmod(b, cols)
                expected = q[:, h, a] @ (r_h[rb - ra + rows - 1] + r_w[cb - ca + cols - 1])
                assert torch.allclose(logits[:, h, a, b], expected, atol=1e-6)


def test_relative_logits_are_translation_equivariant():
    emb = RelPosEmb1D(8, 4)
    q = torch.randn(1, 4).expand(8, 4)  # the same query at every position
    logits = emb(q)
    for t in range(1, 4):
        assert torch.allclose(logits[: 8 - t, : 8 - t], logits[t:, t:])


def test_relative_modules_reject_bad_input():
    with pytest.raises(ValueError, match="16 tokens, which do not match the 3 x 5 grid"):
        RelPosEmb2D((3, 5), 4)(torch.zeros(1, 1, 16, 4))
    with pytest.raises(ValueError, match="2 heads"):
        RelPosEmb1D(5, 4, heads=3)(torch.zeros(1, 2, 5, 4))
    with pytest.raises(ValueError, match=r"\(5, 4\)"):
        RelPosEmb1D(5, 4)(torch.zeros(1, 6, 4))
    with pytest.raises(ValueError, match="-2"):
        RelPosEmb1D(-2, 4)
    with pytest.raises(ValueError, match="-1"):
        relative_index(-1)


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (4, 7), (2, 3, 5, 9)])
def test_skew_steps_shapes_and_result(shape):
    x = torch.randn(shape)
    *lead, length, _ = shape
    steps = skew_steps(x)
    names = [name for name, _ in steps]
    assert len(names) == 6 and names[0].startswith("relative") and names[-1].startswith("slice")
    expected_shapes = [
        (*lead, length, 2 * length - 1), (*lead, length, 2 * length), (*lead, 2 * length * length),
        ((*lead, (length + 1) * (2 * length - 1))), (*lead, length + 1, 2 * length - 1),
        (*lead, length, length),
    ]  # fmt: skip
    assert [tuple(t.shape) for _, t in steps] == expected_shapes
    padded, flat, flat_padded = steps[1][1], steps[2][1], steps[3][1]
    assert torch.equal(padded[..., :-1], x) and not padded[..., -1].any()  # a zero column
    assert torch.equal(flat, padded.reshape(*lead, -1))
    assert torch.equal(flat_padded[..., : flat.shape[-1]], flat)
    assert not flat_padded[..., flat.shape[-1] :].any()  # L - 1 zeros
    assert torch.equal(steps[4][1].reshape(*lead, -1), flat_padded)
    # the last step is the skew, which is the definition
    out = steps[-1][1]
    assert torch.equal(out, relative_to_absolute(x))
    for i in range(length):
        for j in range(length):
            assert torch.equal(out[..., i, j], x[..., i, j - i + length - 1])


def test_skew_steps_on_integer_codes():
    codes = torch.arange(1, 16).reshape(3, 5)  # row i, offset index m -> 5 i + m + 1
    out = skew_steps(codes)[-1][1]
    assert out.dtype == codes.dtype
    assert out.tolist() == [[3, 4, 5], [7, 8, 9], [11, 12, 13]]
    with pytest.raises(ValueError, match="got 4"):
        skew_steps(torch.zeros(3, 4))
    with pytest.raises(TypeError, match="list"):
        skew_steps([[1, 2, 3]])


@pytest.mark.parametrize("grid, index", [((3, 5), 11), ((3, 5), 0), ((4, 4), 6), ((1, 6), 2)])
def test_grid_offsets_match_the_grid(grid, index):
    rows, cols = grid
    row_offsets, col_offsets = grid_offsets(grid, index)
    assert row_offsets.shape == col_offsets.shape == grid
    row_a, col_a = index // cols, index % cols
    for b in range(rows * cols):
        row_b, col_b = b // cols, b % cols
        assert row_offsets[row_b, col_b] == row_b - row_a
        assert col_offsets[row_b, col_b] == col_b - col_a
    with pytest.raises(ValueError, match=str(rows * cols)):
        grid_offsets(grid, rows * cols)


def _articles_by_loop(q, n, table_h, table_w):
    """The erratum as a formula: the column term reads the row table, the row term reads the
    transposed token's query at a column offset."""
    out = torch.empty(*q.shape[:2], n * n, n * n)
    for a in range(n * n):
        for b in range(n * n):
            (row_a, col_a), (_, col_b) = divmod(a, n), divmod(b, n)
            transposed = col_a * n + row_a
            out[:, :, a, b] = (q[:, :, a] @ table_h[col_b - col_a + n - 1]
                               + q[:, :, transposed] @ table_w[col_b - col_a + n - 1])  # fmt: skip
    return out


@pytest.mark.parametrize("n", [2, 3, 4])
def test_articles_version_mixes_tokens_on_square_grids(n):
    emb = RelPosEmb2D(n, 4)
    table_h, table_w = emb.emb_h.rel_pos_emb.detach(), emb.emb_w.rel_pos_emb.detach()
    q = torch.randn(2, 3, n * n, 4)
    theirs = articles_rel_pos_2d(q, n, table_h, table_w)
    assert theirs.shape == (2, 3, n * n, n * n)
    assert torch.allclose(theirs, _articles_by_loop(q, n, table_h, table_w), atol=1e-5)
    assert not torch.allclose(theirs, emb(q).detach(), atol=1e-3)  # not the definition
    # the key's row never enters: keys in the same column get the same logit
    by_column = theirs.reshape(2, 3, n * n, n, n)  # (..., key row, key column)
    assert torch.equal(by_column, by_column[..., :1, :].expand_as(by_column))


@pytest.mark.parametrize("grid", [(3, 5), (5, 3), (2, 4)])
def test_articles_version_fails_on_non_square_grids(grid):
    rows, cols = grid
    emb = RelPosEmb2D(grid, 4)
    q = torch.randn(1, 1, rows * cols, 4)
    with pytest.raises(ValueError, match=f"2L - 1 = {2 * cols - 1} offsets for L = {cols}"):
        articles_rel_pos_2d(q, grid, emb.emb_h.rel_pos_emb, emb.emb_w.rel_pos_emb)
    assert emb(q).shape == (1, 1, rows * cols, rows * cols)  # the fixed module runs


def test_articles_version_checks_its_input():
    table = torch.zeros(5, 4)
    with pytest.raises(ValueError, match="16 tokens"):
        articles_rel_pos_2d(torch.zeros(1, 1, 16, 4), 3, table, table)
    with pytest.raises(ValueError, match=r"table_w must have shape \(5, 4\), got \(7, 4\)"):
        articles_rel_pos_2d(torch.zeros(1, 1, 9, 4), 3, table, torch.zeros(7, 4))
