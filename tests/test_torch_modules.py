"""vitexplain.torch_modules: our modules rebuilt as PyTorch's own give the same numbers."""

import re

import pytest
import torch
from torch import nn

from vitexplain import (
    Attention,
    Block,
    PatchEmbed,
    patch_embed_to_conv,
    to_torch_encoder_layer,
    to_torch_multihead_attention,
)


@pytest.mark.parametrize("img_size, p, c, d", [((60, 100), 20, 1, 768), ((8, 12), 4, 3, 10)])
def test_patch_embed_to_conv_is_timms_conv_with_the_same_numbers(img_size, p, c, d):
    embed = PatchEmbed(img_size, p, in_chans=c, embed_dim=d)
    conv = patch_embed_to_conv(embed)
    assert isinstance(conv, nn.Conv2d)
    assert conv.kernel_size == (p, p) and conv.stride == (p, p) and conv.padding == (0, 0)
    assert torch.equal(conv.weight, embed.proj.weight.view(d, c, p, p))
    assert torch.equal(conv.bias, embed.proj.bias)
    x = torch.randn(2, c, *img_size)
    assert torch.allclose(conv(x).flatten(2).transpose(1, 2), embed(x), atol=1e-5)
    # a copy: training the conv leaves the PatchEmbed alone
    with torch.no_grad():
        conv.weight.zero_()
    assert embed.proj.weight.abs().sum() > 0
    conv = patch_embed_to_conv(embed.double())  # the embedding's dtype, every bit of it
    assert conv.weight.dtype == torch.float64
    assert torch.equal(conv.weight, embed.proj.weight.view(d, c, p, p))


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
    weights = attn.attention_weights(x)
    assert torch.allclose(attn(x), expected, atol=1e-6)
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
    message = (
        "attn.scale = 0.5 is not head_dim ** -0.5 = 0.25, the only scale nn.MultiheadAttention uses"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        to_torch_multihead_attention(Attention(64, num_heads=4, qk_scale=0.5))
    message = "attn maps 64 -> 192 (qkv) -> 32 (proj); nn.MultiheadAttention needs 64 -> 192 -> 64"
    attn = Attention(64, num_heads=4)
    attn.proj = nn.Linear(64, 32)  # only the output projection is off
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        to_torch_multihead_attention(attn)


@pytest.mark.parametrize("heads, bias", [(1, False), (4, True), (6, False)])
def test_block_equals_transformer_encoder_layer(heads, bias):
    block = Block(48, num_heads=heads, qkv_bias=bias)
    for p in block.parameters():  # non-trivial norms and biases
        nn.init.normal_(p, std=0.2)
    layer = to_torch_encoder_layer(block)
    assert isinstance(layer, nn.TransformerEncoderLayer) and layer.norm_first
    x = torch.randn(3, 16, 48)
    expected = layer(x)
    assert torch.allclose(block(x), expected, atol=1e-5)
    layer.eval()  # PyTorch's fused fast path in inference
    with torch.inference_mode():
        assert torch.allclose(block(x), layer(x), atol=1e-5)
    with torch.no_grad():  # a copy: changing the block leaves PyTorch's layer as it was
        block.mlp.fc2.bias.add_(1.0)
    assert not torch.allclose(block(x), layer(x), atol=1e-3)
