"""Reading a trained ViT (notebook 08): where it looks, what it uses, and what its layers hold.

Where it looks: :func:`attention_rollout` (Abnar & Zuidema, 2020) chains the attention maps of
all blocks; :func:`mean_attention_distance` measures how far, in pixels, each head reaches (the
ViT paper's Figure 7, right). What it uses: :func:`occlusion_map` hides one patch at a time and
measures how much the predicted class loses. What the layers hold: :func:`logit_lens` reads the
class token after every block through the final norm and head; :func:`embedding_components` gives
the principal components of the patch embedding's filters (Figure 7, left).
"""

from __future__ import annotations

import functools

import torch
from torch import nn

from .inspection import run_with_hooks
from .patches import patchify, unpatchify

__all__ = [
    "attention_rollout",
    "embedding_components",
    "logit_lens",
    "mean_attention_distance",
    "occlusion_map",
    "attention_entropy",
    "fixed_top_key",
    "rank_correlation",
    "reference_attention",
    "top_k_overlap",
    "top_key_share",
]


def attention_rollout(maps: list[torch.Tensor], residual: bool = True) -> torch.Tensor:
    """How much each token's output draws on each input token, through all the blocks.

    For each block: average the heads, add the identity for the residual connection (half of
    what flows on is the token itself), renormalise the rows; then multiply the blocks' matrices,
    the last block on the left: R = A_L ... A_2 A_1.

    Args:
        maps: one (B, h, N, N) tensor per block, first block first, as
            :func:`vitexplain.attention_maps` returns them.
        residual: add the identity before renormalising (False: the plain product of attentions).

    Returns:
        Tensor of shape (B, N, N): row i says where output token i's information came from; each
        row sums to 1. For a ViT, row 0 is the class token.
    """
    dtype = functools.reduce(torch.promote_types, [m.dtype for m in maps])  # the widest
    n = maps[0].shape[-1]
    rollout = torch.eye(n, dtype=dtype).expand(maps[0].shape[0], n, n)  # (B, N, N)
    for weights in maps:
        a = weights.to(dtype).mean(dim=1)  # (B, N, N): heads averaged
        if residual:
            a = a + torch.eye(n, dtype=a.dtype)
            a = a / a.sum(dim=-1, keepdim=True)  # rows sum to 1 again
        rollout = a @ rollout  # the later block on the left
    return rollout


def _patch_centres(grid_size: tuple[int, int], patch_size: int) -> torch.Tensor:
    rows, cols = grid_size
    r, c = torch.meshgrid(torch.arange(rows), torch.arange(cols), indexing="ij")
    return torch.stack([r.flatten(), c.flatten()], dim=1).double() * patch_size  # (N, 2)


def mean_attention_distance(
    maps: list[torch.Tensor],
    grid_size: int | tuple[int, int],
    patch_size: int,
    num_prefix_tokens: int = 1,
) -> torch.Tensor:
    """How far each head looks: the attention-weighted distance between query and key patches.

    For every query patch, the distance in pixels from its patch to each key patch (between patch
    centres) is weighted by the attention it pays there, renormalised over the patch keys (the
    class token has no place); averaged over query patches and images. The ViT paper's Figure 7
    (right) plots this per head against depth.

    Args:
        maps: one (B, h, N, N) tensor per block, the prefix tokens (class token) first.
        grid_size: (rows, cols) of the patch grid.
        patch_size: side of a patch in pixels.
        num_prefix_tokens: tokens before the patches (1 for the class token).

    Returns:
        Tensor of shape (depth, h): mean distance in pixels, per block and head.
    """
    grid_size = (grid_size, grid_size) if isinstance(grid_size, int) else tuple(grid_size)
    p = num_prefix_tokens
    centres = _patch_centres(grid_size, patch_size)  # (N, 2)
    distance = torch.cdist(centres, centres)  # (N, N) pixels
    out = []
    for weights in maps:
        w = weights[..., p:, p:].double()  # (B, h, N, N): patches to patches
        w = w / w.sum(dim=-1, keepdim=True)
        out.append((w * distance).sum(-1).mean(dim=(0, 2)))  # (h,)
    return torch.stack(out)  # (depth, h)


@torch.no_grad()
def occlusion_map(
    model: nn.Module,
    images: torch.Tensor,
    patch_size: int,
    value: float = 0.0,
    target: torch.Tensor | None = None,
) -> torch.Tensor:
    """How much the model relies on each patch: the probability it loses when the patch is hidden.

    Each patch in turn is filled with ``value``; the drop of the softmax probability of the
    target class (by default the class the model predicts for the intact image) is that patch's
    score. A large drop means the decision needs that patch; a score near 0 means it does not.

    Args:
        model: a classifier of images (B, C, H, W) -> logits (B, K), in eval mode.
        images: shape (B, C, H, W).
        patch_size: side P of the square patches (must divide H and W).
        value: what a hidden patch is filled with (0: black, for the digits).
        target: class per image, shape (B,); the model's prediction when None.

    Returns:
        Tensor of shape (B, H/P, W/P): the drop in probability per patch (negative when hiding a
        patch makes the model surer).
    """
    tokens = patchify(images, patch_size)  # (B, N, C*P*P)
    b, n, _ = tokens.shape
    probs = model(images).softmax(-1)  # (B, K)
    if target is None:
        target = probs.argmax(-1)  # (B,)
    target = torch.as_tensor(target).long()  # (B,): a tensor, an array or a list of classes
    hidden = tokens[:, None].repeat(1, n, 1, 1)  # (B, N occluded copies, N, C*P*P)
    hidden[:, torch.arange(n), torch.arange(n)] = value  # copy i has patch i hidden
    occluded = unpatchify(hidden.flatten(0, 1), tuple(images.shape[-2:]), patch_size)
    occluded_probs = model(occluded).softmax(-1).view(b, n, probs.shape[-1])  # (B, N, K)
    picked = torch.arange(b)
    drop = probs[picked, target][:, None] - occluded_probs[picked, :, target]  # (B, N)
    rows, cols = images.shape[-2] // patch_size, images.shape[-1] // patch_size
    return drop.view(b, rows, cols)


@torch.no_grad()
def logit_lens(model: nn.Module, images: torch.Tensor) -> torch.Tensor:
    """What the class token would predict after each block: the final norm and head read early.

    Args:
        model: a :class:`vitexplain.ViT` (``blocks``, ``norm``, ``head``; class token first).
        images: shape (B, C, H, W).

    Returns:
        Tensor of shape (B, depth, K): class probabilities read after block 1, 2, ..., depth; the
        last equals the model's own prediction.
    """
    states: list[torch.Tensor] = []

    def keep_class_token(_block: nn.Module, _inputs: tuple, out: torch.Tensor) -> None:
        states.append(out[:, 0])  # (B, D)

    run_with_hooks(model, images, model.blocks, keep_class_token)
    cls = torch.stack(states, dim=1)  # (B, depth, D): the class token after each block
    return model.head(model.norm(cls)).softmax(-1)  # (B, depth, K)


def embedding_components(model: nn.Module, k: int = 8) -> tuple[torch.Tensor, torch.Tensor]:
    """The principal components of the patch embedding's filters (the ViT paper's Figure 7, left).

    Each of the D rows of ``patch_embed.proj.weight`` is a filter over a C x P x P patch; the
    components are the directions in pixel space along which the filters vary most.

    Args:
        model: a :class:`vitexplain.ViT`.
        k: how many components.

    Returns:
        ``(components, explained)``: components of shape (k, C, P, P), unit length, sign fixed so
        that the largest entry is positive; the share of the filters' variance each explains (k,).
    """
    weight = model.patch_embed.proj.weight.detach().double()  # (D, C*P*P)
    centred = weight - weight.mean(dim=0)
    _, s, vh = torch.linalg.svd(centred, full_matrices=False)  # vh: (r, C*P*P)
    components = vh[:k]
    flip = torch.sign(components.gather(1, components.abs().argmax(1, keepdim=True)))  # (k, 1)
    components = components * flip
    explained = (s**2 / (s**2).sum())[:k]
    c, p = model.patch_embed.in_chans, model.patch_embed.patch_size
    return components.view(k, c, p, p).float(), explained.float()


def rank_correlation(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Spearman's rank correlation of each picture's values in ``a`` with the same in ``b``.

    The first axis counts the pictures, the rest are one picture's values: (B, M) or a map per
    picture (B, rows, cols). A 2-D input is therefore B pictures of M values each; for one
    picture's (rows, cols) map, pass ``a[None]`` (or the 1-D ``a.flatten()``).

    Args:
        a: shape (B, ...) with at least 2 values per picture, or (M,) for one picture.
        b: the same shape.

    Returns:
        Tensor of shape (B,) (0-d for 1-D inputs), in [-1, 1], float64. Ties get their average
        rank. A picture whose values are all equal has no ranking: it is refused.
    """
    single = a.ndim == 1
    a, b = (a[None] if single else a).flatten(1), (b[None] if single else b).flatten(1)  # (B, M)
    a, b = a.double(), b.double()

    from scipy.stats import rankdata

    def ranks(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(rankdata(x.cpu().numpy(), axis=1))  # (B, M); ties: mean rank

    ra, rb = ranks(a), ranks(b)
    ra, rb = ra - ra.mean(1, keepdim=True), rb - rb.mean(1, keepdim=True)
    rho = (ra * rb).sum(1) / (ra.norm(dim=1) * rb.norm(dim=1))  # (B,)
    return rho[0] if single else rho


# --- local or global? measures that mean attention distance cannot replace (notebook 08) ---


def _patch_attention(maps: list[torch.Tensor], num_prefix_tokens: int) -> list[torch.Tensor]:
    """Each block's patch-to-patch attention, rows renormalised over the patch keys, float64."""
    p = num_prefix_tokens
    out = []
    for weights in maps:
        w = weights[..., p:, p:].double()  # (B, h, N, N)
        out.append(w / w.sum(dim=-1, keepdim=True))
    return out


def attention_entropy(maps: list[torch.Tensor], num_prefix_tokens: int = 1) -> torch.Tensor:
    """How spread each head's attention is: the entropy of a patch query's weights on the patches.

    A query that puts all its weight on one patch has entropy 0; one that spreads it evenly over
    N patches has log N (2.77 nats for 16). Unlike the mean attention distance, the entropy tells
    a head fixed on one far patch from a head that looks everywhere.

    Args:
        maps: one (B, h, T, T) tensor per block, the ``num_prefix_tokens`` prefix tokens first.
        num_prefix_tokens: tokens before the patches (1 for the class token); their keys are
            dropped and each patch query's weights renormalised over the patch keys.

    Returns:
        Tensor of shape (depth, h): the entropy in nats, averaged over patch queries and images.
    """
    out = []
    for w in _patch_attention(maps, num_prefix_tokens):
        out.append(torch.special.entr(w).sum(-1).mean(dim=(0, 2)))  # -w log w, 0 log 0 = 0; (h,)
    return torch.stack(out)  # (depth, h)


def top_key_share(maps: list[torch.Tensor], num_prefix_tokens: int = 1) -> torch.Tensor:
    """How much of a patch query's attention its single most-attended patch takes.

    1 for a head that looks at one patch only, 1/N for uniform attention over N patches.

    Args:
        maps: one (B, h, T, T) tensor per block, the prefix tokens first.
        num_prefix_tokens: tokens before the patches; weights renormalised over patch keys.

    Returns:
        Tensor of shape (depth, h): the largest weight of each patch query, averaged over patch
        queries and images.
    """
    out = [w.amax(-1).mean(dim=(0, 2)) for w in _patch_attention(maps, num_prefix_tokens)]
    return torch.stack(out)  # (depth, h)


def fixed_top_key(maps: list[torch.Tensor], num_prefix_tokens: int = 1) -> torch.Tensor:
    """Does a head look at the same patch whatever the picture? The stability of its top key.

    For each block, head and patch query, the patch it attends most is found in every image;
    the score is the share of images whose top key is that query's most frequent one (1: the
    same patch in every image; near 1/N if the top key moved at random).

    Args:
        maps: one (B, h, T, T) tensor per block, the prefix tokens first.
        num_prefix_tokens: tokens before the patches.

    Returns:
        Tensor of shape (depth, h, N): per block, head and patch query, the share of images
        (in [0, 1]) in which the most frequent top key is the top key.
    """
    out = []
    for w in _patch_attention(maps, num_prefix_tokens):
        b, _, n, _ = w.shape
        top = w.argmax(-1)  # (B, h, N)
        counts = torch.nn.functional.one_hot(top, n).sum(0)  # (h, N, N keys)
        out.append(counts.amax(-1).double() / b)  # (h, N)
    return torch.stack(out)  # (depth, h, N)


def reference_attention(
    grid_size: int | tuple[int, int], kind: str, num_prefix_tokens: int = 1
) -> torch.Tensor:
    """Attention maps of known reach, to measure real heads against (one image, one head).

    Args:
        grid_size: (rows, cols) of the patch grid.
        kind: ``"self"`` (each patch attends to itself only), ``"neighbours"`` (itself and its
            up to 4 edge neighbours, evenly), ``"uniform"`` (every patch alike) or
            ``"farthest"`` (each patch on the patch farthest from it; ties share evenly).
        num_prefix_tokens: prefix tokens placed first (they get no weight).

    Returns:
        Tensor of shape (1, 1, T, T) with T = prefix + rows * cols; rows sum to 1 (prefix rows
        attend to themselves).
    """
    rows, cols = (grid_size, grid_size) if isinstance(grid_size, int) else grid_size
    p = num_prefix_tokens
    kinds = ("self", "neighbours", "uniform", "farthest")
    if kind not in kinds:
        raise ValueError(f"kind must be one of {kinds}, got {kind!r}")
    centres = _patch_centres((rows, cols), 1)  # (N, 2) in patch steps
    distance = torch.cdist(centres, centres)  # (N, N)
    n = rows * cols
    if kind == "self":
        w = torch.eye(n, dtype=torch.float64)
    elif kind == "neighbours":
        w = (distance <= 1.0 + 1e-9).double()  # itself and its edge neighbours
    elif kind == "uniform":
        w = torch.ones(n, n, dtype=torch.float64)
    else:
        w = (distance >= distance.amax(-1, keepdim=True) - 1e-9).double()
    w = w / w.sum(-1, keepdim=True)
    full = torch.eye(p + n, dtype=torch.float64)
    full[p:, p:] = w
    return full[None, None]  # (1, 1, T, T)


def top_k_overlap(a: torch.Tensor, b: torch.Tensor, k: int = 1) -> torch.Tensor:
    """How many of the k largest entries of each row of ``a`` are among the k largest of ``b``.

    With M entries per row and no relation between the two, the expected overlap is k / M of the
    k (for k = 1 on 16 patches: 6.25 %).

    Args:
        a: shape (B, M) (or any (B, ...) flattened to it).
        b: the same shape.
        k: how many entries to compare; among equal values the lower index counts as larger
            (a stable sort), so the result is the same on every CPU.

    Returns:
        Tensor of shape (B,): the share of ``a``'s top k among ``b``'s top k, in [0, 1].
    """
    a, b = a.flatten(1), b.flatten(1)  # (B, M)

    def top(x: torch.Tensor) -> torch.Tensor:
        order = torch.sort(x, dim=1, descending=True, stable=True).indices[:, :k]  # (B, k)
        return torch.nn.functional.one_hot(order, x.shape[1]).sum(1)  # (B, M): 1 in the top k

    return (top(a) * top(b)).sum(1).double() / k
