import re

import pytest
import torch
import torch.nn.functional as F

from vitexplain import Attention, attention


def _attention_by_loops(q, k, v, scale):
    """The definition, one query and one key at a time."""
    n, m = q.shape[0], k.shape[0]
    out = torch.zeros(n, v.shape[1], dtype=q.dtype)
    for i in range(n):
        logits = torch.tensor([float(q[i] @ k[j]) * scale for j in range(m)], dtype=q.dtype)
        weights = torch.exp(logits - logits.max())
        weights = weights / weights.sum()
        for j in range(m):
            out[i] += weights[j] * v[j]
    return out


def test_attention_matches_loops_and_sdpa():
    f64 = torch.float64
    q, k, v = (
        torch.randn(5, 8, dtype=f64),
        torch.randn(7, 8, dtype=f64),
        torch.randn(7, 3, dtype=f64),
    )
    out, weights = attention(q, k, v)
    assert torch.allclose(out, _attention_by_loops(q, k, v, 8**-0.5), atol=1e-12)
    assert torch.allclose(weights.sum(-1), torch.ones(5, dtype=f64))
    qb, kb, vb = torch.randn(2, 4, 10, 16), torch.randn(2, 4, 10, 16), torch.randn(2, 4, 10, 16)
    for scale in (None, 0.3):
        out, _ = attention(qb, kb, vb, scale=scale)
        assert torch.allclose(
            out, F.scaled_dot_product_attention(qb, kb, vb, scale=scale), atol=1e-6
        )


@pytest.mark.parametrize("heads", [1, 4])
def test_fused_and_explicit_paths_agree(heads):
    attn = Attention(64, num_heads=heads, qkv_bias=True)
    x = torch.randn(3, 15, 64)
    fused = attn(x)
    attn.fused = False
    explicit = attn(x)
    assert torch.allclose(fused, explicit, atol=1e-6)
    weights = attn.attention_weights(x)
    q, k, _ = attn.qkv(x).view(3, 15, 3, heads, 64 // heads).permute(2, 0, 3, 1, 4)
    expected = torch.softmax(q @ k.transpose(-2, -1) / (64 // heads) ** 0.5, dim=-1)
    assert weights.shape == (3, heads, 15, 15) and torch.allclose(weights, expected, atol=1e-6)


@pytest.mark.parametrize("fused", [True, False])
@torch.no_grad()
def test_module_is_its_definition_with_scale_out_dim_and_value_skip(fused):
    """Every option at once against the definition by hand: q | k | v from one linear layer,
    split into heads, attention by loops at the given scale, heads side by side, the output
    projection, then T2T's skip connection (+ v)."""
    dim, out_dim, heads, scale = 12, 8, 2, 0.3
    attn = Attention(dim, heads, True, scale, fused, out_dim=out_dim, value_skip=True).double()
    x = torch.randn(1, 5, dim, dtype=torch.float64)
    qkv = x[0] @ attn.qkv.weight.T + attn.qkv.bias  # (N, 3 out_dim): q | k | v
    q, k, v = qkv.split(out_dim, dim=-1)  # (N, out_dim) each
    d = out_dim // heads
    heads_out = [
        _attention_by_loops(
            q[:, h * d : (h + 1) * d], k[:, h * d : (h + 1) * d], v[:, h * d : (h + 1) * d], scale
        )
        for h in range(heads)
    ]
    expected = torch.cat(heads_out, dim=-1) @ attn.proj.weight.T + attn.proj.bias + v
    assert torch.allclose(attn(x)[0], expected, atol=1e-12)
    assert attn.qkv.weight.shape == (3 * out_dim, dim) and attn.qkv.bias is not None


def test_module_defaults_are_one_head_no_qkv_bias_fused_no_skip():
    """The defaults: one head, no qkv bias (notebook 06 counts the bias only when asked)."""
    attn = Attention(8)
    assert (attn.num_heads, attn.head_dim, attn.out_dim, attn.scale) == (1, 8, 8, 8**-0.5)
    assert attn.qkv.bias is None and attn.fused is True and attn.value_skip is False


def test_attention_is_permutation_equivariant():
    attn = Attention(32, num_heads=4)
    x = torch.randn(1, 15, 32)
    perm = torch.randperm(15)
    assert torch.allclose(attn(x[:, perm]), attn(x)[:, perm], atol=1e-6)
    assert not torch.allclose(attn(x[:, perm]), attn(x), atol=1e-3)


@pytest.mark.parametrize(
    "args, message",
    [
        (([[1.0]], torch.zeros(1, 1), torch.zeros(1, 1)), "q must be a tensor"),
        # (1, 4, 8) and (1, 4, 6): the message reads the last axis, not the second
        ((torch.zeros(1, 4, 8), torch.zeros(1, 4, 6), torch.zeros(1, 4, 8)), "got 8 and 6"),
        ((torch.zeros(4, 8), torch.zeros(4, 8), torch.zeros(5, 8)), "tokens, got 4 and 5"),
        ((torch.zeros(4, 8), torch.zeros(0, 8), torch.zeros(0, 8)), "k holds no keys"),
        ((*(torch.zeros(2, 4),) * 3, float("nan")), "scale must be positive, got nan"),
        ((*(torch.zeros(2, 4),) * 3, 0.0), "scale must be positive, got 0.0"),
    ],
)
def test_attention_names_the_bad_argument(args, message):
    with pytest.raises((TypeError, ValueError), match=re.escape(message)):
        attention(*args)


def test_attention_module_needs_heads_that_divide_the_length():
    with pytest.raises(ValueError, match="num_heads=5 does not divide dim=64"):
        Attention(64, num_heads=5)


def test_a_tensor_scale_is_a_number():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(4, 8, generator=g) for _ in range(3))
    out, weights = attention(q, k, v, scale=torch.tensor(0.5))
    expected = attention(q, k, v, scale=0.5)
    assert torch.equal(out, expected[0]) and torch.equal(weights, expected[1])
