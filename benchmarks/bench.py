"""Benchmarks: vitexplain against the same computation built from PyTorch's own modules.

Run with ``python benchmarks/bench.py`` (or ``make bench``). Each comparison runs both sides in this
one process, interleaved (ours, reference, ours, reference, ...), and reports the median time of
each side and their ratio (ours / reference: below 1 is faster). The reference networks receive
our weights, and their outputs are checked equal before anything is timed.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import torch
from torch import nn

import vitexplain as vx

# The brute-force references of the tests: one definition of each, in tests/reference.py.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from reference import relative_to_absolute_loop, sinusoid_encoding_loop  # noqa: E402


def interleaved(
    fns: dict[str, Callable[[], object]], repeats: int, warmup: int = 2
) -> dict[str, float]:
    """Median seconds of each function, calling them in turn ``repeats`` times after a warm-up."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


class ReferenceViT(nn.Module):
    """The same network from PyTorch's own modules: Conv2d patches + nn.TransformerEncoder."""

    def __init__(self, ours: vx.ViT) -> None:
        super().__init__()
        dim, heads = ours.embed_dim, ours.blocks[0].attn.num_heads
        patch, chans = ours.patch_embed.patch_size, ours.patch_embed.in_chans
        self.conv = nn.Conv2d(chans, dim, patch, stride=patch)
        self.cls_token = nn.Parameter(ours.cls_token.detach().clone())
        self.register_buffer("pos_embed", ours.pos_embed.clone())
        layer = nn.TransformerEncoderLayer(dim, heads, batch_first=True)  # replaced just below
        self.encoder = nn.TransformerEncoder(layer, len(ours.blocks), enable_nested_tensor=False)
        self.encoder.layers = nn.ModuleList(vx.to_torch_encoder_layer(b) for b in ours.blocks)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, ours.head.out_features)
        with torch.no_grad():
            self.conv.weight.copy_(ours.patch_embed.proj.weight.view_as(self.conv.weight))
            self.conv.bias.copy_(ours.patch_embed.proj.bias)
            for a, b in ((ours.norm, self.norm), (ours.head, self.head)):
                b.weight.copy_(a.weight)
                b.bias.copy_(a.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv(x).flatten(2).transpose(1, 2)  # (B, N, D)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embed
        return self.head(self.norm(self.encoder(x))[:, 0])  # (B, classes)


def bench_vit(repeats: int) -> list[tuple[str, float, float]]:
    torch.manual_seed(0)
    ours = vx.ViT(
        224, 16, in_chans=3, num_classes=1000, embed_dim=384, depth=4, num_heads=6, qkv_bias=True
    )
    ref = ReferenceViT(ours)
    x = torch.randn(8, 3, 224, 224)
    ours.eval(), ref.eval()
    with torch.inference_mode():
        diff = (ours(x) - ref(x)).abs().max().item()
    assert diff < 1e-4, f"the two networks disagree by {diff}"

    def infer(model: nn.Module) -> Callable[[], object]:
        def run() -> None:
            with torch.inference_mode():
                model(x)

        return run

    def train_step(model: nn.Module) -> Callable[[], object]:
        def run() -> None:
            model.zero_grad(set_to_none=True)
            model(x).logsumexp(-1).mean().backward()

        return run

    rows = []
    t = interleaved({"ours": infer(ours), "ref": infer(ref)}, repeats)
    rows.append(("ViT inference, batch 8 (vs Conv2d + TransformerEncoder)", t["ours"], t["ref"]))
    ours.train(), ref.train()
    t = interleaved({"ours": train_step(ours), "ref": train_step(ref)}, repeats)
    rows.append(
        ("ViT training step, batch 8 (vs Conv2d + TransformerEncoder)", t["ours"], t["ref"])
    )
    return rows


def _skew_contiguous(x: torch.Tensor) -> torch.Tensor:
    return vx.relative_to_absolute(x).contiguous()


def bench_skew(repeats: int) -> list[tuple[str, float, float]]:
    """The skew (a strided view, made contiguous so that both sides write an (L, L) array)
    against a gather with ``relative_index``, at L = 64 and 256; the loop once, at L = 64."""
    rows = []
    for length in (64, 256):
        x = torch.randn(8, length, 2 * length - 1)
        index = vx.relative_index(length).expand(8, length, length)
        gathered = x.gather(-1, index)
        assert torch.equal(vx.relative_to_absolute(x), gathered)
        assert torch.equal(vx.skew_steps(x)[-1][1], gathered)
        sides = {
            "skew": partial(_skew_contiguous, x),
            "gather": partial(torch.gather, x, -1, index),
        }
        t = interleaved(sides, repeats)
        shape = f"(8, {length}, {2 * length - 1})"
        name = f"relative_to_absolute + contiguous, {shape} (vs gather)"
        rows.append((name, t["skew"], t["gather"]))
        if length == 64:
            start = time.perf_counter()
            assert torch.equal(relative_to_absolute_loop(x), gathered)
            loop = time.perf_counter() - start
            rows.append((f"relative_to_absolute, {shape} (vs Python loop)", t["skew"], loop))
    return rows


def bench_sinusoid(repeats: int) -> list[tuple[str, float, float]]:
    t = interleaved({"ours": lambda: vx.sinusoid_encoding(4096, 768)}, repeats)
    start = time.perf_counter()
    reference = sinusoid_encoding_loop(4096, 768)
    loop = time.perf_counter() - start
    assert torch.allclose(vx.sinusoid_encoding(4096, 768).double(), reference, atol=1e-5)
    return [("sinusoid_encoding(4096, 768) (vs Python loop)", t["ours"], loop)]


def bench_gif(repeats: int = 5) -> str:
    """Build figures/05_softsplit.gif as notebook 05 does (k = 20, s = 10, p = 5), in a temp dir.

    The first build in a process also pays Matplotlib's one-time start (fonts, the Agg canvas);
    it is reported apart from the median of the next ``repeats`` builds.
    """
    picture = vx.load_mountains()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats + 1):
            start = time.perf_counter()
            frames = vx.softsplit_frames(picture, 20, 10, 5)
            drawn = time.perf_counter()
            path = vx.save_gif(frames, Path(tmp) / "softsplit.gif", fps=4)
            done = time.perf_counter()
            runs.append((done - start, drawn - start, done - drawn))
        size = path.stat().st_size
    first, rest = runs[0], sorted(runs[1:])
    total, drawing, writing = rest[len(rest) // 2]
    return (
        f"softsplit GIF, {len(frames)} frames of {frames[0].shape[1]} x {frames[0].shape[0]}, "
        f"{size / 1024:.0f} KB: {total:.2f} s ({drawing:.2f} s drawing, {writing:.2f} s writing), "
        f"median of {repeats}; the first build in the process {first[0]:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="timed calls of each side")
    args = parser.parse_args()
    torch.manual_seed(0)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__} "
        f"({torch.get_num_threads()} threads), Python {sys.version.split()[0]}"
    )
    rows = bench_vit(args.repeats) + bench_skew(args.repeats) + bench_sinusoid(args.repeats)
    print(f"\n| {'benchmark':<62} | {'ours (ms)':>10} | {'reference (ms)':>14} | {'ratio':>6} |")
    print(f"|{'-' * 64}|{'-' * 12}:|{'-' * 16}:|{'-' * 7}:|")
    for name, ours, ref in rows:
        print(f"| {name:<62} | {ours * 1e3:>10.2f} | {ref * 1e3:>14.2f} | {ours / ref:>6.3f} |")
    print("\n" + bench_gif())


if __name__ == "__main__":
    main()
