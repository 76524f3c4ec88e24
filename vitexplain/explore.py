"""The "Explore" sections of the notebooks: controls (sliders) that redraw a figure.

``ipywidgets.interact`` shows its function's result inside an ``Output`` widget. nbclient, which
``make figures`` uses to re-execute the notebooks, routes such output through a hook that fails
with a ``KeyError`` when it runs with ``store_widget_state=False`` (the setting that keeps random
widget ids out of the stored notebooks). :func:`interact_figure` does the same job without an
``Output`` widget: the figure is rendered to PNG and shown in an ``ipywidgets.Image``, so the
notebooks execute headless, and in JupyterLab the sliders work as with ``interact``.

ipywidgets is needed only here (it comes with the ``dev`` extra and JupyterLab), so it is
imported when the function is called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from matplotlib.figure import Figure

from .plotting import figure_to_png

if TYPE_CHECKING:
    import ipywidgets

__all__ = [
    "interact_figure",
]


def interact_figure(
    draw: Callable[..., Figure], **controls: ipywidgets.ValueWidget
) -> ipywidgets.VBox:
    """Controls that redraw a figure whenever one of their values changes.

    Each control's ``value`` is passed to ``draw`` under the control's keyword; the figure is
    drawn once at the start and again after every change (with ``continuous_update=False`` on a
    slider, when the slider is released).

    Args:
        draw: function of the controls' keywords that returns a ``matplotlib.figure.Figure``.
        **controls: ipywidgets value widgets, e.g. ``patch_size=SelectionSlider(...)``.

    Returns:
        An ``ipywidgets.VBox`` holding the controls, then the figure as an ``ipywidgets.Image``
        (``box.children[-1]``); display it, or leave it as the cell's value.
    """
    try:
        import ipywidgets as widgets
    except ImportError as error:  # pragma: no cover - ipywidgets is in the dev environment
        raise ImportError(
            "interact_figure needs ipywidgets: pip install ipywidgets (or use `make lab`)"
        ) from error

    if not callable(draw):
        raise TypeError(f"draw must be a function returning a Figure, got {type(draw).__name__}")
    if not controls:
        raise ValueError("interact_figure needs at least one control, e.g. patch_size=slider")
    for name, control in controls.items():
        if not isinstance(control, widgets.ValueWidget):
            raise TypeError(
                f"control {name}= must be an ipywidgets value widget, got {type(control).__name__}"
            )
    image = widgets.Image(format="png")

    def redraw(_change: object = None) -> None:
        fig = draw(**{name: control.value for name, control in controls.items()})
        if not isinstance(fig, Figure):
            raise TypeError(f"draw must return a matplotlib Figure, got {type(fig).__name__}")
        png = figure_to_png(fig)
        image.value = png
        # At its natural size: the PNG's width and height, from its IHDR chunk (bytes 16-24);
        # left to the page's CSS, the image would be stretched to the output's width.
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        image.layout.width, image.layout.height = f"{width}px", f"{height}px"

    for control in controls.values():
        control.observe(redraw, names="value")
    redraw()
    return widgets.VBox([*controls.values(), image])
