"""Figures to bytes, to the screen and to files: deterministic PNG, a small GIF, alt text.

A notebook shows each figure with :func:`display_figure` (or :func:`display_gif`): the figure is
displayed with its alt text and written to a file only when the environment variable
``VITEXPLAIN_FIGURES_DIR`` names a folder (``make figures`` and ``make test`` set it), so running a
notebook writes nothing the reader did not ask for. ``save_figure`` and ``save_gif`` write where
they are told, for a reader who wants a file.
"""

from __future__ import annotations

import base64
import html
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "display_figure",
    "display_gif",
    "FIGURES_DIR_VARIABLE",
    "figure_html",
    "figure_to_array",
    "figure_to_png",
    "gif_bytes",
    "save_figure",
    "save_gif",
]

#: A caption is one numbered sentence: "Figure <notebook>.<k> — <sentence>".
CAPTION_PATTERN = re.compile(r"Figure \d+\.\d+ — \S.*")


def check_alt_and_caption(
    alt: object, caption: object, example: str = "Figure 1.2 — Token 12 as a strip of 400 numbers."
) -> None:
    """Refuse alt text of fewer than four words and a caption not numbered as ``example`` is."""
    if not isinstance(alt, str) or len(alt.split()) < 4:
        raise ValueError(f"alt must say what the figure shows in at least 4 words, got {alt!r}")
    if caption is not None and not CAPTION_PATTERN.fullmatch(str(caption)):
        raise ValueError(
            "caption must read 'Figure <notebook>.<k> — <one sentence>.', such as "
            f"'{example}', got {caption!r}"
        )


def _check_display(name: object, alt: object, caption: object) -> None:
    """A bare file name (or None), alt text and a caption (:func:`check_alt_and_caption`)."""
    if name is not None and (
        not isinstance(name, str) or not name or Path(name).name != name or "." in name
    ):
        raise ValueError(
            "name must be a bare file name without folder or suffix, such as '01_token12' "
            f"(or None: never saved), got {name!r}"
        )
    check_alt_and_caption(alt, caption)


def figure_to_array(fig: Figure) -> np.ndarray:
    """Render a figure in memory and return its pixels.

    Args:
        fig: the figure.

    Returns:
        uint8 array of shape (height, width, 3), RGB.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


FIGURES_DIR_VARIABLE = "VITEXPLAIN_FIGURES_DIR"
"""The environment variable naming the folder :func:`display_figure` also saves into."""


def _figures_dir() -> Path | None:
    folder = os.environ.get(FIGURES_DIR_VARIABLE)
    return Path(folder) if folder else None


def figure_html(data: bytes, image_format: str, alt: str, caption: str | None) -> str:
    """The HTML of a figure: the image inline (base64), its alt text, its visible caption.

    JupyterLab, nbconvert and the static site all render this ``<figure>`` as it is, so the alt
    text reaches a screen reader and the caption every reader (JupyterLab's own image renderer
    ignores alt text in output metadata).

    Args:
        data: the image file's bytes.
        image_format: ``"png"`` or ``"gif"``.
        alt: the full description, for the ``<img alt>``.
        caption: one numbered sentence shown under the image, or None.

    Returns:
        One line of HTML.
    """
    source = f"data:image/{image_format};base64,{base64.b64encode(data).decode('ascii')}"
    image = f'<img src="{source}" alt="{html.escape(alt, quote=True)}">'
    figcaption = "" if caption is None else f"<figcaption>{html.escape(caption)}</figcaption>"
    return f'<figure class="vx-figure">{image}{figcaption}</figure>'


def _save_and_show(
    data: bytes, name: str | None, image_format: str, alt: str, caption: str | None
) -> None:
    """Write ``<name>.<format>`` into $VITEXPLAIN_FIGURES_DIR when it is set; display the figure."""
    from IPython.display import display

    folder = _figures_dir()
    if folder is not None and name is not None:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.{image_format}").write_bytes(data)
    # One output bundle: the figure as HTML (image, alt, caption), and the caption as plain text
    # for a front end without HTML. nbval compares both (tests/nbval_sanitize.cfg hides the
    # image's bytes, which may differ between CPUs; scripts/compare_figures.py checks those).
    plain = caption if caption is not None else f"[figure: {alt}]"
    bundle = {"text/html": figure_html(data, image_format, alt, caption), "text/plain": plain}
    display(bundle, raw=True)


def display_figure(
    fig: Figure, name: str | None, *, alt: str, caption: str | None = None, dpi: int = 100
) -> None:
    """Show a figure in the notebook with alt text and a caption; save it only when asked to.

    The figure is rendered once, to the PNG bytes :func:`figure_to_png` makes, and displayed as
    an HTML ``<figure>`` (:func:`figure_html`): the PNG inline with ``alt`` as its alt text, and
    ``caption`` under it. Nothing is written to disk unless the environment variable
    ``VITEXPLAIN_FIGURES_DIR`` names a folder: then the same bytes go to ``<folder>/<name>.png``
    (``make figures`` points it at ``figures/``, ``make test`` at a temporary folder). A reader
    running a notebook in JupyterLab, or from a pip install, gets the figure on screen and no file.

    Args:
        fig: the figure.
        name: file name without folder or suffix, e.g. ``"01_token12"``; None for a figure that
            is only shown, never saved (one whose pixels depend on the CPU, say).
        alt: the full description: what the figure shows and what to notice in it.
        caption: one numbered sentence shown under the figure, ``"Figure 1.2 — ..."``.
        dpi: resolution of the PNG.
    """
    _check_display(name, alt, caption)
    _save_and_show(figure_to_png(fig, dpi=dpi), name, "png", alt, caption)


def display_gif(
    frames: Sequence[np.ndarray],
    name: str | None,
    *,
    alt: str,
    caption: str | None = None,
    fps: float = 10.0,
) -> None:
    """Show an animation in the notebook, with alt text and a caption; save it only when asked to.

    Like :func:`display_figure`: the GIF is built in memory (:func:`gif_bytes`), displayed inline
    in an HTML ``<figure>``, and written to ``$VITEXPLAIN_FIGURES_DIR/<name>.gif`` only when that
    variable is set.

    Args:
        frames: uint8 arrays of shape (H, W, 3), all the same shape.
        name: file name without folder or suffix, e.g. ``"05_softsplit"``; None: never saved.
        alt: the full description: what the animation shows and what to notice in it.
        caption: one numbered sentence shown under the animation, ``"Figure 5.1 — ..."``.
        fps: frames per second.
    """
    _check_display(name, alt, caption)
    _save_and_show(gif_bytes(frames, fps=fps), name, "gif", alt, caption)


def _target(path: object, suffix: str) -> Path:
    """The file a save function writes (its suffix checked, its folder made)."""
    path = Path(path)
    if path.suffix.lower() != suffix:
        raise ValueError(f"path must end in {suffix}, got {str(path)!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def save_figure(fig: Figure, path: str | Path, dpi: int = 100) -> Path:
    """Write a figure as a PNG whose bytes depend only on the figure (no software/date stamps).

    Args:
        fig: the figure.
        path: file to write (``.png``); parent folders are created.
        dpi: resolution.

    Returns:
        The path written.
    """
    path = _target(path, ".png")
    path.write_bytes(figure_to_png(fig, dpi=dpi))
    return path


def gif_bytes(frames: Sequence[np.ndarray], fps: float = 10.0) -> bytes:
    """Encode frames as a looping GIF with one shared palette, in memory.

    The palette (at most 256 colours, no dithering) is taken from a sample of the frames (up to
    eight, evenly spaced, first and last included, at half resolution), so colours that appear
    only in later frames get entries too; every frame is mapped onto it, so flat figure colours
    stay flat and the file stays small.

    Args:
        frames: uint8 arrays of shape (H, W, 3), all the same shape (e.g. from
            :func:`figure_to_array`).
        fps: frames per second.

    Returns:
        The GIF file's bytes.
    """
    from io import BytesIO

    from PIL import Image

    frames = [_as_uint8(f, i) for i, f in enumerate(frames)]  # a generator of frames too
    shapes = sorted({f.shape for f in frames})
    if len(shapes) != 1 or len(shapes[0]) != 3 or shapes[0][2] != 3:
        raise ValueError(f"frames must be one or more arrays of one shape (H, W, 3), got {shapes}")
    sample = np.linspace(0, len(frames) - 1, min(len(frames), 8)).round().astype(int)
    stacked = np.concatenate([np.asarray(frames[i], dtype=np.uint8)[::2, ::2] for i in sample])
    palette = Image.fromarray(stacked).quantize(colors=256, dither=Image.Dither.NONE)
    indexed = [
        Image.fromarray(np.asarray(f, dtype=np.uint8)).quantize(
            palette=palette, dither=Image.Dither.NONE
        )
        for f in frames
    ]
    # Written as paletted frames: converting them back to RGB made the writer quantise each
    # frame again (two thirds of the time). Pillow stores each frame as its change to the last.
    buffer = BytesIO()
    indexed[0].save(
        buffer, format="GIF", save_all=True, append_images=indexed[1:], duration=1000 / fps, loop=0
    )
    return buffer.getvalue()


def _as_uint8(frame: np.ndarray, index: int) -> np.ndarray:
    """A frame as uint8: floats in [0, 1] are scaled by 255, integers must lie in 0..255."""
    frame = np.asarray(frame)
    if frame.dtype == np.uint8:
        return frame
    if frame.dtype.kind == "f" and 0 <= frame.min() and frame.max() <= 1:
        return np.round(frame * 255).astype(np.uint8)
    if frame.dtype.kind in "iu" and 0 <= frame.min() and frame.max() <= 255:
        return frame.astype(np.uint8)
    raise ValueError(f"frames[{index}] must be uint8, floats in [0, 1] or ints in 0..255")


def save_gif(frames: Sequence[np.ndarray], path: str | Path, fps: float = 10.0) -> Path:
    """Write frames as a looping GIF (the bytes of :func:`gif_bytes`).

    Args:
        frames: uint8 arrays of shape (H, W, 3), all the same shape.
        path: file to write (``.gif``); parent folders are created.
        fps: frames per second.

    Returns:
        The path written.
    """
    path = _target(path, ".gif")
    path.write_bytes(gif_bytes(frames, fps=fps))
    return path


def figure_to_png(fig: Figure, dpi: int = 100) -> bytes:
    """Render a figure to PNG bytes in memory, the same bytes :func:`save_figure` writes.

    Args:
        fig: the figure.
        dpi: resolution.

    Returns:
        The PNG file's bytes (no software/date stamps, so equal figures give equal bytes): an
        8-bit PNG, the figure's colours mapped onto a palette of at most 256 (Pillow's
        max-coverage quantizer, no dithering). On the series' figures this moves a pixel by at
        most 15 of 255 levels (RMS under 3) and makes the files about a third of Matplotlib's
        RGBA PNGs (2.2 MB -> 0.75 MB for the 40 figures; the 176 x 768 table of notebook 03,
        54 KB instead of 247 KB), which keeps every notebook under 1 MB.
    """
    from io import BytesIO

    from PIL import Image

    buffer = BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    except RuntimeError as error:  # FreeType cannot draw text a fraction of a pixel high
        raise ValueError(f"dpi={dpi:g} is too small to draw the figure's text ({error})") from None
    rgb = Image.open(buffer).convert("RGB")  # figures are opaque: the alpha channel is all 255
    paletted = rgb.quantize(colors=256, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
    out = BytesIO()
    paletted.save(out, format="PNG")
    return out.getvalue()
