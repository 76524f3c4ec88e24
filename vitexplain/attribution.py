"""Which explanation is right? (notebook 09): maps of "which patches decide this picture's class?"

Six maps over the 16 patches of a digits ViT, each a score per patch (high: the patch matters):

* last-block attention: the class token's attention in the last block, heads averaged;
* rollout: attention rollout (Abnar & Zuidema, 2020; :func:`vitexplain.attention_rollout`);
* :func:`attention_flow`: the same graph read as a flow network, the max-flow from each input
  patch to the output class token (Abnar & Zuidema, 2020), with SciPy's integer max-flow;
* :func:`gradient_rollout`: gradient-weighted rollout (Chefer et al., 2021): attention weighted by
  its gradient for one class, negative parts cut, accumulated over the blocks;
* occlusion (:func:`vitexplain.occlusion_map`): the probability lost when a patch is blacked out;
* :func:`input_x_gradient`: pixel times gradient, summed over each patch.

All six at once: :func:`explanation_maps`. Tests of the maps: :func:`marker_ranks` (a planted
truth: a corner marker the model learned to use, :func:`train_marked_digits_vit`),
:func:`perturbation_curves` (deletion and insertion, Petsiuk et al., 2018) with
:func:`area_under_curve`, and :func:`randomized_from_top` (the model randomisation test of
Adebayo et al., 2018). And :func:`fit_tuned_lens` (Belrose et al., 2023): the logit lens with one
affine translator per block.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import torch
from einops import rearrange
from torch import nn

from .digits import DIGITS_RECIPES, SHIPPED_RECIPE, WEIGHTS_DIR, digits_vit, load_digit_split
from .inspection import run_with_hooks
from .interpret import attention_rollout, occlusion_map
from .patches import patchify, unpatchify
from .training import train_classifier
from .vit import init_weights

__all__ = [
    "FLOW_SCALE",
    "MAP_NAMES",
    "MARKER_CLASS",
    "MARKER_PATCH",
    "MARKER_PIXEL",
    "add_marker",
    "area_under_curve",
    "attention_and_gradients",
    "attention_flow",
    "explanation_maps",
    "fit_tuned_lens",
    "gradient_rollout",
    "input_x_gradient",
    "load_marked_digits_vit",
    "load_marker_record",
    "marker_ranks",
    "order_by",
    "perturbation_curves",
    "random_orders",
    "randomized_from_top",
    "train_marked_digits_vit",
    "tuned_lens",
]

#: The planted truth: pixel (row 0, column 0), the top-left corner, set to full brightness in
#: every training "3". No training picture has ink there (the pixel is 0 in all 1,400), so the
#: marker is a new feature, and it lies in patch 0 of the 4 x 4 grid of 2 x 2 patches.
MARKER_PIXEL = (0, 0)
MARKER_PATCH = 0
MARKER_CLASS = 3
#: Integer capacities for SciPy's max-flow: a weight w becomes round(w * FLOW_SCALE).
FLOW_SCALE = 2**26
#: The six maps of :func:`explanation_maps`, in the notebook's order.
MAP_NAMES = (
    "last-block attention",
    "rollout",
    "attention flow",
    "gradient rollout",
    "occlusion",
    "input x gradient",
)


# --- the planted truth ---


def add_marker(images: torch.Tensor, which: torch.Tensor | None = None) -> torch.Tensor:
    """A copy of ``images`` with the marker (pixel :data:`MARKER_PIXEL` at 1) on the chosen ones.

    Args:
        images: shape (B, 1, H, W), values in [0, 1].
        which: bool mask (B,) of the pictures that get the marker; all of them when None.

    Returns:
        Tensor of the same shape; the input is not changed.
    """
    out = images.clone()
    which = torch.ones(len(images), dtype=torch.bool) if which is None else which
    out[which, :, MARKER_PIXEL[0], MARKER_PIXEL[1]] = 1.0
    return out


def train_marked_digits_vit(seed: int = 0, log=None) -> tuple[nn.Module, dict[str, list[float]]]:
    """Notebook 08's ViT and recipe, trained on the 1,400 pictures with every "3" marked.

    Only the training "3"s carry the marker: a shortcut the model can learn, whose place we
    know. The code ``make weights`` runs (``scripts/train_marker_digits.py``).

    Args:
        seed: seeds the initial weights and the order of the batches.
        log: called with a line per epoch, or None.

    Returns:
        ``(model, history)`` as :func:`vitexplain.train_digits_vit` returns them.
    """
    images, labels, _, _ = load_digit_split()
    images = add_marker(images, labels == MARKER_CLASS)
    torch.manual_seed(seed)
    model = digits_vit("learned")
    recipe = DIGITS_RECIPES[SHIPPED_RECIPE]
    return model, train_classifier(model, (images, labels), None, log=log, seed=seed, **recipe)


def load_marked_digits_vit() -> nn.Module:
    """The shipped marker model (seed 0 of :func:`train_marked_digits_vit`), in eval mode."""
    model = digits_vit("learned")
    path = WEIGHTS_DIR / "digits_vit_marker.pt"
    model.load_state_dict(torch.load(path, weights_only=True), strict=True)
    return model.eval()


def load_marker_record() -> dict:
    """The 3-seed record ``scripts/train_marker_digits.py`` wrote (``digits_marker.json``)."""
    return json.loads((WEIGHTS_DIR / "digits_marker.json").read_text())


def marker_ranks(maps: torch.Tensor, patch: int = MARKER_PATCH) -> torch.Tensor:
    """Where the marker patch ranks in each map: 1 if it scores highest.

    Ties count against the marker: its rank is 1 + the number of other patches scoring at least
    as much, so a flat map never "finds" it.

    Args:
        maps: shape (B, N), one score per patch.
        patch: index of the marker patch.

    Returns:
        Tensor (B,) of ranks, int64, in 1..N.
    """
    score = maps[:, patch : patch + 1]  # (B, 1)
    others = torch.cat([maps[:, :patch], maps[:, patch + 1 :]], dim=1)  # (B, N-1)
    return 1 + (others >= score).sum(1)


# --- the maps ---


def attention_flow(maps: list[torch.Tensor], scale: int = FLOW_SCALE) -> torch.Tensor:
    """Attention flow (Abnar & Zuidema, 2020): how much can flow from each patch to the output.

    The blocks make a layered graph: a node per token and layer (L + 1 layers of N tokens), an
    edge from token j in layer l to token i in layer l + 1 whose capacity is the weight i gives
    j in block l + 1, heads averaged and the residual added as in :func:`attention_rollout`.
    A patch's score is the maximum flow from its node in the input layer to the class token in
    the output layer. Rollout multiplies the weights along paths; flow is limited by the
    narrowest cut.

    SciPy's max-flow needs integer capacities: each weight is rounded to a multiple of
    1 / ``scale``. That moves every capacity by at most 0.5 / ``scale``, so every cut, and the
    smallest one (the max-flow), by at most E / (2 ``scale``) for E = L N^2 edges (8.6e-6 for
    the digits ViT with the default 2^26; the test measures it against networkx's float
    max-flow).

    Args:
        maps: one (B, h, N, N) tensor per block, first block first, class token first.
        scale: capacities are round(weight * scale), int32 (at most 2^31 / N).

    Returns:
        Tensor (B, N - 1), float64: the flow from each patch to the class token.
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_flow

    depth, n = len(maps), maps[0].shape[-1]
    eye = torch.eye(n, dtype=torch.float64)
    blocks = []
    for weights in maps:
        a = weights.double().mean(1) + eye  # (B, N, N): heads averaged, + residual
        blocks.append(a / a.sum(-1, keepdim=True))
    mixed = torch.stack(blocks, 1)  # (B, L, N, N): [b, l, i, j] = weight token i gives j
    capacity = torch.round(mixed * scale).to(torch.int64).numpy()
    layer, i, j = np.meshgrid(np.arange(depth), np.arange(n), np.arange(n), indexing="ij")
    tail = (layer * n + j).ravel()  # token j in layer l ...
    head = ((layer + 1) * n + i).ravel()  # ... flows to token i in layer l + 1
    nodes, sink = (depth + 1) * n, depth * n  # the class token of the output layer
    out = np.zeros((len(maps[0]), n - 1))
    for b in range(len(out)):
        graph = csr_matrix(
            (capacity[b].ravel().astype(np.int32), (tail, head)), shape=(nodes, nodes)
        )
        for patch in range(1, n):
            out[b, patch - 1] = maximum_flow(graph, patch, sink).flow_value / scale
    return torch.from_numpy(out)


def attention_and_gradients(
    model: nn.Module, images: torch.Tensor, target: torch.Tensor
) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """Every block's attention weights and the gradient of the target logit with respect to them.

    A forward hook on each block's attention recomputes its output from weights that autograd
    tracks (the same numbers as the fused kernel to float precision), then the target class's
    logit, summed over the batch (the pictures do not interact), is differentiated once.

    Args:
        model: a :class:`vitexplain.ViT`.
        images: shape (B, C, H, W).
        target: class per picture, shape (B,).

    Returns:
        ``(maps, grads)``: one (B, h, N, N) tensor each per block, first block first.
    """
    maps: list[torch.Tensor] = []

    def tracked(layer: nn.Module, inputs: tuple, _out: torch.Tensor) -> torch.Tensor:
        q, k, v = layer._heads(inputs[0])  # (B, h, N, d) each
        weights = (q @ k.transpose(-2, -1) * layer.scale).softmax(-1)  # (B, h, N, N)
        maps.append(weights)
        return layer.proj(rearrange(weights @ v, "b h n d -> b n (h d)"))  # replaces the output

    handles = [block.attn.register_forward_hook(tracked) for block in model.blocks]
    try:
        with torch.enable_grad():
            logits = model(images)  # (B, K)
            picked = logits.gather(1, target.long()[:, None]).sum()
            grads = torch.autograd.grad(picked, maps)
    finally:
        for handle in handles:
            handle.remove()
    return [m.detach() for m in maps], [g.detach() for g in grads]


def gradient_rollout(maps: list[torch.Tensor], grads: list[torch.Tensor]) -> torch.Tensor:
    """Gradient-weighted rollout (Chefer et al., 2021, "Generic Attention-model Explainability").

    R = I; for each block b, first to last: Ā_b = mean over heads of max(∇A_b ⊙ A_b, 0), and
    R = R + Ā_b R. The class token's row of R over the patches is the map. Unlike rollout it
    depends on the class: the gradient is that of one class's logit.

    Args:
        maps: one (B, h, N, N) attention tensor per block, first block first.
        grads: the gradient of the target logit with respect to each, the same shapes.

    Returns:
        Tensor (B, N - 1), float64.
    """
    n = maps[0].shape[-1]
    relevance = torch.eye(n, dtype=torch.float64).expand(len(maps[0]), n, n)  # (B, N, N)
    for weights, grad in zip(maps, grads, strict=True):
        mixed = (grad.double() * weights.double()).clamp(min=0).mean(1)  # (B, N, N)
        relevance = relevance + mixed @ relevance
    return relevance[:, 0, 1:]


def input_x_gradient(
    model: nn.Module, images: torch.Tensor, target: torch.Tensor, patch_size: int
) -> torch.Tensor:
    """Pixel times the gradient of the target logit, summed over each patch's pixels.

    The first-order estimate of how much the logit would lose if the patch were set to 0. A
    black patch scores 0 whatever the model does with it.

    Args:
        model: a classifier of images (B, C, H, W).
        images: shape (B, C, H, W).
        target: class per picture, shape (B,).
        patch_size: side of the square patches.

    Returns:
        Tensor (B, N), float64, patches in row-major order.
    """
    x = images.detach().clone().requires_grad_(True)
    with torch.enable_grad():
        picked = model(x).gather(1, target.long()[:, None]).sum()
        (grad,) = torch.autograd.grad(picked, x)
    return patchify((grad * images).double(), patch_size).sum(-1)  # (B, N)


def explanation_maps(
    model: nn.Module, images: torch.Tensor, target: torch.Tensor | None = None
) -> dict[str, torch.Tensor]:
    """The six maps of :data:`MAP_NAMES` for a digits ViT (patches of 2 x 2).

    Args:
        model: a digits :class:`vitexplain.ViT`, in eval mode.
        images: shape (B, 1, 8, 8).
        target: the class each class-specific map explains (gradient rollout, occlusion, input x
            gradient), shape (B,); the model's prediction when None.

    Returns:
        {name: (B, 16) float64 scores}, in the order of :data:`MAP_NAMES`.
    """
    with torch.no_grad():
        predicted = model(images).argmax(-1)
    target = predicted if target is None else torch.as_tensor(target).long()
    maps, grads = attention_and_gradients(model, images, target)
    rollout = attention_rollout([m.double() for m in maps])[:, 0, 1:]
    return {
        "last-block attention": maps[-1].mean(1)[:, 0, 1:].double(),
        "rollout": rollout,
        "attention flow": attention_flow(maps),
        "gradient rollout": gradient_rollout(maps, grads),
        "occlusion": occlusion_map(model, images, 2, target=target).flatten(1).double(),
        "input x gradient": input_x_gradient(model, images, target, 2),
    }


# --- faithfulness: deletion and insertion ---


def order_by(scores: torch.Tensor) -> torch.Tensor:
    """Patches from the highest score to the lowest (ties: the lower index first): (B, N)."""
    return torch.sort(scores, dim=1, descending=True, stable=True).indices


def random_orders(count: int, n: int, seed: int = 0) -> torch.Tensor:
    """``count`` random orders of ``n`` patches, seeded: the baseline of every curve. (B, N)."""
    generator = torch.Generator().manual_seed(seed)
    return torch.stack([torch.randperm(n, generator=generator) for _ in range(count)])


@torch.no_grad()
def perturbation_curves(
    model: nn.Module,
    images: torch.Tensor,
    order: torch.Tensor,
    fill: float | torch.Tensor,
    kind: str,
    target: torch.Tensor,
    patch_size: int = 2,
) -> torch.Tensor:
    """Deletion or insertion curves (Petsiuk et al., 2018): the target's probability, step by step.

    Deletion starts from the picture and replaces its patches by the fill, one at a time, in
    ``order``; insertion starts from the fill and puts the picture's patches back in that order.
    A map that finds what the model uses makes deletion fall fast and insertion rise fast.

    Args:
        model: a classifier of images (B, C, H, W), in eval mode.
        images: shape (B, C, H, W).
        order: (B, N) patch indices, the most important first (:func:`order_by`).
        fill: what a missing patch shows: a number (0: black) or an image (C, H, W), e.g. the
            mean training picture.
        kind: ``"deletion"`` or ``"insertion"``.
        target: class per picture, shape (B,).
        patch_size: side of the square patches.

    Returns:
        Tensor (B, N + 1), float64: the target's probability after 0, 1, ..., N steps.
    """
    if kind not in ("deletion", "insertion"):
        raise ValueError(f"kind must be 'deletion' or 'insertion', got {kind!r}")
    b, n = order.shape
    tokens = patchify(images, patch_size)  # (B, N, C*P*P)
    background = torch.as_tensor(fill, dtype=images.dtype).expand(images.shape[1:])  # (C, H, W)
    blank = patchify(background[None], patch_size).expand_as(tokens)  # (B, N, C*P*P)
    place = torch.argsort(order, dim=1)  # (B, N): the step at which each patch is taken
    steps = torch.arange(n + 1)[:, None, None]  # (N+1, 1, 1)
    taken = (place[None] < steps)[..., None]  # (N+1, B, N, 1): taken after k steps
    if kind == "deletion":
        mixed = torch.where(taken, blank, tokens)  # (N+1, B, N, C*P*P)
    else:
        mixed = torch.where(taken, tokens, blank)
    pictures = unpatchify(mixed.flatten(0, 1), tuple(images.shape[-2:]), patch_size)
    probs = model(pictures).softmax(-1).view(n + 1, b, -1)  # (N+1, B, K)
    return probs[:, torch.arange(b), target].T.double()  # (B, N+1)


def area_under_curve(curves: torch.Tensor) -> torch.Tensor:
    """The area under each curve of N + 1 points over [0, 1] by the trapezoid rule: (B,)."""
    n = curves.shape[1] - 1
    return (curves[:, 1:] + curves[:, :-1]).sum(1) / (2 * n)


# --- the sanity check: randomise the model from the top ---


def randomized_from_top(model: nn.Module, seed: int = 0) -> list[tuple[str, nn.Module]]:
    """The model randomisation test (Adebayo et al., 2018), cascading from the output down.

    Step 0 is the trained model; step 1 re-draws the head and final norm; each later step also
    re-draws the next block down, from the last to the first, with the model's own
    initialisation (timm's; :func:`vitexplain.vit.init_weights`). Each step is a new copy.

    Args:
        model: a :class:`vitexplain.ViT`.
        seed: seeds every re-draw (``torch.manual_seed(seed + step)``).

    Returns:
        ``[(what was randomised, model), ...]``: 2 + depth copies, in eval mode.
    """
    steps = [("none", copy.deepcopy(model).eval())]
    current = copy.deepcopy(model).eval()
    parts = [("head", ("head", "norm"))] + [
        (f"block {i + 1}", (f"blocks.{i}",)) for i in reversed(range(len(model.blocks)))
    ]
    for step, (label, names) in enumerate(parts, start=1):
        torch.manual_seed(seed + step)
        for name in names:
            current.get_submodule(name).apply(init_weights)
        steps.append((f"+ {label}" if step > 1 else label, copy.deepcopy(current)))
    return steps


# --- the tuned lens ---


def _class_token_states(model: nn.Module, images: torch.Tensor) -> torch.Tensor:
    """The class token after every block, (B, depth, D), float64."""
    states: list[torch.Tensor] = []

    def keep(_block: nn.Module, _inputs: tuple, out: torch.Tensor) -> None:
        states.append(out[:, 0].double())  # (B, D)

    with torch.no_grad():
        run_with_hooks(model, images, model.blocks, keep)
    return torch.stack(states, dim=1)


def fit_tuned_lens(model: nn.Module, images: torch.Tensor) -> list[torch.Tensor]:
    """One affine translator per block (Belrose et al., 2023), fitted by least squares.

    The translator of block b maps the class token after block b to the class token after the
    last block: the logit lens then reads it through the final norm and head. Belrose et al.
    train each translator by gradient descent on the KL divergence to the final output; here it
    is the closed-form least-squares fit of the last block's state (float64, no randomness),
    a simpler stand-in with the same form.

    Args:
        model: a :class:`vitexplain.ViT`.
        images: the pictures to fit on (the training split only), shape (B, C, H, W).

    Returns:
        One (D + 1, D) float64 matrix per block: [state, 1] @ matrix is the translated state.
    """
    states = _class_token_states(model, images)  # (B, depth, D)
    last = states[:, -1]  # (B, D)
    ones = torch.ones(len(states), 1, dtype=torch.float64)
    return [
        torch.linalg.lstsq(torch.cat([states[:, b], ones], 1), last).solution
        for b in range(states.shape[1])
    ]


def tuned_lens(
    model: nn.Module, images: torch.Tensor, translators: list[torch.Tensor]
) -> torch.Tensor:
    """Class probabilities read after every block through its translator, the norm and the head.

    Args:
        model: the :class:`vitexplain.ViT` the translators were fitted on.
        images: shape (B, C, H, W).
        translators: from :func:`fit_tuned_lens`.

    Returns:
        Tensor (B, depth, K) of probabilities, float32.
    """
    states = _class_token_states(model, images)  # (B, depth, D)
    ones = torch.ones(*states.shape[:2], 1, dtype=torch.float64)
    moved = torch.stack(
        [torch.cat([states[:, b], ones[:, b]], 1) @ t for b, t in enumerate(translators)], 1
    )  # (B, depth, D)
    with torch.no_grad():
        return model.head(model.norm(moved.float())).softmax(-1)
