import re

import pytest
import torch
import torch.nn.functional as F
from reference import relative_logits_2d_loop, relative_to_absolute_loop

from vitexplain import (
    AbsPosEmb1D,
    RelPosEmb1D,
    RelPosEmb2D,
    attention_with_position,
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


def _gather(x):
    length = x.shape[-2]
    return x.gather(-1, relative_index(length).expand(*x.shape[:-1], length))


@pytest.mark.parametrize("shape", [(1, 1), (4, 7), (3, 5, 9), (2, 3, 6, 11), (2, 1, 3, 8, 15)])
def test_skew_equals_loop_gather_and_steps(shape):
    x = torch.randn(shape)
    out = relative_to_absolute(x)
    assert out.shape == (*shape[:-1], shape[-2])
    assert torch.equal(out, relative_to_absolute_loop(x))
    assert torch.equal(out, _gather(x))
    assert torch.equal(out, skew_steps(x)[-1][1])


def test_skew_of_a_contiguous_input_is_a_view():
    x = torch.randn(2, 3, 5, 9)
    out = relative_to_absolute(x)
    assert out.data_ptr() == x.data_ptr() + 4 * x.element_size()  # starts at offset L - 1
    assert out.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert out.stride() == (135, 45, 8, 1)  # rows 2L - 2 = 8 apart instead of 9
    x[0, 0, 1, 3] = 100.0  # query 1, offset -1: key 0
    assert out[0, 0, 1, 0] == 100.0


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.randn(3, 9, 5).transpose(-2, -1),  # (3, 5, 9), column-major
        lambda: torch.randn(4, 2, 5, 9).transpose(0, 1),  # permuted leading dims
        lambda: torch.randn(2, 6, 18)[:, 1:, ::2],  # (2, 5, 9), strided slice
        lambda: torch.randn(1, 2, 4, 7)[..., 1:, :5].expand(3, 2, 3, 5),  # stride 0
        lambda: torch.randn(10, 20)[3:7, 5:12],  # (4, 7) with a storage offset
    ],
)
def test_skew_of_non_contiguous_input(make):
    x = make()
    assert not x.is_contiguous() or x.storage_offset() > 0
    out = relative_to_absolute(x)
    assert torch.equal(out, relative_to_absolute_loop(x))
    assert torch.equal(out, _gather(x))
    assert torch.equal(out, skew_steps(x)[-1][1])


def test_skew_passes_gradients_like_the_gather():
    x = torch.randn(2, 6, 11, requires_grad=True)
    weights = torch.randn(2, 6, 6)
    (grad_skew,) = torch.autograd.grad((relative_to_absolute(x) * weights).sum(), x)
    (grad_gather,) = torch.autograd.grad((_gather(x) * weights).sum(), x)
    assert torch.equal(grad_skew, grad_gather)


@pytest.mark.parametrize("shape", [(4, 4), (4, 8), (3, 2, 6)])
def test_skew_rejects_wrong_last_axis(shape):
    message = (
        f"L = {shape[-2]} queries .* need 2L - 1 = {2 * shape[-2] - 1} offsets.* got {shape[-1]}"
    )
    with pytest.raises(ValueError, match=message):
        relative_to_absolute(torch.zeros(shape))
    with pytest.raises(ValueError, match=message):
        skew_steps(torch.zeros(shape))


def test_absolute_embedding_logits():
    emb = AbsPosEmb1D(6, 4)
    q = torch.randn(2, 6, 4)
    logits = emb(q)
    for i in range(6):
        for j in range(6):
            expected = q[:, i] @ emb.abs_pos_emb[j]  # a value near 0 needs an absolute atol
            assert torch.allclose(logits[:, i, j], expected, atol=1e-6)


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
    per_head = (heads,) if heads else ()  # one table per head, or one shared by all
    assert emb.emb_h.rel_pos_emb.shape == (*per_head, 2 * rows - 1, d)
    assert emb.emb_w.rel_pos_emb.shape == (*per_head, 2 * cols - 1, d)
    q = torch.randn(2, 2, rows * cols, d)
    expected = relative_logits_2d_loop(q, grid, emb.emb_h.rel_pos_emb, emb.emb_w.rel_pos_emb)
    assert torch.allclose(emb(q), expected, atol=1e-6)


def test_relative_logits_are_translation_equivariant():
    emb = RelPosEmb1D(8, 4)
    q = torch.randn(1, 4).expand(8, 4)  # the same query at every position
    logits = emb(q)
    for t in range(1, 4):
        assert torch.allclose(logits[: 8 - t, : 8 - t], logits[t:, t:], atol=1e-6)


@pytest.mark.parametrize("shift", [1, 2, 5])
def test_shifted_content_keeps_relative_logits_on_the_overlap(shift):
    length, d = 8, 4
    rel, ab = RelPosEmb1D(length, d), AbsPosEmb1D(length, d)
    q = torch.randn(length, d)
    moved = torch.cat([torch.randn(shift, d), q[: length - shift]])  # content moved right
    keep = length - shift
    assert torch.allclose(rel(moved)[shift:, shift:], rel(q)[:keep, :keep], atol=1e-6)
    assert not torch.allclose(ab(moved)[shift:, shift:], ab(q)[:keep, :keep], atol=1e-3)


def test_attention_with_position_matches_sdpa():
    q, k, v = torch.randn(3, 2, 4, 5, 8).unbind(0)  # (B, h, N, d) each
    bias = RelPosEmb1D(5, 8, heads=4)(q)  # (2, 4, 5, 5)
    out, weights = attention_with_position(q, k, v, bias)
    scale = 8**-0.5
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=bias * scale)
    assert torch.allclose(out, expected, atol=1e-5)
    assert torch.allclose(weights.sum(-1), torch.ones(2, 4, 5), atol=1e-6)
    manual = ((q @ k.transpose(-2, -1) + bias) * 0.5).softmax(-1)
    assert torch.allclose(attention_with_position(q, k, v, bias, scale=0.5)[1], manual, atol=1e-6)
    for lead in [(), (0, 0)]:  # (B, h, N, d) queries and one head's (N, d)
        with pytest.raises(ValueError, match=r"must end with \(N, N\) = \(5, 5\)"):
            attention_with_position(q[lead], k[lead], v[lead], bias[lead][..., :4])


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (4, 7), (2, 3, 5, 9)])
def test_skew_steps_shapes_and_result(shape):
    x = torch.randn(shape)
    *lead, length, _ = shape
    steps = skew_steps(x)
    # the names are the panel titles of notebook 04's figure: those the docstring lists
    documented = re.findall(r'``"(.+?)"``', skew_steps.__doc__)
    assert [name for name, _ in steps] == documented and len(documented) == 6
    expected_shapes = [
        (*lead, length, 2 * length - 1),
        (*lead, length, 2 * length),
        (*lead, 2 * length * length),
        ((*lead, (length + 1) * (2 * length - 1))),
        (*lead, length + 1, 2 * length - 1),
        (*lead, length, length),
    ]
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


def test_a_tensor_scale_is_a_number():
    q = torch.randn(4, 8)
    logits = torch.randn(4, 4)
    zero_d = attention_with_position(q, q, q, logits, scale=torch.tensor(0.25))
    assert torch.equal(zero_d[1], attention_with_position(q, q, q, logits, scale=0.25)[1])


def test_rel_pos_emb_2d_and_grid_offsets_name_a_query_or_index_off_the_grid():
    with pytest.raises(
        ValueError, match=r"for the 3 x 5 grid \(15 tokens\), got shape \(1, 1, 16, 4\)"
    ):
        RelPosEmb2D((3, 5), 4)(torch.zeros(1, 1, 16, 4))
    with pytest.raises(ValueError, match="index must be in 0 .. 14 for a 3 x 5 grid, got 15"):
        grid_offsets((3, 5), 15)


def test_one_int_is_a_square_grid():
    emb = RelPosEmb2D(3, 4)
    assert emb.grid_size == (3, 3) and emb.emb_w.rel_pos_emb.shape == (5, 4)
    for got, expected in zip(grid_offsets(3, 4), grid_offsets((3, 3), 4), strict=True):
        assert torch.equal(got, expected)


@pytest.mark.parametrize(
    "make", [lambda: AbsPosEmb1D(64, 16), lambda: RelPosEmb1D(40, 16, heads=4)], ids=["abs", "rel"]
)
def test_tables_start_as_normal_noise_of_std_one_over_root_d(make):
    """Every vector starts as N(0, 1 / d): a query of unit-variance entries then meets position
    logits of unit variance, whatever the head dimension d (here d = 16: std 0.25)."""
    (table,) = make().parameters()
    assert abs(table.std().item() - 16**-0.5) < 0.02 and abs(table.mean().item()) < 0.02
