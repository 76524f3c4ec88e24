import pytest
import torch
import torch.nn.functional as F
from torch import nn

from vitexplain import Attention, attention, to_torch_multihead_attention


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
    assert torch.allclose(out, _attention_by_loops(q, k, v, 8**-0.5))
    assert torch.allclose(weights.sum(-1), torch.ones(5, dtype=f64))
    qb, kb, vb = torch.randn(2, 4, 10, 16), torch.randn(2, 4, 10, 16), torch.randn(2, 4, 10, 16)
    for scale in (None, 0.3):
        out, _ = attention(qb, kb, vb, scale=scale)
        assert torch.allclose(
            out, F.scaled_dot_product_attention(qb, kb, vb, scale=scale), atol=1e-6
        )


def test_attention_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="8 and 6"):
        attention(torch.zeros(4, 8), torch.zeros(4, 6), torch.zeros(4, 8))
    with pytest.raises(ValueError, match="4 and 5"):
        attention(torch.zeros(4, 8), torch.zeros(4, 8), torch.zeros(5, 8))
    with pytest.raises(TypeError, match="list"):
        attention([[1.0]], torch.zeros(1, 1), torch.zeros(1, 1))


@pytest.mark.parametrize("heads", [1, 4])
def test_fused_and_explicit_paths_agree(heads):
    attn = Attention(64, num_heads=heads, qkv_bias=True)
    x = torch.randn(3, 15, 64)
    fused = attn(x)
    explicit, weights = attn(x, return_attention=True)
    assert torch.allclose(fused, explicit, atol=1e-6)
    assert weights.shape == (3, heads, 15, 15)
    assert torch.allclose(weights.sum(-1), torch.ones(3, heads, 15))


def _multihead_attention_by_hand(attn, bias):
    """The reference conversion: every tensor copied into nn.MultiheadAttention by hand."""
    mha = nn.MultiheadAttention(64, attn.num_heads, bias=True, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(attn.qkv.weight)
        mha.in_proj_bias.copy_(attn.qkv.bias if bias else torch.zeros(192))
        mha.out_proj.weight.copy_(attn.proj.weight)
        mha.out_proj.bias.copy_(attn.proj.bias)
    return mha


@pytest.mark.parametrize("heads, bias", [(1, False), (4, True), (8, False)])
def test_attention_module_equals_multihead_attention(heads, bias):
    attn = Attention(64, num_heads=heads, qkv_bias=bias)
    reference = _multihead_attention_by_hand(attn, bias)
    mha = to_torch_multihead_attention(attn)
    assert isinstance(mha, nn.MultiheadAttention) and mha.batch_first
    for name, tensor in reference.state_dict().items():
        assert torch.equal(mha.state_dict()[name], tensor), name
    x = torch.randn(2, 15, 64)
    expected, expected_weights = reference(x, x, x, average_attn_weights=False)
    converted, converted_weights = mha(x, x, x, average_attn_weights=False)
    out, weights = attn(x, return_attention=True)
    assert torch.allclose(attn(x), expected, atol=1e-6)
    assert torch.allclose(out, expected, atol=1e-6)
    assert torch.allclose(weights, expected_weights, atol=1e-6)
    assert torch.allclose(converted, expected, atol=1e-6)
    assert torch.allclose(converted_weights, expected_weights, atol=1e-6)


def test_to_torch_multihead_attention_handles_bias_dtype_and_copies():
    attn = Attention(64, num_heads=4).double()
    attn.proj = nn.Linear(64, 64, bias=False).double()  # no bias anywhere
    mha = to_torch_multihead_attention(attn)
    assert mha.in_proj_bias is None and mha.out_proj.bias is None
    assert mha.in_proj_weight.dtype == torch.float64
    x = torch.randn(1, 15, 64, dtype=torch.float64)
    assert torch.allclose(mha(x, x, x)[0], attn(x), atol=1e-12)
    with torch.no_grad():
        mha.in_proj_weight.zero_()  # a copy: the original keeps its weights
    assert attn.qkv.weight.abs().sum() > 0


def test_to_torch_multihead_attention_rejects_what_pytorch_cannot_hold():
    with pytest.raises(TypeError, match="Linear"):
        to_torch_multihead_attention(nn.Linear(4, 4))
    with pytest.raises(ValueError, match="attn.scale = 0.5 is not head_dim"):
        to_torch_multihead_attention(Attention(64, num_heads=4, qk_scale=0.5))


def test_attention_is_permutation_equivariant():
    attn = Attention(32, num_heads=4)
    x = torch.randn(1, 15, 32)
    perm = torch.randperm(15)
    assert torch.allclose(attn(x[:, perm]), attn(x)[:, perm], atol=1e-6)
    assert not torch.allclose(attn(x[:, perm]), attn(x), atol=1e-3)


def test_attention_module_rejects_bad_input():
    with pytest.raises(ValueError, match="num_heads=5 does not divide dim=64"):
        Attention(64, num_heads=5)
    with pytest.raises(ValueError, match="token length 32"):
        Attention(64)(torch.zeros(1, 4, 32))
    with pytest.raises(ValueError, match=r"shape \(4, 64\)"):
        Attention(64)(torch.zeros(4, 64))
    with pytest.raises(ValueError, match="-3"):
        Attention(-3)
