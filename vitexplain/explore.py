"""The "Explore" sections of the notebooks: controls that redraw a figure, by mouse or keyboard.

``ipywidgets.interact`` shows its function's result inside an ``Output`` widget. nbclient, which
``make figures`` uses to re-execute the notebooks, routes such output through a hook that fails
with a ``KeyError`` when it runs with ``store_widget_state=False`` (the setting that keeps random
widget ids out of the stored notebooks). :func:`interact_figure` does the same job without an
``Output`` widget: the figure is rendered to PNG and shown in an ``ipywidgets.HTML`` as the same
``<figure>`` :func:`vitexplain.display_figure` shows (the image with its alt text, a caption
under it), so the notebooks execute headless and a screen reader hears what the figure shows.

Every control is a slider, because a slider is the one ipywidgets control that keeps its arrow
keys in JupyterLab: a drop-down list (``<select>``) lets them through to the notebook, which
moves the cell selection and takes the focus away, and a number field changes its value on an
arrow key but sends it only on Enter. So a control is given either as a plain description,
:class:`Choice` (one of a list) or :class:`Number` (an integer range), or as an ipywidgets
control; a ``Dropdown``, ``Select``, ``RadioButtons``, ``ToggleButtons`` or ``Bounded*Text`` is
shown as the equivalent slider, linked to the given control. On the focused slider the arrow
keys step the value and the figure is redrawn after each step; the readout next to it takes a
typed value.

ipywidgets is needed only here. It comes with the ``notebooks`` extra
(``pip install "vitexplain[notebooks]"``); without it :func:`interact_figure` prints one line
saying so and returns None, so an Explore cell built from :class:`Choice` and :class:`Number`
runs without a traceback.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from matplotlib.figure import Figure

from .plotting import figure_html, figure_to_png
from .plotting.files import _CAPTION_PATTERN, _check_display_args

if TYPE_CHECKING:
    import ipywidgets

__all__ = [
    "Choice",
    "MISSING_WIDGETS_MESSAGE",
    "Number",
    "interact_figure",
]

MISSING_WIDGETS_MESSAGE = (
    'The Explore controls need ipywidgets: pip install "vitexplain[notebooks]", '
    "then restart the kernel."
)
"""The one line an Explore cell prints when ipywidgets is not installed."""

# Controls whose arrow keys reach JupyterLab's notebook (or that send their value only on Enter),
# by ipywidgets class name, and the slider shown in their place.
_AS_SELECTION_SLIDER = ("Dropdown", "Select", "RadioButtons", "ToggleButtons")
_AS_SLIDER = {"BoundedIntText": "IntSlider", "BoundedFloatText": "FloatSlider"}


@dataclass(frozen=True)
class Choice:
    """A control that picks one of a list: shown as a slider over the options.

    Args:
        options: the values, or ``(label, value)`` pairs (the label is shown).
        value: the value at the start; one of the options' values.
        description: the control's visible label, e.g. ``"patch size P"``.
    """

    options: Sequence[Any]
    value: Any
    description: str

    def __post_init__(self) -> None:
        _check_spec("", self)


@dataclass(frozen=True)
class Number:
    """A control over the integers ``min, min + step, ..., max``: shown as a slider.

    Args:
        value: the value at the start.
        min: smallest value.
        max: largest value.
        description: the control's visible label, e.g. ``"stride s"``.
        step: distance between neighbouring values (one arrow key press).
    """

    value: int
    min: int
    max: int
    description: str
    step: int = 1

    def __post_init__(self) -> None:
        _check_spec("", self)


def _ipywidgets():
    """The ipywidgets module, or None when it is not installed."""
    try:
        return importlib.import_module("ipywidgets")
    except ImportError:
        return None


def _option_values(options: Sequence[Any]) -> list[Any]:
    return [o[1] if isinstance(o, tuple) and len(o) == 2 else o for o in options]


def _check_spec(name: str, spec: Choice | Number) -> None:
    """Refuse a control description with a message naming the field (and the control)."""
    where = f"{type(spec).__name__}" + (f" for {name}=" if name else "")
    if not isinstance(spec.description, str) or not spec.description:
        raise TypeError(
            f"{where}: description must be a non-empty str (the control's label), "
            f"got {spec.description!r}"
        )
    if isinstance(spec, Choice):
        if isinstance(spec.options, str) or not isinstance(spec.options, Sequence | range):
            raise TypeError(f"{where}: options must be a list of values, got {spec.options!r}")
        values = _option_values(list(spec.options))
        if not values:
            raise ValueError(f"{where}: options must hold at least one value, got {spec.options!r}")
        if spec.value not in values:
            raise ValueError(f"{where}: value must be one of {values}, got {spec.value!r}")
        return
    for field in ("value", "min", "max", "step"):
        number = getattr(spec, field)
        if isinstance(number, bool) or not isinstance(number, int):
            raise TypeError(f"{where}: {field} must be an int, got {number!r}")
    if spec.step < 1:
        raise ValueError(f"{where}: step must be at least 1, got {spec.step}")
    if not spec.min <= spec.value <= spec.max:
        raise ValueError(
            f"{where}: value must lie in [min, max] = [{spec.min}, {spec.max}], got {spec.value}"
        )


def _style() -> dict[str, str]:
    return {"description_width": "initial"}  # the whole label, not cut at ipywidgets' width


def _new_slider(widgets, kind: str, source: Any) -> ipywidgets.ValueWidget:
    """A slider of class ``kind`` with the value, range (or options) and label of ``source``.

    ``source`` is a :class:`Choice` or :class:`Number`, or the ipywidgets control it replaces.
    """
    if kind == "SelectionSlider":
        shape = {"options": list(source.options)}
    else:
        shape = {"min": source.min, "max": source.max, "step": source.step}
    return getattr(widgets, kind)(
        value=source.value,
        description=source.description,
        continuous_update=False,
        style=_style(),
        **shape,
    )


def _slider_for(widgets, name: str, control: object) -> ipywidgets.ValueWidget:
    """The keyboard-safe slider shown for one control (see the module's docstring)."""
    if isinstance(control, Choice | Number):
        _check_spec(name, control)
        return _new_slider(
            widgets, "SelectionSlider" if isinstance(control, Choice) else "IntSlider", control
        )
    if not isinstance(control, widgets.ValueWidget):
        raise TypeError(
            f"control {name}= must be a vitexplain Choice or Number, or an ipywidgets value "
            f"widget, got {type(control).__name__}"
        )
    kind = type(control).__name__
    if kind in _AS_SELECTION_SLIDER:
        slider = _new_slider(widgets, "SelectionSlider", control)
    elif kind in _AS_SLIDER:
        slider = _new_slider(widgets, _AS_SLIDER[kind], control)
    else:
        if hasattr(control, "continuous_update") and hasattr(control, "readout"):
            control.continuous_update = False  # a slider: redraw on release, not while dragging
        return control
    widgets.link((control, "value"), (slider, "value"))  # the notebook's variable follows
    return slider


def _value_text(name: str, control: ipywidgets.ValueWidget) -> str:
    label = getattr(control, "label", None)  # a selection's label (e.g. "10^4"), else the value
    value = label if isinstance(label, str) else control.value
    shown = f"{value:g}" if isinstance(value, float) else str(value)
    return f"{control.description or name} = {shown}"


def interact_figure(
    draw: Callable[..., Figure],
    *,
    alt: str | Callable[..., str] | None = None,
    caption: str | None = None,
    **controls: Choice | Number | ipywidgets.ValueWidget,
) -> ipywidgets.VBox | None:
    """Controls that redraw a figure whenever one of their values changes.

    Each control's ``value`` is passed to ``draw`` under the control's keyword; the figure is
    drawn once at the start and again after every change (a drag: when the slider is released;
    an arrow key: after each step). It is shown as an HTML ``<figure>``: the PNG with ``alt`` as
    its alt text, the caption and the current values under it.

    Args:
        draw: function of the controls' keywords that returns a ``matplotlib.figure.Figure``.
        alt: what the figure shows: a sentence (the current values are appended), or a function
            of the controls' keywords returning one; None: a sentence naming the values.
        caption: one numbered sentence, ``"Figure 3.9 — ..."``, shown under the figure followed
            by the current values; None: the values only.
        **controls: :class:`Choice`, :class:`Number` or ipywidgets value widgets, e.g.
            ``patch_size=Choice([1, 2, 4, 5, 10, 20], 20, "patch size P")``.

    Returns:
        An ``ipywidgets.VBox`` holding the sliders, then the figure as an ``ipywidgets.HTML``
        (``box.children[-1]``); display it, or leave it as the cell's value. None when ipywidgets
        is not installed (one line says how to install it).
    """
    if not callable(draw):
        raise TypeError(f"draw must be a function returning a Figure, got {type(draw).__name__}")
    if not controls:
        raise ValueError("interact_figure needs at least one control, e.g. patch_size=Choice(...)")
    if alt is not None and not callable(alt):
        _check_display_args(None, alt, None)
    if caption is not None and (
        not isinstance(caption, str) or not _CAPTION_PATTERN.fullmatch(caption)
    ):
        raise ValueError(
            "caption must read 'Figure <notebook>.<k> — <one sentence>.', such as "
            f"'Figure 1.9 — The patch grid and the tokens for one patch size.', got {caption!r}"
        )
    widgets = _ipywidgets()
    if widgets is None:
        for name, control in controls.items():
            if isinstance(control, Choice | Number):
                _check_spec(name, control)
        print(MISSING_WIDGETS_MESSAGE)
        return None

    sliders = {name: _slider_for(widgets, name, control) for name, control in controls.items()}
    image = widgets.HTML()

    def redraw(_change: object = None) -> None:
        values = {name: slider.value for name, slider in sliders.items()}
        fig = draw(**values)
        if not isinstance(fig, Figure):
            raise TypeError(f"draw must return a matplotlib Figure, got {type(fig).__name__}")
        shown = ", ".join(_value_text(name, slider) for name, slider in sliders.items())
        if callable(alt):
            text = alt(**values)
            _check_display_args(None, text, None)
        elif alt is not None:
            text = f"{alt.rstrip('.')}; shown for {shown}."
        else:
            text = f"The figure of this Explore section, drawn for {shown}."
        under = f"{caption} ({shown})" if caption is not None else f"Explore: {shown}."
        image.value = figure_html(figure_to_png(fig), "png", text, under)

    for slider in sliders.values():
        slider.observe(redraw, names="value")
    redraw()
    return widgets.VBox([*sliders.values(), image])
