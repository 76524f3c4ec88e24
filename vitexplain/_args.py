"""The argument checks of the idea modules, one function per public entry point.

``patches.patchify`` starts with ``x, patch_size = _args.patchify(x, patch_size)``: this module
holds what that line checks, so the function's body is the idea alone. Each checker takes the
entry point's arguments and returns them checked (sizes as ints, pairs as tuples), raising a
``TypeError`` or ``ValueError`` that names the bad argument. The building blocks
(``check_int``, ``check_tensor``, ...) are in :mod:`vitexplain._checks`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from torch import nn

from ._checks import (
    check_bool,
    check_divides,
    check_dtype,
    check_elements,
    check_image,
    check_image_batch,
    check_index,
    check_input,
    check_int,
    check_module,
    check_number,
    check_same,
    check_size2,
    check_str,
    check_tensor,
    describe,
)

#: ``patchify_by_slicing`` runs one Python step per patch; past this many it is refused (the
#: one-line ``patchify`` does any size).
MAX_SLICED_PATCHES = 2**16


def _scale(scale: object) -> float | None:
    return None if scale is None else check_number("scale", scale, minimum=0, inclusive=False)


# --- attention.py -----------------------------------------------------------------------------


def attention(q: object, k: object, v: object, scale: object) -> tuple:
    """q (..., N, d), k (..., M, d), v (..., M, d_v): floats of one dtype on one device, finite,
    at least one key; a positive scale or None."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        check_tensor(name, t, min_ndim=2, floating=True, finite=True)
    check_same(q=q, k=k, v=v)
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
    return q, k, v, _scale(scale)


def attention_module(
    dim: object, num_heads: object, qkv_bias: object, qk_scale: object, fused: object, out_dim
) -> tuple:
    """``Attention(...)``'s arguments: sizes, flags, and num_heads dividing the output length."""
    dim, num_heads = check_int("dim", dim), check_int("num_heads", num_heads)
    qkv_bias, fused = check_bool("qkv_bias", qkv_bias), check_bool("fused", fused)
    if qk_scale is not None:
        qk_scale = check_number("qk_scale", qk_scale, minimum=0, inclusive=False)
    inner = dim if out_dim is None else check_int("out_dim", out_dim)
    name = "dim" if out_dim is None else "out_dim"
    if inner % num_heads:
        raise ValueError(f"num_heads={num_heads} does not divide {name}={inner}")
    check_elements(
        f"dim={dim}, out_dim={inner}: the qkv weights, {dim} x {3 * inner}", 3 * dim * inner
    )
    return dim, num_heads, qkv_bias, qk_scale, fused, inner


def tokens(module: nn.Module, x: object, width: int) -> torch.Tensor:
    """Tokens (B, N, width) in the module's dtype, on its device."""
    return check_input("x", x, module, width)


# --- patches.py -------------------------------------------------------------------------------


def patchify(x: object, patch_size: object) -> tuple[torch.Tensor, int]:
    """Images (B, C, H, W) and a patch size that divides H and W."""
    x = check_tensor("x", x, ndim=4)
    patch_size = check_int("patch_size", patch_size)
    check_divides("patch_size", patch_size, x.shape[-2], x.shape[-1])
    return x, patch_size


def patchify_by_slicing(x: object, patch_size: object) -> tuple[torch.Tensor, int]:
    """As :func:`patchify`, and few enough patches for a Python loop."""
    x, patch_size = patchify(x, patch_size)
    count = x.shape[-2] // patch_size * (x.shape[-1] // patch_size)
    if count > MAX_SLICED_PATCHES:
        raise ValueError(
            f"patch_size={patch_size} cuts {count:,} patches from a {x.shape[-2]} x "
            f"{x.shape[-1]} image, and patchify_by_slicing loops in Python once per patch: "
            f"the limit is {MAX_SLICED_PATCHES:,}; patchify(x, patch_size) does any size"
        )
    return x, patch_size


def patchify_by_conv(x: object, patch_size: object) -> tuple[torch.Tensor, int]:
    """As :func:`patchify`, with floats (a convolution needs them)."""
    x, patch_size = patchify(x, patch_size)
    if not x.is_floating_point():
        raise TypeError(f"x must be a floating-point tensor for a convolution, got dtype {x.dtype}")
    return x, patch_size


def unpatchify(tokens: object, img_size: object, patch_size: object) -> tuple:
    """Tokens (B, N, C*P*P) that fill the grid of ``img_size`` cut into P x P patches."""
    tokens = check_tensor("tokens", tokens, ndim=3)
    height, width = check_size2("img_size", img_size)
    patch_size = check_int("patch_size", patch_size)
    check_divides("patch_size", patch_size, height, width)
    rows, cols = height // patch_size, width // patch_size
    n, length = tokens.shape[1:]
    if n != rows * cols:
        raise ValueError(
            f"tokens holds {n} tokens, but img_size {height} x {width} cut into "
            f"{patch_size}-pixel patches makes a {rows} x {cols} grid of {rows * cols}"
        )
    if length % (patch_size * patch_size):
        raise ValueError(
            f"token length {length} is not a multiple of patch_size**2 = {patch_size**2}"
        )
    return tokens, rows, patch_size


def scramble_patches(image: object, patch_size: object, order: object) -> tuple:
    """An (H, W) array, a patch size dividing it, and a permutation of the patch indices."""
    image = np.asarray(image)
    if image.ndim != 2:
        raise ValueError(f"image must have shape (H, W), got shape {image.shape}")
    patch_size = check_int("patch_size", patch_size)
    check_divides("patch_size", patch_size, *image.shape)
    rows, cols = image.shape[0] // patch_size, image.shape[1] // patch_size
    order = np.asarray(order)
    if not np.issubdtype(order.dtype, np.integer):
        raise TypeError(f"order must hold integer patch indices, got dtype {order.dtype}")
    if order.shape != (rows * cols,) or not np.array_equal(np.sort(order), np.arange(rows * cols)):
        raise ValueError(
            f"order must be a permutation of range({rows * cols}) for the {rows} x {cols} patch "
            f"grid, got {order.tolist()}"
        )
    return image, patch_size, order, rows


def patch_embed(img_size: object, patch_size: object, in_chans: object, embed_dim: object):
    """``PatchEmbed(...)``: a patch size that tiles the image, a table within the size limit."""
    img_size = check_size2("img_size", img_size)
    patch_size, in_chans = check_int("patch_size", patch_size), check_int("in_chans", in_chans)
    embed_dim = check_int("embed_dim", embed_dim)
    check_divides("patch_size", patch_size, *img_size)
    num_tokens = (img_size[0] // patch_size) * (img_size[1] // patch_size)
    check_elements(
        f"img_size={img_size} with patch_size={patch_size}: {num_tokens:,} tokens x "
        f"embed_dim={embed_dim}",
        num_tokens * embed_dim,
    )
    return img_size, patch_size, in_chans, embed_dim


def image_batch(model: nn.Module, x: object, in_chans: int, img_size: tuple[int, int]):
    """Images (B, C, H, W) of the size, channel count, dtype and device a model was built for."""
    x = check_input("x", x, model, ndim=4, width=None)
    _, c, h, w = x.shape
    if c != in_chans or (h, w) != tuple(img_size):
        raise ValueError(
            f"x has shape {tuple(x.shape)}, but the model expects (B, {in_chans}, "
            f"{img_size[0]}, {img_size[1]}): {c} channels of {h} x {w}"
        )
    return x


def one_hot_patch_kernels(in_chans: object, patch_size: object) -> tuple[int, int]:
    in_chans, patch_size = check_int("in_chans", in_chans), check_int("patch_size", patch_size)
    length = in_chans * patch_size * patch_size
    check_elements(
        f"in_chans={in_chans} x patch_size={patch_size}**2 = {length:,} one-hot kernels of "
        f"{length:,} values each",
        length * length,
        4,
    )
    return in_chans, patch_size


# --- unfold.py --------------------------------------------------------------------------------


def soft_split(h: object, w: object, k: object, s: object, p: object) -> tuple[int, ...]:
    """An image size, a kernel that fits the padded image, a stride and a padding."""
    h, w = check_int("h", h), check_int("w", w)
    k, s, p = check_int("k", k), check_int("s", s), check_int("p", p, minimum=0)
    for side, size in (("height", h), ("width", w)):
        if k > size + 2 * p:
            raise ValueError(
                f"kernel k={k} is larger than the padded image {side} "
                f"{size} + 2*{p} = {size + 2 * p}"
            )
    return h, w, k, s, p


def soft_split_tokens(h, w, k, s, p) -> tuple[int, ...]:
    """As :func:`soft_split`, for a function that builds all the patches (k * k values each)."""
    h, w, k, s, p = soft_split(h, w, k, s, p)
    rows, cols = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    check_elements(
        f"k={k}, s={s}, p={p} on {h} x {w}: {rows * cols:,} patches of {k * k}", rows * cols * k * k
    )
    return h, w, k, s, p


def fold_tokens(tokens: object, h, w, k, s, p) -> tuple:
    """Tokens (B, N, C*k*k) of exactly the patches the soft split makes."""
    tokens = check_tensor("tokens", tokens, ndim=3)
    h, w, k, s, p = soft_split_tokens(h, w, k, s, p)
    rows, cols = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    if tokens.shape[1] != rows * cols:
        raise ValueError(
            f"tokens holds {tokens.shape[1]} tokens, but a soft split with k={k}, s={s}, p={p} "
            f"makes {rows} x {cols} = {rows * cols} of a {h} x {w} image"
        )
    if tokens.shape[2] % (k * k):
        raise ValueError(f"token length {tokens.shape[2]} is not a multiple of k*k = {k * k}")
    # a pixel no patch covers (a stride longer than the kernel skips it) cannot be recovered:
    # a pixel is covered when its row and its column are, by some patch row and patch column
    covered = []
    for size, count in ((h, rows), (w, cols)):
        line = np.zeros(size + 2 * p, dtype=bool)  # the padded side
        for start in range(0, count * s, s):
            line[start : start + k] = True
        covered.append(int(line[p : p + size].sum()))
    uncovered = h * w - covered[0] * covered[1]
    if uncovered:
        raise ValueError(
            f"{uncovered} pixels lie in no patch (k={k}, s={s}, p={p}): they cannot be recovered"
        )
    return tokens, h, w, k, s, p


def overlap_count(h, w, k, s, p, num_patches) -> tuple[int, ...]:
    """As :func:`soft_split_tokens`, and how many patches to count (all when None)."""
    h, w, k, s, p = soft_split_tokens(h, w, k, s, p)
    rows, cols = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    if num_patches is None:
        return h, w, k, s, p, rows * cols
    return h, w, k, s, p, check_int("num_patches", num_patches, minimum=0)


# --- position.py ------------------------------------------------------------------------------

#: Largest embedding length the clock helpers describe (a real ViT has 768 to 1,280).
MAX_CLOCK_DIM = 2**20


def base(value: object) -> float:
    return check_number("base", value, minimum=1, inclusive=False)


def clock_dim(dim: object, minimum: int = 1) -> int:
    """An embedding length for the clock helpers (one clock per column pair), within a limit."""
    dim = check_int("dim", dim, minimum=minimum)
    if dim > MAX_CLOCK_DIM:
        raise ValueError(
            f"dim must be at most {MAX_CLOCK_DIM:,} (an embedding length), got {dim:,}"
        )
    return dim


def sinusoid_encoding(num_tokens: object, dim: object, base_: object) -> tuple:
    num_tokens, dim = check_int("num_tokens", num_tokens), check_int("dim", dim)
    check_elements(f"a table of num_tokens={num_tokens} x dim={dim}", num_tokens * dim)
    return num_tokens, dim, base(base_)


def even_dim(dim: object, why: str) -> int:
    dim = check_int("dim", dim)
    if dim % 2:
        raise ValueError(f"dim must be even {why}, got {dim}")
    return dim


def relative_rotation(offset: object, dim: object, base_: object) -> tuple:
    dim = even_dim(dim, "for the rotation identity")
    check_elements(f"a rotation of dim={dim} x dim={dim}", dim * dim)
    return check_number("offset", offset), dim, base(base_)


def sinusoid_encoding_2d(grid_size: object, dim: object, base_: object) -> tuple:
    rows, cols = check_size2("grid_size", grid_size)
    dim = even_dim(dim, "to split between rows and columns")
    check_elements(f"a table of grid_size={rows} x {cols} tokens x dim={dim}", rows * cols * dim)
    return rows, cols, dim, base(base_)


def resize_pos_embed(pos_embed, old_grid, new_grid, num_prefix_tokens, antialias) -> tuple:
    """A float table (N, D) or (1, N, D), N = prefix + old grid, D > 0; the new grid in bounds."""
    pos_embed = check_tensor("pos_embed", pos_embed)
    if pos_embed.ndim not in (2, 3) or (pos_embed.ndim == 3 and pos_embed.shape[0] != 1):
        raise ValueError(
            f"pos_embed must have shape (N, D) or (1, N, D), got {tuple(pos_embed.shape)}"
        )
    if pos_embed.shape[-1] == 0:
        raise ValueError(f"pos_embed has no columns (D = 0), got shape {tuple(pos_embed.shape)}")
    (h, w), (nh, nw) = check_size2("old_grid", old_grid), check_size2("new_grid", new_grid)
    num_prefix_tokens = check_int("num_prefix_tokens", num_prefix_tokens, minimum=0)
    antialias = check_bool("antialias", antialias)
    if not pos_embed.is_floating_point():
        raise TypeError(
            f"pos_embed must hold floats to be interpolated, got dtype {pos_embed.dtype}"
        )
    count = pos_embed.shape[-2]
    if count != num_prefix_tokens + h * w:
        extra = count - h * w
        hint = (
            f"; if its first {extra} rows are prefix tokens (the class token), pass "
            f"num_prefix_tokens={extra}"
            if extra > 0
            else ""
        )
        raise ValueError(
            f"pos_embed holds {count} tokens, expected num_prefix_tokens="
            f"{num_prefix_tokens} + old_grid {h} x {w} = {num_prefix_tokens + h * w}{hint}"
        )
    dim = pos_embed.shape[-1]
    check_elements(f"a new_grid of {nh} x {nw} tokens x {dim} dimensions", nh * nw * dim)
    return pos_embed, (h, w), (nh, nw), num_prefix_tokens, antialias


def embedding_similarity(table: object) -> torch.Tensor:
    """A finite float table (N, D) with N, D > 0 and no all-zero row."""
    table = check_tensor("table", table, ndim=2, floating=True)
    if table.shape[0] == 0 or table.shape[1] == 0:
        raise ValueError(
            f"table must have at least one row and one column, got {tuple(table.shape)}"
        )
    check_elements(
        f"the similarity of the table's {table.shape[0]} rows with each other", table.shape[0] ** 2
    )
    check_tensor("table", table, finite=True)
    zero = (table == 0).all(1).nonzero().flatten().tolist()
    if zero:
        raise ValueError(
            f"table row {zero[0]} is all zeros ({len(zero)} such rows): a zero vector has no "
            "direction, so its cosine similarity is undefined"
        )
    return table


def toeplitz_error(matrix: object) -> torch.Tensor:
    """A finite square matrix of real numbers, not empty."""
    matrix = check_tensor("matrix", matrix, ndim=2, real=True)
    if matrix.shape[1] != matrix.shape[0]:
        raise ValueError(f"matrix must be square, got shape {tuple(matrix.shape)}")
    if matrix.shape[0] == 0:
        raise ValueError("matrix is empty (0 x 0): it has no diagonal to compare")
    return check_tensor("matrix", matrix, finite=True)


# --- relative_position.py ---------------------------------------------------------------------


def offsets(x: object) -> torch.Tensor:
    """``x`` of shape (..., L, 2L - 1): L queries over 2L - 1 offsets."""
    x = check_tensor("x", x, min_ndim=2)
    length, num_offsets = x.shape[-2:]
    if num_offsets != 2 * length - 1:
        raise ValueError(
            f"x must have shape (..., L, 2L - 1): its L = {length} queries (axis -2) need "
            f"2L - 1 = {2 * length - 1} offsets on the last axis, got {num_offsets} "
            f"(shape {tuple(x.shape)})"
        )
    return x


def relative_index(length: object) -> int:
    length = check_int("length", length)
    check_elements(f"an index of length={length} x {length}", length * length)
    return length


def attention_with_position(q, k, v, position_logits, scale) -> tuple:
    """As :func:`attention`, and position logits (..., N, M) of the same dtype: finite or -inf
    (a mask), with at least one key left in every row."""
    q, k, v, scale = attention(q, k, v, scale)
    position_logits = check_tensor("position_logits", position_logits, min_ndim=2, floating=True)
    check_same(q=q, k=k, v=v, position_logits=position_logits)
    if position_logits.shape[-2:] != (q.shape[-2], k.shape[-2]):
        shapes = ", ".join(f"{n} {tuple(t.shape)}" for n, t in zip("qkv", (q, k, v), strict=True))
        raise ValueError(
            f"position_logits must end with (N, N) = {(q.shape[-2], k.shape[-2])}; got {shapes}, "
            f"position_logits {tuple(position_logits.shape)}"
        )
    if position_logits.device.type != "meta":
        if position_logits.isnan().any() or (position_logits == float("inf")).any():
            raise ValueError(
                "position_logits must be finite or -inf (a masked key), got NaN or +inf"
            )
        if (position_logits == float("-inf")).all(-1).any():
            raise ValueError(
                "position_logits has a row of -inf only: that query has no key left to attend to"
            )
    return q, k, v, position_logits, scale


def position_table(tokens: object, dim_head: object, heads: object = None) -> tuple:
    """``AbsPosEmb1D``/``RelPosEmb1D``: sizes, and tables within the size limit."""
    tokens, dim_head = check_int("tokens", tokens), check_int("dim_head", dim_head)
    heads = None if heads is None else check_int("heads", heads)
    check_elements(
        f"tables of 2 * tokens - 1 = {2 * tokens - 1} offsets x dim_head={dim_head} x "
        f"heads={heads or 1}",
        (2 * tokens - 1) * dim_head * (heads or 1),
        4,
    )
    return tokens, dim_head, heads


def query(module: nn.Module, q: object, length: int, dim_head: int, heads: int | None):
    """Queries (..., L, d) in the tables' dtype and device; (B, h, ..., L, d) for per-head ones."""
    q = check_input("q", q, module, width=None, ndim=None)
    check_tensor("q", q, min_ndim=4 if heads else 2)
    if q.shape[-2:] != (length, dim_head):
        raise ValueError(
            f"q must end with (L, d) = ({length}, {dim_head}), got shape {tuple(q.shape)}"
        )
    if heads and q.shape[1] != heads:
        raise ValueError(
            f"q has {q.shape[1]} heads on axis 1, but the tables were built for heads={heads}"
        )
    return q


def grid_query(module: nn.Module, q: object, grid_size: tuple[int, int]) -> torch.Tensor:
    """Queries (B, h, H * W, d) for a 2D table, in its dtype and on its device."""
    q = check_input("q", q, module, width=None, ndim=4)
    rows, cols = grid_size
    if q.shape[2] != rows * cols:
        raise ValueError(
            f"q holds {q.shape[2]} tokens, which do not match the {rows} x {cols} grid "
            f"({rows * cols} tokens)"
        )
    return q


def grid_offsets(grid_size: object, index: object) -> tuple[int, int, int]:
    rows, cols = check_size2("grid_size", grid_size)
    check_elements(f"offsets of grid_size {rows} x {cols}", rows * cols)
    index = check_index("index", index, rows * cols, f"tokens in the {rows} x {cols} grid")
    return rows, cols, index


# --- vit.py, t2t.py ---------------------------------------------------------------------------

#: The position embeddings the backbone can add (``pos_embed=``).
POS_EMBED_KINDS = ("sincos", "learned", "none")


def mlp(in_features: object, hidden_features: object, out_features: object) -> tuple:
    in_features = check_int("in_features", in_features)
    hidden = check_int(
        "hidden_features", in_features if hidden_features is None else hidden_features
    )
    out = check_int("out_features", in_features if out_features is None else out_features)
    check_elements(
        f"in_features={in_features}, hidden_features={hidden}, out_features={out}: the two "
        "weight matrices",
        hidden * (in_features + out),
        4,
    )
    return in_features, hidden, out


def mlp_hidden(dim: int, mlp_ratio: object) -> int:
    """Hidden length of a block's MLP, ``int(dim * mlp_ratio)``, refused when it is below 1."""
    mlp_ratio = check_number("mlp_ratio", mlp_ratio, minimum=0, inclusive=False)
    hidden = int(dim * mlp_ratio)
    if hidden < 1:
        raise ValueError(
            f"mlp_ratio={mlp_ratio} gives an MLP of {hidden} hidden units for dim={dim}; "
            "it needs at least 1"
        )
    return hidden


def backbone(num_classes, embed_dim, depth, mlp_ratio, pos_embed="sincos") -> tuple:
    """The backbone's sizes, and the blocks' weights within the size limit: checked before the
    tokenizer is built, so that a typo such as ``embed_dim=10**6`` is refused at once."""
    num_classes = check_int("num_classes", num_classes)
    embed_dim = check_int("embed_dim", embed_dim)
    depth = check_int("depth", depth, minimum=0)
    hidden = mlp_hidden(embed_dim, mlp_ratio)
    check_elements(
        f"embed_dim={embed_dim} (mlp_ratio={mlp_ratio}): each of the {depth} blocks holds "
        f"{embed_dim} x {3 * embed_dim} qkv and {embed_dim} x {hidden} MLP weights",
        depth * embed_dim * (4 * embed_dim + 2 * hidden),
        4,
    )
    check_elements(
        f"num_classes={num_classes} x embed_dim={embed_dim} head", num_classes * embed_dim, 4
    )
    if pos_embed not in POS_EMBED_KINDS:
        raise ValueError(f"pos_embed must be one of {POS_EMBED_KINDS}, got {pos_embed!r}")
    return num_classes, embed_dim, depth


def t2t_module(img_size, in_chans, embed_dim, token_dim, softsplit_kernels) -> tuple:
    """The T2T module's sizes; three kernels whose splits fit the image one after the other."""
    from ._checks import describe

    img_size = check_size2("img_size", img_size)
    in_chans, embed_dim = check_int("in_chans", in_chans), check_int("embed_dim", embed_dim)
    token_dim = check_int("token_dim", token_dim)
    if not isinstance(softsplit_kernels, list | tuple | np.ndarray | torch.Tensor):
        raise TypeError(
            "softsplit_kernels must be three kernel sizes such as (7, 3, 3), got "
            f"{describe(softsplit_kernels)}"
        )
    if len(softsplit_kernels) != 3:
        raise ValueError(
            f"softsplit_kernels must hold three kernel sizes, got {softsplit_kernels!r}"
        )
    kernels = tuple(
        check_int(f"softsplit_kernels[{i}]", k) for i, k in enumerate(softsplit_kernels)
    )
    h, w = img_size
    for split, k in enumerate(kernels):  # each split must fit the grid the previous one made
        s, p = -(-k // 2), -(-k // 4)  # ceil(k / 2), ceil(k / 4): soft_split's rule
        try:
            soft_split(h, w, k, s, p)
        except ValueError as error:
            raise ValueError(
                f"img_size {img_size} does not fit softsplit_kernels {kernels}: soft split "
                f"{split} meets a {h} x {w} grid: {error}"
            ) from None
        h, w = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    k0, k1, k2 = kernels
    weights = 3 * token_dim * (in_chans * k0 * k0 + token_dim * k1 * k1)  # token attentions
    check_elements(
        f"token_dim={token_dim} and embed_dim={embed_dim} with softsplit_kernels {kernels}: "
        "the token transformers' and the projection's weights",
        weights + token_dim * k2 * k2 * embed_dim,
        4,
    )
    return img_size, in_chans, embed_dim, token_dim, kernels


def block(dim: object, mlp_ratio: object) -> tuple[int, int]:
    dim = check_int("dim", dim)
    return dim, mlp_hidden(dim, mlp_ratio)


def features(module: nn.Module, x: object, width: int, width_name: str) -> torch.Tensor:
    """Any (..., width) tensor in the module's dtype and on its device."""
    return check_input("x", x, module, width, ndim=None, width_name=width_name)


# --- training.py ------------------------------------------------------------------------------

#: Above this many optimiser steps a training call says what it costs (a warning, not a refusal:
#: the epoch count is the user's choice). The series' longest run takes about 7,000.
MANY_STEPS = 100_000

SCHEDULES = ("constant", "onecycle")


def fit(model, n, batch_loss, epochs, batch_size, lr, weight_decay, seed, schedule) -> tuple:
    """The training loop's settings, checked once (``fit`` and ``train_classifier`` share them)."""
    import warnings
    from collections.abc import Callable

    model, n = check_module("model", model), check_int("n", n)
    if not isinstance(batch_loss, Callable):
        raise TypeError(f"batch_loss must be a function of the batch indices, got {batch_loss!r}")
    epochs, batch_size = check_int("epochs", epochs), check_int("batch_size", batch_size)
    lr = check_number("lr", lr, minimum=0.0, inclusive=False)
    weight_decay = check_number("weight_decay", weight_decay, minimum=0.0)
    seed = check_int("seed", seed, minimum=0)
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}, got {schedule!r}")
    steps = epochs * -(-n // batch_size)
    if steps > MANY_STEPS:
        warnings.warn(
            f"epochs={epochs:,} over {n:,} examples in batches of {batch_size} is {steps:,} "
            f"optimiser steps (the series' longest run takes about 7,000): expect hours",
            stacklevel=3,
        )
    return model, n, batch_loss, epochs, batch_size, lr, weight_decay, seed, schedule


def batch_loss_value(loss: object) -> torch.Tensor:
    """What ``batch_loss`` returned: a scalar tensor that can be differentiated."""
    if not isinstance(loss, torch.Tensor) or loss.ndim != 0 or not loss.requires_grad:
        from ._checks import describe

        raise TypeError(
            "batch_loss must return the batch's mean loss as a 0-d tensor with a gradient, got "
            f"{describe(loss)}"
            + (
                ""
                if not isinstance(loss, torch.Tensor)
                else f" (requires_grad={loss.requires_grad})"
            )
        )
    return loss


def labelled(
    model, images, labels, images_name="images", labels_name="labels", whole=None
) -> tuple:
    """Images (n, ...) in the model's dtype and device, with n > 0 integer labels (n,); ``whole``
    names the pair when it came as one argument."""
    images = check_input(images_name, images, model, ndim=None)
    check_tensor(images_name, images, min_ndim=2)
    labels = check_tensor(labels_name, labels, ndim=1)
    if labels.dtype.is_floating_point or labels.dtype.is_complex or labels.dtype == torch.bool:
        raise TypeError(f"{labels_name} must hold integer class indices, got dtype {labels.dtype}")
    if len(images) != len(labels):
        raise ValueError(
            f"{whole} has {len(images)} images but {len(labels)} labels"
            if whole
            else f"{images_name} holds {len(images)} images but {labels_name} {len(labels)} labels"
        )
    if len(labels) == 0:
        raise ValueError(
            f"{whole} is empty" if whole else f"{images_name} and {labels_name} are empty"
        )
    return images, labels.long()  # any integer dtype: the losses want int64


def labelled_pair(model, name: str, data: object) -> tuple:
    """``(images, labels)`` given as one argument ``name`` (``train=``, ``test=``)."""
    if not isinstance(data, tuple | list) or len(data) != 2:
        raise TypeError(f"{name} must be a pair (images, labels), got {type(data).__name__}")
    return labelled(model, *data, f"{name}[0] (images)", f"{name}[1] (labels)", whole=name)


# --- torch_modules.py -------------------------------------------------------------------------


def instance(name: str, value: object, cls: type) -> object:
    """``value`` if it is a ``cls`` of this package."""
    if not isinstance(value, cls):
        raise TypeError(f"{name} must be a vitexplain.{cls.__name__}, got {type(value).__name__}")
    return value


def multihead_attention(attn: object) -> nn.Module:
    """An :class:`Attention` that ``nn.MultiheadAttention`` can hold: D -> 3D -> D, its scale."""
    from .attention import Attention

    attn = instance("attn", attn, Attention)
    dim, heads = attn.qkv.in_features, attn.num_heads
    if attn.qkv.out_features != 3 * dim or attn.proj.out_features != dim:
        raise ValueError(
            f"attn maps {dim} -> {attn.qkv.out_features} (qkv) -> {attn.proj.out_features} "
            f"(proj); nn.MultiheadAttention needs {dim} -> {3 * dim} -> {dim}"
        )
    if abs(attn.scale - (dim // heads) ** -0.5) > 1e-12 * attn.scale:
        raise ValueError(
            f"attn.scale = {attn.scale} is not head_dim ** -0.5 = {(dim // heads) ** -0.5}, "
            "the only scale nn.MultiheadAttention uses"
        )
    return attn


# --- errata.py --------------------------------------------------------------------------------


def articles_rel_pos_2d(q: object, grid_size: object, table_h: object, table_w: object) -> tuple:
    """Queries (B, h, H * W, d) and the two tables (2H - 1, d), (2W - 1, d), of one dtype."""
    q = check_tensor("q", q, ndim=4, floating=True)
    rows, cols = check_size2("grid_size", grid_size)
    d = q.shape[-1]
    if q.shape[2] != rows * cols:
        raise ValueError(
            f"q holds {q.shape[2]} tokens, not the {rows * cols} of a {rows} x {cols} grid"
        )
    for name, table, size in (("table_h", table_h, rows), ("table_w", table_w, cols)):
        table = check_tensor(name, table, ndim=2)
        if table.shape != (2 * size - 1, d):
            raise ValueError(
                f"{name} must have shape ({2 * size - 1}, {d}), got {tuple(table.shape)}"
            )
    check_same(q=q, table_h=table_h, table_w=table_w)
    return q, rows, cols


# --- inspection.py ----------------------------------------------------------------------------


def check_shape(name: object, tensor: object, shape: object, show: object) -> tuple:
    """A str name, a tensor, an expected shape (ints, or an array of them) it has, a flag."""

    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {name!r}")
    tensor = check_tensor(f"tensor ({name})", tensor)
    if isinstance(shape, torch.Size | torch.Tensor | np.ndarray) and np.ndim(shape) == 1:
        shape = [int(size) for size in shape]  # a shape held in an array or tensor
    if isinstance(shape, str | bytes) or not isinstance(shape, Sequence):
        raise TypeError(f"shape must be a sequence of ints, got {shape!r}")
    expected = tuple(check_int(f"shape[{i}]", size, minimum=0) for i, size in enumerate(shape))
    if tuple(tensor.shape) != expected:
        raise ValueError(f"{name} has shape {tuple(tensor.shape)}, expected {expected}")
    return tensor, expected, check_bool("show", show)


def model_input(model: object, x: object, name: str = "x") -> tuple[nn.Module, torch.Tensor]:
    """A module, and an input for it: token ids (long), or values of its weights' dtype."""
    model, x = check_module("model", model), check_tensor(name, x)
    if x.dtype != torch.long:  # token ids would be fine; images must match the weights
        x = check_dtype(name, x, model)
    return model, x


def attention_layers(model: nn.Module, layers: list) -> list:
    if not layers:
        raise ValueError(f"model ({type(model).__name__}) holds no vitexplain Attention layer")
    return layers


def class_token_model(model: object, images: object, block: object) -> tuple:
    """A ViT or T2TViT (a class token, blocks), images (B, C, H, W) for it, a block index."""

    model = check_module("model", model)
    blocks = getattr(model, "blocks", None)
    if getattr(model, "cls_token", None) is None or not isinstance(blocks, nn.ModuleList):
        raise TypeError(
            f"model must be a ViT or T2TViT (a class token and blocks), got {type(model).__name__}"
        )
    images = check_input("images", images, model, ndim=4)
    return model, images, check_index("block", block, len(blocks), "blocks", negative=True)


def attention_by_origin(weights: object, orders: object, grid_size: object) -> tuple:
    """Weights and integer orders (B, N) for a grid of N patches."""
    weights = check_tensor("weights", weights, ndim=2)
    orders = check_tensor("orders", orders, ndim=2)
    rows, cols = check_size2("grid_size", grid_size)
    if weights.shape != orders.shape or weights.shape[1] != rows * cols:
        raise ValueError(
            f"weights {tuple(weights.shape)} and orders {tuple(orders.shape)} must both have shape "
            f"(B, {rows * cols}) for a {rows} x {cols} grid"
        )
    if orders.dtype.is_floating_point or orders.min() < 0 or orders.max() >= rows * cols:
        raise ValueError(
            f"orders must hold integer patch indices 0 .. {rows * cols - 1}, got dtype "
            f"{orders.dtype} with values in [{orders.min().item()}, {orders.max().item()}]"
        )
    return weights, orders, rows, cols


def trace_shapes(model: object, x: object, names: object) -> tuple:
    """A module, its input, and at least one name of its submodules (not a lone str)."""
    from ._checks import check_module

    model, x = check_module("model", model), check_tensor("x", x)
    if isinstance(names, str):
        raise TypeError(f"names must be a sequence of names, got the string {names!r}")
    if not names:
        raise ValueError("names is empty: name at least one submodule to trace")
    known = dict(model.named_modules())
    missing = [name for name in names if name not in known]
    if missing:
        raise ValueError(f"names: model has no submodules named {missing}")
    return model, x, [known[name] for name in names]


def train_classifier(model, train, test, log, label_smoothing, max_shift) -> tuple:
    """What ``train_classifier`` adds to :func:`fit`'s settings (``fit`` checks those)."""
    from ._checks import check_module

    model = check_module("model", model)
    images, labels = labelled_pair(model, "train", train)
    test = None if test is None else labelled_pair(model, "test", test)
    if log is not None and not callable(log):
        raise TypeError(f"log must be callable or None, got {log!r}")
    label_smoothing = check_number("label_smoothing", label_smoothing, minimum=0.0, maximum=1)
    max_shift = check_int("max_shift", max_shift, minimum=0)
    if max_shift and images.ndim != 4:
        raise ValueError(
            f"max_shift needs images of shape (n, C, H, W), got shape {tuple(images.shape)}"
        )
    return images, labels, test, label_smoothing, max_shift


# --- interpret.py, learned_position.py (shared checkers) ----------------------------------------


def maps(maps: object) -> list[torch.Tensor]:
    """The maps as a list of (B, h, N, N) attention weights of one floating dtype (the widest
    of theirs), each row a distribution: finite, at least 0, summing to 1."""
    if not isinstance(maps, list | tuple) or not maps:
        raise TypeError(
            "maps must be a non-empty list of (B, h, N, N) tensors (vx.attention_maps), got "
            f"{describe(maps)}"
        )
    maps = [check_tensor(f"maps[{i}]", m, ndim=4, values=True) for i, m in enumerate(maps)]
    if len({m.shape for m in maps}) != 1 or maps[0].shape[-1] != maps[0].shape[-2]:
        raise ValueError(
            f"maps must all have one shape (B, h, N, N), got {[tuple(m.shape) for m in maps]}"
        )
    if 0 in maps[0].shape[1:]:
        raise ValueError(f"maps must hold heads and tokens, got shape {tuple(maps[0].shape)}")
    for i, m in enumerate(maps):
        if not m.is_floating_point():
            raise TypeError(f"maps[{i}] must hold attention weights (floats), got dtype {m.dtype}")
    dtype = maps[0].dtype
    for m in maps[1:]:
        dtype = torch.promote_types(dtype, m.dtype)  # mixed float32 / float64: computed in float64
    maps = [m.to(dtype) for m in maps]
    tolerance = max(1e-3, 10 * torch.finfo(dtype).eps)
    for i, m in enumerate(maps):
        if not torch.isfinite(m).all():
            raise ValueError(f"maps[{i}] holds NaN or infinite values")
        if (m < 0).any() or ((m.sum(-1) - 1).abs() > tolerance).any():
            raise ValueError(
                f"maps[{i}] is not attention weights: each row must be >= 0 and sum to 1 (a "
                f"softmax), got values in [{float(m.min()):.3g}, {float(m.max()):.3g}] and row "
                f"sums in [{float(m.sum(-1).min()):.3g}, {float(m.sum(-1).max()):.3g}] -- raw "
                "logits? apply .softmax(-1) first"
            )
    return maps


def target(target: object, batch: int) -> torch.Tensor:
    """Class indices (B,) as int64, from a tensor, an array or a sequence of ints."""
    if isinstance(target, torch.Tensor):
        tensor = target
    elif isinstance(target, list | tuple | np.ndarray):
        try:
            tensor = torch.as_tensor(np.asarray(target))
        except (TypeError, ValueError, RuntimeError):
            raise TypeError(f"target must hold class indices, got {describe(target)}") from None
    else:
        raise TypeError(f"target must be a tensor of class indices (B,), got {describe(target)}")
    if tensor.dtype.is_floating_point or tensor.dtype.is_complex or tensor.dtype == torch.bool:
        raise TypeError(f"target must hold integer class indices, got dtype {tensor.dtype}")
    if tensor.shape != (batch,):
        raise ValueError(
            f"target must have shape ({batch},): one class per image, got {tuple(tensor.shape)}"
        )
    if (tensor < 0).any():
        raise ValueError(
            f"target must hold class indices 0 .. K-1, got {int(tensor.min())} (a negative "
            "index is not a class)"
        )
    return tensor.long()


def similarity(similarity: object) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(N, N) float64 similarity, neighbour mask and mask of the other patches, from a grid."""
    from .learned_position import grid_neighbours

    similarity = check_tensor("similarity", similarity, ndim=4)
    rows, cols = similarity.shape[:2]
    if similarity.shape[2:] != (rows, cols):
        raise ValueError(f"similarity must have shape (H, W, H, W), got {tuple(similarity.shape)}")
    if not similarity.is_floating_point():
        raise TypeError(f"similarity must hold floats, got dtype {similarity.dtype}")
    if not torch.isfinite(similarity).all():
        raise ValueError("similarity holds NaN or infinite values")
    near = grid_neighbours((rows, cols))  # (N, N)
    far = ~near & ~torch.eye(rows * cols, dtype=torch.bool)  # (N, N): neither itself nor near
    if not far.any(1).all() or not near.any(1).all():
        raise ValueError(
            f"similarity is of a {rows} x {cols} grid, where some patch has no "
            f"{'other patch that is not a neighbour' if near.any(1).all() else 'neighbour'} "
            "to compare with: the grid needs at least 2 x 2 or 1 x 4 patches"
        )
    return similarity.reshape(rows * cols, rows * cols).double(), near, far


def train_where_am_i(model: object, images: object, grid_size: object) -> tuple:
    """A ViT whose patch grid is ``grid_size`` and whose head has rows + cols outputs, and
    images (n, C, H, W) for it."""
    from .vit import ViT

    if not isinstance(model, ViT):
        raise TypeError(f"model must be a vitexplain ViT, got {type(model).__name__}")
    images = check_tensor("images", images, ndim=4)
    rows, cols = check_size2("grid_size", grid_size)
    if tuple(model.patch_embed.grid_size) != (rows, cols):
        raise ValueError(
            f"grid_size={(rows, cols)} is not the model's patch grid "
            f"{tuple(model.patch_embed.grid_size)} (rows first)"
        )
    if model.num_tokens != rows * cols or model.head.out_features != rows + cols:
        raise ValueError(
            f"a {rows} x {cols} grid needs a model with {rows * cols} tokens and "
            f"{rows + cols} outputs, got {model.num_tokens} and {model.head.out_features}"
        )
    return images, rows, cols


# --- interpret.py -----------------------------------------------------------------------------


def attention_rollout(maps_: object, residual: object) -> tuple[list[torch.Tensor], bool]:
    """Attention maps (:func:`maps`) and a bool."""
    return maps(maps_), check_bool("residual", residual)


def mean_attention_distance(maps_, grid_size, patch_size, num_prefix_tokens) -> tuple:
    """Maps of ``num_prefix_tokens`` + rows x cols tokens, a patch size in pixels."""
    maps_ = maps(maps_)
    rows, cols = check_size2("grid_size", grid_size)
    patch_size = check_int("patch_size", patch_size)
    p = check_int("num_prefix_tokens", num_prefix_tokens, minimum=0)
    if maps_[0].shape[-1] != p + rows * cols:
        raise ValueError(
            f"maps have {maps_[0].shape[-1]} tokens, expected num_prefix_tokens={p} + grid_size "
            f"{rows} x {cols} = {p + rows * cols}"
        )
    return maps_, (rows, cols), patch_size, p


def occlusion_map(model, images, patch_size, value, target_) -> tuple:
    """A model, images (B, C, H, W) in its dtype cut by ``patch_size``, a fill value (a real
    number), targets (B,) or None; the B x N occluded copies must fit in memory. Returns
    ``(images, patch_size, target)``: the model and the value are used as given."""
    model = check_module("model", model)
    images = check_dtype("images", check_tensor("images", images, ndim=4), model)
    check_number("value", value)
    images, patch_size = patchify(images, patch_size)
    b, n = images.shape[0], images.shape[-2] // patch_size * (images.shape[-1] // patch_size)
    target_ = None if target_ is None else target(target_, b)
    check_elements(
        f"occluding each of the {n} patches of {b} images: {b} x {n} images of "
        f"{images.shape[1:].numel():,} values",
        b * n * images.shape[1:].numel(),
        images.element_size(),
    )
    return images, patch_size, target_


def target_classes(target: torch.Tensor, classes: int) -> torch.Tensor:
    """Targets that are classes of a model with ``classes`` outputs."""
    if len(target) and int(target.max()) >= classes:
        raise ValueError(
            f"target holds class {int(target.max())}, but the model has {classes} classes "
            f"(0 .. {classes - 1})"
        )
    return target


def logit_lens(model: object, images: object) -> tuple[nn.Module, torch.Tensor]:
    """A ViT (``blocks``, ``norm``, ``head``) and images (B, C, H, W) in its dtype."""
    model = check_module("model", model)
    if not all(hasattr(model, a) for a in ("blocks", "norm", "head")):
        raise TypeError(
            f"model must be a ViT with blocks, norm and head, got {type(model).__name__}"
        )
    return model, check_dtype("images", check_tensor("images", images, ndim=4), model)


def embedding_components(model: object, k: object) -> tuple[nn.Module, int]:
    """A ViT whose tokenizer is a PatchEmbed, and k no more than its components."""
    from .patches import PatchEmbed

    model = check_module("model", model)
    if not isinstance(getattr(model, "patch_embed", None), PatchEmbed):
        raise TypeError(
            f"model must be a vitexplain ViT (with a patch_embed of linear filters), got "
            f"{type(model).__name__}: its tokenizer has no P x P patch filters"
        )
    k = check_int("k", k)
    components = min(model.patch_embed.proj.weight.shape)
    if k > components:
        raise ValueError(f"k={k} is more than the {components} components there are")
    return model, k


def _pair(a: object, b: object, finite: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """Two real tensors (B, ...) or (M,) of one shape."""
    values = {"finite": True} if finite else {"values": True}
    a = check_tensor("a", a, min_ndim=1, real=True, **values)
    b = check_tensor("b", b, min_ndim=1, real=True, **values)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have one shape, got {tuple(a.shape)} and {tuple(b.shape)}")
    return a, b


def rank_correlation(a: object, b: object) -> tuple[torch.Tensor, torch.Tensor]:
    """Two real tensors of one shape, (B, ...) or (M,), at least 2 finite values per picture
    and no picture constant (its ranks would all tie)."""
    a, b = _pair(a, b, finite=False)
    flat_a = (a[None] if a.ndim == 1 else a).flatten(1)  # (B, M)
    if flat_a.shape[1] < 2:
        raise ValueError(
            f"a and b need at least 2 values per picture to rank, got shape {tuple(flat_a.shape)}"
        )
    for name, t in (("a", a), ("b", b)):
        t = (t[None] if t.ndim == 1 else t).flatten(1)  # (B, M)
        if not torch.isfinite(t).all():
            raise ValueError(f"{name} holds NaN or infinite values, which have no rank")
        flat = (t == t[:, :1]).all(1).nonzero().flatten().tolist()  # constant pictures
        if flat:
            raise ValueError(
                f"{name}[{flat[0]}] is constant ({len(flat)} constant pictures in all): all its "
                "values tie, so its rank correlation is undefined"
            )
    return a, b


def patch_attention(maps_: object, num_prefix_tokens: object) -> tuple[list[torch.Tensor], int]:
    """Attention maps with patch tokens after ``num_prefix_tokens`` prefix tokens."""
    maps_ = maps(maps_)
    p = check_int("num_prefix_tokens", num_prefix_tokens, minimum=0)
    if maps_[0].shape[-1] <= p:
        raise ValueError(
            f"num_prefix_tokens must leave patch tokens: maps have {maps_[0].shape[-1]} tokens, "
            f"got num_prefix_tokens={p}"
        )
    return maps_, p


def reference_attention(grid_size: object, kind: object, num_prefix_tokens: object) -> tuple:
    """A grid, one of the four kinds, and a map small enough to hold."""
    rows, cols = check_size2("grid_size", grid_size)
    p = check_int("num_prefix_tokens", num_prefix_tokens, minimum=0)
    kinds = ("self", "neighbours", "uniform", "farthest")
    if kind not in kinds:
        raise ValueError(f"kind must be one of {kinds}, got {kind!r}")
    check_elements(
        f"grid_size {rows} x {cols}: a map of {p + rows * cols} tokens squared",
        (p + rows * cols) ** 2,
    )
    return (rows, cols), kind, p


def top_k_overlap(a: object, b: object, k: object) -> tuple[torch.Tensor, torch.Tensor, int]:
    """Two finite real tensors of one shape and k no more than the entries per row."""
    a, b = _pair(a, b, finite=True)
    k = check_int("k", k)
    per_row = a[0].numel() if a.ndim > 1 else 1
    if k > per_row:
        raise ValueError(f"k must be at most the {per_row} entries per row, got {k}")
    return a, b, k


# --- scramble.py ------------------------------------------------------------------------------


def make_scramble_dataset(n, seed, image, patch_size, max_shift, noise, return_orders) -> tuple:
    """An even n >= 2, a seed, a picture (H, W) (the Mountain when None) cut into at least two
    patches, a shift, a noise level, a flag; n pictures must fit in memory."""
    from .data import load_mountains

    n = check_int("n", n, minimum=2)
    if n % 2:
        raise ValueError(f"n must be even (intact and scrambled twins), got {n}")
    seed = check_int("seed", seed, minimum=0)
    patch_size = check_int("patch_size", patch_size)
    max_shift = check_int("max_shift", max_shift, minimum=0)
    noise = check_number("noise", noise, minimum=0.0)
    return_orders = check_bool("return_orders", return_orders)
    picture = load_mountains() if image is None else check_image("image", image)
    height, width = picture.shape
    check_divides("patch_size", patch_size, height, width)
    check_elements(f"n={n} pictures of {height} x {width} pixels", n * height * width)
    if (height // patch_size) * (width // patch_size) < 2:
        raise ValueError(
            f"a {height} x {width} image has 1 patch of side {patch_size}: nothing to scramble"
        )
    return n, seed, picture, patch_size, max_shift, noise, return_orders


def swap_patches(images: object, patch_size: object, a: object, b: object) -> tuple:
    """Images (B, C, H, W) cut by ``patch_size``, and two patch indices."""
    images = check_tensor("images", images, ndim=4)
    images, patch_size = patchify(images, patch_size)
    count = (images.shape[-2] // patch_size) * (images.shape[-1] // patch_size)
    a, b = check_index("a", a, count, "patches"), check_index("b", b, count, "patches")
    return images, patch_size, a, b


def probe(model: object, images: object, value: object = 0.0) -> tuple:
    """A module, images (B, C, H, W) and a fill value (the patch size is left to patchify)."""
    model, images = check_module("model", model), check_tensor("images", images, ndim=4)
    return model, images, check_number("value", value)


# --- training.py, learned_position.py ---------------------------------------------------------


def evaluate(model: object, images: object, labels: object, batch_size: object) -> tuple:
    """A module, labelled images for it (:func:`labelled`), a batch size."""
    model = check_module("model", model)
    images, labels = labelled(model, images, labels)
    return model, images, labels, check_int("batch_size", batch_size)


def random_shift(images: object, max_shift: object, generator: object) -> tuple:
    """Images (B, C, H, W), a shift smaller than their sides, a torch.Generator."""
    images = check_tensor("images", images, ndim=4)
    max_shift = check_int("max_shift", max_shift, minimum=0)
    if max_shift >= min(images.shape[-2:]):
        raise ValueError(
            f"max_shift must be smaller than the images' height and width "
            f"{tuple(images.shape[-2:])}, got {max_shift}"
        )
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    return images, max_shift, generator


def position_targets(grid_size: object, sigma: object) -> tuple[int, int, float]:
    """A grid and a width at least 0; the targets must fit in memory."""
    rows, cols = check_size2("grid_size", grid_size)
    sigma = check_number("sigma", sigma, minimum=0)
    check_elements(f"targets of grid_size {rows} x {cols}", rows * cols * max(rows, cols))
    return rows, cols, sigma


def vit_images(model: object, images: object) -> tuple:
    """A vitexplain ViT and images (B, C, H, W) of its channels, size and dtype."""
    from .vit import ViT

    if not isinstance(model, ViT):
        raise TypeError(f"model must be a vitexplain ViT, got {type(model).__name__}")
    embed = model.patch_embed
    images = check_tensor("images", images, ndim=4)
    images = check_image_batch(images, embed.in_chans, embed.img_size, "images")
    return model, check_dtype("images", images, model)


def grid_neighbours(grid_size: object) -> tuple[int, int]:
    """A grid whose N x N neighbour matrix fits in memory."""
    rows, cols = check_size2("grid_size", grid_size)
    check_elements(
        f"the neighbours of grid_size {rows} x {cols}: {rows * cols} squared", (rows * cols) ** 2
    )
    return rows, cols


def grid_similarity(table: object, grid_size: object, num_prefix_tokens: object) -> tuple:
    """A finite real table (prefix + rows * cols, D) (or a ViT's (1, ..., D)), as (T, D)."""
    table = check_tensor("table", table, real=True, finite=True)
    if table.ndim == 3 and table.shape[0] == 1:
        table = table[0]  # (N + prefix, D)
    rows, cols = check_size2("grid_size", grid_size)
    prefix = check_int("num_prefix_tokens", num_prefix_tokens, minimum=0)
    if table.ndim != 2 or table.shape[0] != prefix + rows * cols:
        raise ValueError(
            f"table must have shape ({prefix + rows * cols}, D) for num_prefix_tokens={prefix} "
            f"and grid_size {rows} x {cols}, got shape {tuple(table.shape)}"
        )
    return table, (rows, cols), prefix


def neighbour_wins(similarity_: object, margin: object) -> tuple:
    """A similarity grid (:func:`similarity`) and a margin at least 0."""
    return *similarity(similarity_), check_number("margin", margin, minimum=0)


# --- digits.py --------------------------------------------------------------------------------


def train_digits(recipe: object, seed: object, epochs: object, validation: object) -> tuple:
    """A recipe of ``DIGITS_RECIPES``, a seed, an epoch count (None: the recipe's), a bool."""
    from .digits import DIGITS_RECIPES

    recipe = check_str("recipe", recipe, sorted(DIGITS_RECIPES))
    seed = check_int("seed", seed, minimum=0)
    epochs = None if epochs is None else check_int("epochs", epochs)
    return recipe, seed, epochs, check_bool("validation", validation)


# --- data.py ----------------------------------------------------------------------------------


def mountain_at_dusk(height: object, width: object, minimum: int) -> tuple[int, int]:
    """Two sides of at least ``minimum`` pixels whose picture fits in memory."""
    height = check_int("height", height, minimum=minimum)
    width = check_int("width", width, minimum=minimum)
    check_elements(f"a picture of height={height} x width={width}", height * width)
    return height, width


def path(name: str, value: object) -> Path:
    """A file path: a str or an ``os.PathLike``."""
    if not isinstance(value, str | os.PathLike):
        raise TypeError(f"{name} must be a str, a Path or None, got {describe(value)}")
    return Path(value)


def trained_digits_vit(pos_embed: object) -> Path:
    """The weights file of the shipped model ``pos_embed`` ("learned" or "none"), if it exists."""
    from .digits import WEIGHTS_DIR

    pos_embed = check_str("pos_embed", pos_embed, ("learned", "none"))
    path = WEIGHTS_DIR / f"digits_vit_{pos_embed}.pt"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: `make weights` trains and saves it")
    return path


def token_transformer(dim: object, out_dim: object, mlp_ratio: object) -> tuple[int, int, int]:
    """The token widths in and out, and the MLP's hidden width ``mlp_ratio * out_dim``."""
    dim, out_dim = check_int("dim", dim), check_int("out_dim", out_dim)
    return dim, out_dim, mlp_hidden(out_dim, mlp_ratio)


# --- figure texts: plotting/files.py, explore.py ------------------------------------------------

#: A caption is one numbered sentence: "Figure 3.9 — ...".
CAPTION_PATTERN = re.compile(r"Figure \d+\.\d+ — \S.*")
#: Alt text says what the figure shows: at least this many words.
MIN_ALT_WORDS = 4


def alt_text(alt: object) -> str:
    """Alt text: a str of at least four words saying what the figure shows."""
    if not isinstance(alt, str):
        raise TypeError(f"alt must be a str (a sentence saying what the figure shows), got {alt!r}")
    if len(alt.split()) < MIN_ALT_WORDS:
        raise ValueError(
            f"alt must say what the figure shows in at least {MIN_ALT_WORDS} words, got {alt!r}"
        )
    return alt


def caption_text(caption: object, example: str) -> str | None:
    """None, or one numbered sentence such as ``example``."""
    if caption is not None and (
        not isinstance(caption, str) or not CAPTION_PATTERN.fullmatch(caption)
    ):
        raise ValueError(
            "caption must read 'Figure <notebook>.<k> — <one sentence>.', such as "
            f"'{example}', got {caption!r}"
        )
    return caption


def interact_figure(draw: object, controls: dict, alt: object, caption: object) -> None:
    """A drawing function, at least one control, alt text (or a function making it), a caption."""
    if not callable(draw):
        raise TypeError(f"draw must be a function returning a Figure, got {type(draw).__name__}")
    if not controls:
        raise ValueError("interact_figure needs at least one control, e.g. patch_size=Choice(...)")
    if alt is not None and not callable(alt):
        alt_text(alt)
    caption_text(caption, "Figure 1.9 — The patch grid and the tokens for one patch size.")
