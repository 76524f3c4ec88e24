import pytest
import torch

from vitexplain import AbsPosEmb1D, RelPosEmb1D, RelPosEmb2D, relative_index, relative_to_absolute


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
        assert not torch.allclose(emb(q.expand(2, 3, length, d).contiguous())[:, 0],
                                  emb(q[:, :1].expand(2, 3, length, d).contiguous())[:, 1])  # fmt: skip


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
