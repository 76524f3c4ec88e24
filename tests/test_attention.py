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
        ((torch.zeros(4, 8), torch.zeros(4, 6), torch.zeros(4, 8)), "last dimension, got 8 and 6"),
        ((torch.zeros(4, 8), torch.zeros(4, 8), torch.zeros(5, 8)), "tokens, got 4 and 5"),
        ((torch.zeros(4, 8), torch.zeros(0, 8), torch.zeros(0, 8)), "k holds no keys"),
        ((*(torch.zeros(2, 4),) * 3, float("nan")), "scale must be positive, got nan"),
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
