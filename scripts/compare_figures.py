"""Compare the figures a test run wrote with the committed ones in ``figures/`` (``make test``).

nbval compares the notebooks' text outputs but skips images, so this is the check that a figure
still looks as committed. ``make test`` runs the notebooks with ``VITEXPLAIN_FIGURES_DIR`` set to a
temporary folder (``figures/`` stays untouched), then calls::

    python scripts/compare_figures.py FRESH_DIR [--reference figures] [--tol 1.0]

It fails (exit 1) when the two folders hold different sets of figures, or when a figure differs
from its committed version by more than ``--tol``: the root-mean-square difference of the pixel
values (0-255), as ``matplotlib.testing.compare.compare_images`` measures it. A failing figure is
named, with a diff image written next to the fresh one. Sub-pixel noise between CPUs (a handful of
anti-aliased edge pixels) stays far below the tolerance; a moved label, a changed colour or a
different number drawn in the figure does not.

GIFs are compared frame by frame with the same measure. Files that only the browser test writes
(``lab_*.png``) are not notebook figures and are left out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

FIGURE_SUFFIXES = (".png", ".gif")
NOT_FROM_NOTEBOOKS = ("lab_",)  # screenshots of the browser test (make e2e)


def figure_names(folder: Path) -> set[str]:
    """Names of the notebook figures in ``folder``."""
    return {
        p.name
        for p in folder.iterdir()
        if p.suffix in FIGURE_SUFFIXES and not p.name.startswith(NOT_FROM_NOTEBOOKS)
    }


def rms(a: np.ndarray, b: np.ndarray) -> float:
    """Root-mean-square difference of two images' pixel values (0-255)."""
    return float(np.sqrt(np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)))


def compare_png(fresh: Path, reference: Path, tol: float) -> str | None:
    """None when the PNGs agree within ``tol``, else a message (a diff image is written)."""
    from matplotlib.testing.compare import compare_images

    result = compare_images(str(reference), str(fresh), tol=tol, in_decorator=True)
    if result is None:
        return None
    return f"RMS {result['rms']:.3f} > {tol} (diff image: {result['diff']})"


def compare_gif(fresh: Path, reference: Path, tol: float) -> str | None:
    """None when the GIFs have the same frames within ``tol``, else a message."""
    import imageio.v3 as iio

    new, old = iio.imread(fresh, index=None), iio.imread(reference, index=None)
    if new.shape != old.shape:
        return f"frames of shape {new.shape} where the committed GIF has {old.shape}"
    for index, (a, b) in enumerate(zip(new, old, strict=True)):
        error = rms(a[..., :3], b[..., :3])
        if error > tol:
            diff = fresh.with_name(f"{fresh.stem}-frame{index:02d}-failed-diff.png")
            iio.imwrite(diff, np.abs(a[..., :3].astype(np.int16) - b[..., :3]).astype(np.uint8))
            return f"frame {index}: RMS {error:.3f} > {tol} (diff image: {diff})"
    return None


def compare(fresh_dir: Path, reference_dir: Path, tol: float) -> list[str]:
    """Every difference between the fresh figures and the committed ones, as messages."""
    fresh, committed = figure_names(fresh_dir), figure_names(reference_dir)
    problems = [f"{n}: in {reference_dir}/ but not written" for n in sorted(committed - fresh)]
    problems += [f"{n}: written but not in {reference_dir}/" for n in sorted(fresh - committed)]
    for name in sorted(fresh & committed):
        check = compare_gif if name.endswith(".gif") else compare_png
        message = check(fresh_dir / name, reference_dir / name, tol)
        if message:
            problems.append(f"{name}: {message}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fresh", type=Path, help="folder the test run wrote its figures into")
    parser.add_argument("--reference", type=Path, default=Path("figures"))
    parser.add_argument("--tol", type=float, default=1.0, help="largest RMS pixel difference")
    args = parser.parse_args()
    problems = compare(args.fresh, args.reference, args.tol)
    count = len(figure_names(args.fresh))
    if problems:
        print(f"{len(problems)} figure(s) differ from {args.reference}/:", *problems, sep="\n  ")
        return 1
    print(f"{count} figures match {args.reference}/ (RMS <= {args.tol})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
