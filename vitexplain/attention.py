"""Scaled dot-product attention (notebook 02), as a readable function and as a module.

Each token asks a question (query q), advertises what it holds (key k) and carries a message
(value v). Token i's output is the average of all values, weighted by how well q_i matches each key:

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d)) V
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from einops import rearrange
from torch import nn

__all__ = [
    "Attention",
    "attention",
]


def attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(q k^T * scale) v, written out: the reference the fused kernel is checked against.

    Args:
        q: queries, shape (..., N, d).
        k: keys, shape (..., M, d).
        v: values, shape (..., M, d_v).
        scale: factor on the logits; d ** -0.5 when None.

    Returns:
        (out, weights): out of shape (..., N, d_v) and the attention weights (..., N, M), whose
        rows sum to 1.
    """
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor) or t.ndim < 2:
            raise TypeError(f"{name} must be a tensor of shape (..., tokens, length), got {t!r}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must have the same last dimension, got {q.shape[-1]} and {k.shape[-1]}"
        )
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(
            f"k and v must hold the same number of tokens, got {k.shape[-2]} and {v.shape[-2]}"
        )
    if k.shape[-2] == 0:
        raise ValueError("k holds no keys (axis -2 has length 0): there is nothing to attend to")
    if scale is not None and not scale > 0:
        raise ValueError(f"scale must be positive, got {scale}")
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    logits = q @ k.transpose(-2, -1) * scale  # (..., N, M)
    weights = logits.softmax(dim=-1)  # each row is a distribution over the M keys
    return weights @ v, weights  # (..., N, d_v), (..., N, M)


class Attention(nn.Module):
    """Multi-head self-attention, as in timm's ``Attention``.

    One ``qkv`` projection makes queries, keys and values at once; its output is ordered q | k | v
    and each third is split into ``num_heads`` heads of ``dim // num_heads`` channels (the layout of
    ``nn.MultiheadAttention.in_proj_weight``).

    Args:
        dim: token length D.
        num_heads: number of heads h; must divide ``dim``.
        qkv_bias: whether ``qkv`` has a bias.
        qk_scale: factor on the logits; head_dim ** -0.5 when None.
        fused: use ``F.scaled_dot_product_attention`` in ``forward``; False takes the explicit
            path, :func:`vitexplain.attention` (the same numbers to float precision). The weights
            are read by :meth:`attention_weights`, or for a whole model by
            :func:`vitexplain.attention_maps`.
        out_dim: length of q, k, v and of the output; ``dim`` when None. T2T-ViT's token
            attention (:class:`vitexplain.TokenAttention`) makes it differ from ``dim``.
        value_skip: add the values v to the output (T2T's skip connection, which works when
            the output length differs from the input length); False for a standard block.
    """

    def __init__(
        self,
        dim: int,
        num_heads: int = 1,
        qkv_bias: bool = False,
        qk_scale: float | None = None,
        fused: bool = True,
        out_dim: int | None = None,
        value_skip: bool = False,
    ) -> None:
        super().__init__()
        inner = dim if out_dim is None else out_dim
        if inner % num_heads:
            name = "dim" if out_dim is None else "out_dim"
            raise ValueError(f"num_heads={num_heads} does not divide {name}={inner}")
        self.dim, self.out_dim = dim, inner
        self.num_heads = num_heads
        self.head_dim = inner // num_heads
        self.scale = qk_scale if qk_scale is not None else self.head_dim**-0.5
        self.fused = fused
        self.value_skip = value_skip
        self.qkv = nn.Linear(dim, 3 * inner, bias=qkv_bias)
        self.proj = nn.Linear(inner, inner)

    def _heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(B, N, D) tokens -> q, k, v, each (B, h, N, d)."""
        # (B, N, 3 h d) -> three tensors (B, h, N, d)
        return rearrange(self.qkv(x), "b n (qkv h d) -> qkv b h n d", qkv=3, h=self.num_heads)

    def attention_weights(self, x: torch.Tensor) -> torch.Tensor:
        """The weights this module gives every pair of tokens: softmax(q k^T * scale).

        :func:`vitexplain.attention_maps` calls it from a forward hook, on the input the module
        received, to read a model's attention from outside.

        Args:
            x: tokens, shape (B, N, D).

        Returns:
            Tensor of shape (B, h, N, N); row i is token i's distribution over the N keys.
        """
        q, k, _ = self._heads(x)  # (B, h, N, d) each
        return (q @ k.transpose(-2, -1) * self.scale).softmax(dim=-1)  # (B, h, N, N)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Attend every token to every token.

        Args:
            x: tokens, shape (B, N, D).

        Returns:
            Tensor of shape (B, N, out_dim).
        """
        q, k, v = self._heads(x)  # (B, h, N, d) each
        if self.fused:
            out = F.scaled_dot_product_attention(q, k, v, scale=self.scale)  # (B, h, N, d)
        else:
            out, _ = attention(q, k, v, scale=self.scale)  # (B, h, N, d)
        out = self.proj(rearrange(out, "b h n d -> b n (h d)"))  # (B, N, out_dim)
        if self.value_skip:  # T2T's token attention: the values v are the skip connection
            out = rearrange(v, "b h n d -> b n (h d)") + out  # (B, N, out_dim)
        return out
