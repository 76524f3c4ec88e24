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
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .plotting import figure_html, figure_to_png
from .position import clock_pairs, clock_periods
from .unfold import count_tokens, overlap_count

if TYPE_CHECKING:
    import ipywidgets
    from matplotlib.figure import Figure

__all__ = [
    "Choice",
    "Explore",
    "MISSING_WIDGETS_MESSAGE",
    "Number",
    "clock_explore",
    "explore_widget",
    "interact_figure",
    "site_explores",
    "softsplit_explore",
    "tokenization_explore",
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
        says: what a value means, for a screen reader (the slider's ``aria-valuetext``): a
            function of the value, e.g. ``lambda p: f"patch size {p} pixels"``; None: the label.
    """

    options: Sequence[Any]
    value: Any
    description: str
    says: Callable[[Any], str] | None = None

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
        says: what a value means, for a screen reader (the slider's ``aria-valuetext``): a
            function of the value, e.g. ``lambda s: f"stride {s} pixels"``; None: the number.
    """

    value: int
    min: int
    max: int
    description: str
    step: int = 1
    says: Callable[[int], str] | None = None

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
    if spec.says is not None and not callable(spec.says):
        raise TypeError(f"{where}: says must be a function of the value, got {spec.says!r}")
    if isinstance(spec, Choice):
        if isinstance(spec.options, str) or not isinstance(spec.options, Sequence | range):
            raise TypeError(f"{where}: options must be a list of values, got {spec.options!r}")
        values = _option_values(list(spec.options))
        if not values:
            raise ValueError(f"{where}: options must hold at least one value, got {spec.options!r}")
        if spec.value not in values:
            raise ValueError(f"{where}: value must be one of {values}, got {spec.value!r}")
        return
    for field in ("value", "min", "max", "step"):  # NumPy and torch integers become ints
        number = getattr(spec, field)
        if isinstance(number, bool | np.bool_) or not hasattr(number, "__index__"):
            raise TypeError(
                f"{where}: {field} must be an int, got {number!r} of type {type(number).__name__}"
            )
        object.__setattr__(spec, field, int(number.__index__()))  # a frozen dataclass: set once
    if spec.step < 1:
        raise ValueError(f"{where}: step must be at least 1, got {spec.step}")
    if not spec.min <= spec.value <= spec.max:
        raise ValueError(
            f"{where}: value must lie in [min, max] = [{spec.min}, {spec.max}], got {spec.value}"
        )


def _image_size(image: object) -> tuple[int, int]:
    """(H, W) of a picture given as an array, a tensor or nested lists."""
    shape = tuple(image.shape) if hasattr(image, "shape") else np.shape(image)
    if len(shape) != 2:
        raise ValueError(f"image must have 2 dimensions, got shape {shape}")
    return shape


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
    return f"{control.description or name} = {_number_text(value)}"


def _number_text(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _spec_value_text(name: str, spec: Choice | Number, value: Any) -> str:
    """What :func:`_value_text` says for the slider made from ``spec`` when it shows ``value``."""
    shown = value
    if isinstance(spec, Choice):
        labels = [o[0] if isinstance(o, tuple) and len(o) == 2 else str(o) for o in spec.options]
        shown = labels[_option_values(list(spec.options)).index(value)]
    return f"{spec.description or name} = {_number_text(shown)}"


def _state_texts(
    alt: str | Callable[..., str] | None,
    caption: str | Callable[..., str] | None,
    shown: str,
    values: dict[str, Any],
) -> tuple[str, str]:
    """The alt text and the caption of the figure drawn for ``values`` (``shown`` names them)."""
    if callable(alt):
        text = alt(**values)
        _check_alt(text)
    elif alt is not None:
        text = f"{alt.rstrip('.')}; shown for {shown}."
    else:
        text = f"The figure of this Explore section, drawn for {shown}."
    if callable(caption):
        caption = caption(**values)
        _check_caption(caption)
    under = f"{caption} ({shown})" if caption is not None else f"Explore: {shown}."
    return text, under


def _check_caption(caption: object) -> None:
    """A caption: ``"Figure <notebook>.<k> — <one sentence>."``."""
    if not isinstance(caption, str) or not re.fullmatch(r"Figure \d+\.\d+ — \S.*", caption):
        raise ValueError(
            "caption must read 'Figure <notebook>.<k> — <one sentence>.', such as "
            f"'Figure 1.9 — The patch grid and the tokens for one patch size.', got {caption!r}"
        )


def _check_alt(alt: object) -> None:
    """Alt text: a str of at least four words saying what the figure shows."""
    if not isinstance(alt, str):
        raise TypeError(f"alt must be a str (a sentence saying what the figure shows), got {alt!r}")
    if len(alt.split()) < 4:
        raise ValueError(f"alt must say what the figure shows in at least 4 words, got {alt!r}")


def interact_figure(
    draw: Callable[..., Figure],
    *,
    alt: str | Callable[..., str] | None = None,
    caption: str | Callable[..., str] | None = None,
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
            by the current values, or a function of the controls' keywords returning one; None:
            the values only.
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
        _check_alt(alt)
    if caption is not None and not callable(caption):
        _check_caption(caption)
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
        from matplotlib.figure import Figure

        values = {name: slider.value for name, slider in sliders.items()}
        fig = draw(**values)
        if not isinstance(fig, Figure):
            raise TypeError(f"draw must return a matplotlib Figure, got {type(fig).__name__}")
        shown = ", ".join(_value_text(name, slider) for name, slider in sliders.items())
        text, under = _state_texts(alt, caption, shown, values)
        image.value = figure_html(figure_to_png(fig), "png", text, under)

    for slider in sliders.values():
        slider.observe(redraw, names="value")
    redraw()
    return widgets.VBox([*sliders.values(), image])


# --- the series' three Explore sections, for JupyterLab and for the site --------------------------


@dataclass(frozen=True)
class Explore:
    """One Explore section: its controls, what it draws, and the words that go with each drawing.

    JupyterLab shows it live (:meth:`widget`); ``scripts/explore_frames.py`` draws every state of
    :attr:`site_grid` with :meth:`state` for the static site, so both show the same picture, alt
    text and caption for a state.

    Args:
        draw: function of the controls' keywords that returns a Figure.
        controls: keyword -> :class:`Choice` or :class:`Number`, in the order they are shown.
        alt: what the figure shows for the controls' keywords (a function returning a sentence),
            or one sentence for every state (the values are appended).
        caption: ``"Figure <notebook>.<k> — <one sentence>."``, or a function of the controls'
            keywords returning one; the values are appended.
        site_grid: keyword -> the values the site draws (all of a control's values when it is
            not named); each list holds the control's starting value.
        numbers: function of the controls' keywords returning the closed-form numbers of a
            state (a dict of JSON values) that the site computes again in JavaScript.
    """

    draw: Callable[..., Figure]
    controls: dict[str, Choice | Number]
    alt: str | Callable[..., str]
    caption: str | Callable[..., str]
    site_grid: dict[str, list[Any]]
    numbers: Callable[..., dict[str, Any]]

    def __post_init__(self) -> None:
        for name, values in self.site_grid.items():
            allowed = self.values(name)
            if not values or any(v not in allowed for v in values):
                raise ValueError(
                    f"site_grid[{name!r}] must hold values of its control, got {values}"
                )
            if self.controls[name].value not in values:
                raise ValueError(f"site_grid[{name!r}] must hold the starting value")

    def values(self, name: str) -> list[Any]:
        """Every value the JupyterLab control ``name`` can take, in slider order."""
        spec = self.controls[name]
        if isinstance(spec, Choice):
            return _option_values(list(spec.options))
        return list(range(spec.min, spec.max + 1, spec.step))

    def grid(self, name: str) -> list[Any]:
        """The values of control ``name`` that the site draws."""
        return list(self.site_grid.get(name, self.values(name)))

    def texts(self, **values: Any) -> tuple[str, str]:
        """(alt text, caption) of the figure for ``values``, as JupyterLab's Explore shows them."""
        shown = ", ".join(
            _spec_value_text(name, spec, values[name]) for name, spec in self.controls.items()
        )
        return _state_texts(self.alt, self.caption, shown, values)

    def state(self, **values: Any) -> tuple[bytes, str, str]:
        """(PNG bytes, alt text, caption) of the figure JupyterLab shows for ``values``."""
        fig = self.draw(**values)
        return (figure_to_png(fig), *self.texts(**values))

    def labels(self, name: str) -> list[str]:
        """What the reader sees for each value of control ``name`` (a Choice's labels)."""
        spec = self.controls[name]
        if isinstance(spec, Choice):
            return [o[0] if isinstance(o, tuple) and len(o) == 2 else str(o) for o in spec.options]
        return [str(v) for v in self.values(name)]

    def says(self, name: str) -> list[str]:
        """What each value of control ``name`` means, as a screen reader says it (the sliders'
        ``aria-valuetext`` in JupyterLab and on the site): the control's ``says``, else its label.
        """
        spec = self.controls[name]
        if spec.says is None:
            return [f"{spec.description} {label}" for label in self.labels(name)]
        return [spec.says(value) for value in self.values(name)]

    def range_text(self, name: str) -> str:
        """The values a number control takes, in words: "the even numbers from 8 to 768"."""
        spec = self.controls[name]
        if spec.step == 1:
            kind = "the whole numbers"
        elif spec.step == 2 and spec.min % 2 == 0:
            kind = "the even numbers"
        else:
            kind = f"every {spec.step}th number"
        return f"{kind} from {spec.min} to {spec.max}"

    def refusal(self, name: str, typed: str) -> str | None:
        """What a calculator says when a reader types ``typed`` for number control ``name``:
        None when it is one of the control's values, else the range and the nearest values.

        Args:
            name: a :class:`Number` control's keyword.
            typed: the text typed, e.g. ``"9"``, ``"1000"`` or ``""`` (nothing, or not a number).

        Returns:
            None, or one sentence, e.g. "d = 9 is not a setting: d takes the even numbers from 8
            to 768; the nearest it can show are 8 and 10."
        """
        spec = self.controls[name]
        if not isinstance(spec, Number):
            raise TypeError(f"refusal needs a Number control, got {name!r}")
        takes = f"{spec.description} takes {self.range_text(name)}"
        try:
            x = float(typed)
        except ValueError:
            x = math.nan
        if not math.isfinite(x):
            return f"{spec.description}: type a number; {takes}."
        low = spec.min + math.floor((x - spec.min) / spec.step) * spec.step
        candidates = sorted(
            {min(spec.max, max(spec.min, v)) for v in (low, low + spec.step)},
            key=lambda v: abs(v - x),
        )
        if candidates[0] == x:
            return None
        nearest = sorted(v for v in candidates if abs(v - x) == abs(candidates[0] - x))
        where = "is outside the range" if not spec.min <= x <= spec.max else "is not a setting"
        near = (
            f"the nearest it can show is {nearest[0]}"
            if len(nearest) == 1
            else f"the nearest it can show are {nearest[0]} and {nearest[1]}"
        )
        return f"{spec.description} = {typed.strip()} {where}: {takes}; {near}."

    def widget(self) -> Any:
        """The live controls and figure, for a running notebook.

        With anywidget (the ``notebooks`` extra): :func:`explore_widget`, native labelled range
        inputs that a screen reader names and reads by value, with the new caption announced.
        Without it, :func:`interact_figure`'s ipywidgets sliders; without ipywidgets, None
        (one line says how to install them).
        """
        if _ipywidgets() is not None and _anywidget() is not None:
            return explore_widget(self)
        return interact_figure(self.draw, alt=self.alt, caption=self.caption, **self.controls)


def _anywidget():
    """The anywidget module, or None when it is not installed."""
    try:
        return importlib.import_module("anywidget")
    except ImportError:
        return None


# The widget's front end: plain DOM, written here so that every control is a native, labelled
# <input type="range"> (its name from its <label>, what its value means read through
# aria-valuetext), with no other Tab stop, and the new figure's caption announced politely.
_WIDGET_ESM = """
function render({ model, el }) {
  const controls = model.get("controls");
  const uid = "vx-" + Math.random().toString(36).slice(2, 10);
  const box = document.createElement("div");
  box.className = "vx-explore-widget";
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", "Explore controls");
  const inputs = controls.map((control, c) => {
    const row = document.createElement("div");
    row.style.cssText = "display:flex;gap:0.5em;align-items:center;margin:0.2em 0";
    const label = document.createElement("label");
    const input = document.createElement("input");
    const shown = document.createElement("output");
    // A number runs over its own values (the slider's value is what the reader sees); a list
    // runs over its positions. aria-valuetext says what the value means ("patch size 20
    // pixels", "base 10^4 = 10,000"); the visible readout shows the label ("20", "10^4").
    const first = control.min === undefined ? 0 : control.min;
    const step = control.step === undefined ? 1 : control.step;
    const position = () => Math.round((Number(input.value) - first) / step);
    input.type = "range";
    input.style.cssText = "height:24px;margin:0";  // a target at least 24 px tall
    input.id = uid + "-" + control.name;
    input.min = first;
    input.max = first + (control.labels.length - 1) * step;
    input.step = step;
    label.htmlFor = input.id;
    label.textContent = control.label;
    shown.htmlFor = input.id;
    shown.setAttribute("aria-hidden", "true");
    const showValue = () => {
      input.setAttribute("aria-valuetext", control.says[position()]);
      shown.textContent = control.labels[position()];
    };
    input.value = first + model.get("positions")[c] * step;
    showValue();
    input.addEventListener("input", showValue);
    input.addEventListener("change", () => {  // on release, and on each key press
      const positions = inputs.map((i) => Math.round((Number(i.value) - i.vxFirst) / i.vxStep));
      model.set("positions", positions);
      model.save_changes();
    });
    input.vxFirst = first;
    input.vxStep = step;
    row.append(label, input, shown);
    box.append(row);
    return input;
  });
  const figure = document.createElement("div");
  figure.innerHTML = model.get("figure");
  const status = document.createElement("div");
  status.className = "vx-explore-status";
  status.setAttribute("role", "status");  // polite: the new caption is read after the key
  status.style.cssText = "position:absolute;width:1px;height:1px;overflow:hidden;" +
    "clip:rect(0 0 0 0);white-space:nowrap";
  model.on("change:figure", () => {
    figure.innerHTML = model.get("figure");
    status.textContent = model.get("caption");
  });
  el.append(box, figure, status);
  // JupyterLab's own shortcuts catch arrow keys on their way down (capture), before a focused
  // slider sees them (ArrowLeft collapses a heading): the slider's keys are handled first here.
  const steps = { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1, PageDown: -10,
    PageUp: 10, Home: -Infinity, End: Infinity };
  const onKey = (event) => {
    const input = inputs.find((i) => i === event.target);
    if (!input || !(event.key in steps)) return;
    event.preventDefault();
    event.stopPropagation();
    const low = Number(input.min), high = Number(input.max), step = Number(input.step);
    const next = Number(input.value) + steps[event.key] * step;
    input.value = Math.min(high, Math.max(low, next));  // Home and End: the ends
    input.dispatchEvent(new Event("input"));
    input.dispatchEvent(new Event("change"));
  };
  window.addEventListener("keydown", onKey, true);
  return () => window.removeEventListener("keydown", onKey, true);
}
export default { render };
"""


def explore_widget(explore: Explore) -> Any:
    """An anywidget that shows ``explore`` live: labelled sliders, then the figure.

    Args:
        explore: the section.

    Returns:
        An ``anywidget.AnyWidget`` (display it, or leave it as the cell's value); its
        ``positions`` trait holds each control's position in its values.
    """
    anywidget = importlib.import_module("anywidget")
    traitlets = importlib.import_module("traitlets")
    names = list(explore.controls)

    class ExploreWidget(anywidget.AnyWidget):
        _esm = _WIDGET_ESM
        controls = traitlets.List().tag(sync=True)
        positions = traitlets.List(traitlets.Int()).tag(sync=True)
        figure = traitlets.Unicode("").tag(sync=True)
        caption = traitlets.Unicode("").tag(sync=True)

    start = [explore.values(n).index(explore.controls[n].value) for n in names]
    controls = []
    for n in names:
        spec = explore.controls[n]
        control = {
            "name": n,
            "label": spec.description,
            "labels": explore.labels(n),
            "says": explore.says(n),
        }
        if isinstance(spec, Number):
            control.update(min=spec.min, step=spec.step)
        controls.append(control)
    widget = ExploreWidget(controls=controls, positions=start)

    def redraw(_change: object = None) -> None:
        values = {n: explore.values(n)[i] for n, i in zip(names, widget.positions, strict=True)}
        png, alt, caption = explore.state(**values)
        widget.caption = caption
        widget.figure = figure_html(png, "png", alt, caption)

    widget.observe(redraw, names="positions")
    redraw()
    return widget


def tokenization_explore(image: Any) -> Explore:
    """Notebook 01's Explore: the patch grid and the token matrix for each patch size P.

    Args:
        image: the picture, shape (H, W); P runs over the common divisors of H and W.

    Returns:
        The section; the site draws every patch size.
    """
    from .plotting import show_tokenization

    h, w = _image_size(image)
    sizes = [p for p in range(1, min(h, w) + 1) if h % p == 0 and w % p == 0]

    def numbers(patch_size: int) -> dict[str, Any]:
        rows, cols, tokens = count_tokens(h, w, patch_size, patch_size, 0)
        return {"rows": rows, "cols": cols, "tokens": tokens, "length": patch_size**2}

    def alt(patch_size: int) -> str:
        n = numbers(patch_size)
        return (
            f"Left, the picture cut into {n['rows']} by {n['cols']} = {n['tokens']} patches of "
            f"{patch_size} by {patch_size} pixels (P = {patch_size}); right, the token matrix "
            f"they make: {n['tokens']} rows of length {n['length']}."
        )

    return Explore(
        draw=lambda patch_size: show_tokenization(image, patch_size),
        controls={
            "patch_size": Choice(
                sizes, sizes[-1], "patch size P", says=lambda p: f"patch size {_pixels(p)}"
            )
        },
        alt=alt,
        caption="Figure 1.4 — The patch grid and the token matrix for the chosen patch size.",
        site_grid={},
        numbers=numbers,
    )


CLOCK_EXPONENTS = [e / 4 for e in range(4, 33)]
"""Notebook 03's bases are 10 to these powers: 10^1, 10^1.25, ..., 10^8."""
CLOCK_SITE_DIMS = [8, 16, 18, 64, 256, 768]
"""The lengths d the site draws: both ends, the start (18), and 16 and 256 (the text compares)."""


def clock_explore() -> Explore:
    """Notebook 03's Explore: the sinusoidal table and up to nine clocks for a base and a length d.

    Returns:
        The section. JupyterLab offers 29 bases (a quarter decade apart) and every even d from 8
        to 768 (11,049 states); the site draws the 15 bases a half decade apart (10^1 ... 10^8)
        and the lengths of :data:`CLOCK_SITE_DIMS` (90 states).
    """
    from .plotting import show_clock_explorer

    def numbers(base: float, dim: int) -> dict[str, Any]:
        pairs = clock_pairs(dim)
        return {"pairs": pairs.tolist(), "periods": clock_periods(dim, base)[pairs].tolist()}

    def alt(base: float, dim: int) -> str:
        n = numbers(base, dim)
        return (
            f"Left, the sinusoidal table for 100 positions and d = {dim}, base 10^"
            f"{math.log10(base):g}; right, {len(n['pairs'])} of its clocks, each a unit circle "
            f"traced by the positions, from the fastest (one turn every "
            f"{_readable(n['periods'][0])} tokens) to the slowest (one turn every "
            f"{_readable(n['periods'][-1])} tokens)."
        )

    def caption(base: float, dim: int) -> str:
        shown, pairs = len(clock_pairs(dim)), dim // 2
        clocks = (
            f"all {_word(shown)} of its" if shown == pairs else f"{_word(shown)} of its {pairs}"
        )
        return f"Figure 3.11 — The table and {clocks} clocks for the chosen base and length d."

    return Explore(
        draw=show_clock_explorer,
        controls={
            "base": Choice(
                [(f"10^{e:g}", 10.0**e) for e in CLOCK_EXPONENTS], 1e4, "base", says=_base_says
            ),
            "dim": Number(
                18, 8, 768, "d", step=2, says=lambda d: f"length d = {d}, {d // 2} clocks"
            ),
        },
        alt=alt,
        caption=caption,
        site_grid={"base": [10.0**e for e in CLOCK_EXPONENTS[::2]], "dim": CLOCK_SITE_DIMS},
        numbers=numbers,
    )


SOFTSPLIT_SITE_GRID = {"k": [3, 7, 16, 20, 80], "s": [2, 4, 10, 16], "p": [0, 1, 2, 5]}
"""The soft splits the site draws (80 of JupyterLab's 67,200): T2T's two splits (k, s, p) = (7,
4, 2) and (3, 2, 1), ViT's split s = k with p = 0 for k = 16 (which leaves pixels out), strides
larger than the kernel (k = 3 or 7 with s = 10 or 16: pixels in no patch), the start (20, 10, 5),
and a kernel larger than the padded picture (k = 80: the package's error message)."""


def softsplit_explore(image: Any) -> Explore:
    """Notebook 05's Explore: the patches and the overlap counts of a soft split (k, s, p).

    Args:
        image: the picture, shape (H, W).

    Returns:
        The section; the site draws the splits of :data:`SOFTSPLIT_SITE_GRID`.
    """
    from .plotting import show_softsplit_explorer

    h, w = _image_size(image)

    def numbers(k: int, s: int, p: int) -> dict[str, Any]:
        try:
            rows, cols, tokens = count_tokens(h, w, k, s, p)
        except ValueError as error:
            return {"error": f"ValueError: {error}"}
        counts = overlap_count(h + 2 * p, w + 2 * p, k, s, 0)  # (H + 2p, W + 2p)
        missed = int((counts[p : p + h, p : p + w] == 0).sum())
        most = int(counts.max())
        return {
            "rows": rows,
            "cols": cols,
            "tokens": tokens,
            "length": k * k,
            "missed": missed,
            "most": most,
        }

    def alt(k: int, s: int, p: int) -> str:
        n = numbers(k, s, p)
        split = f"k = {k}, s = {s}, p = {p}"
        if "error" in n:
            return f"No soft split with {split}; the figure shows the message {n['error']}."
        top = (
            f"Top, the {n['tokens']} patches of {k} by {k} pixels ({split}) outlined on the "
            "padded Mountain"
            if n["tokens"] <= 1000  # show_softsplit_coverage's max_outlines
            else f"Top, the padded Mountain ({split}; {n['tokens']} patches, too many to outline)"
        )
        missed = (
            f"{n['missed']} pixels of the picture lie in no patch"
            if n["missed"]
            else "every pixel of the picture lies in at least one patch"
        )
        return (
            f"{top}; bottom, how many patches cover each pixel, at most {n['most']}: {missed}; "
            f"{n['rows']} x {n['cols']} = {n['tokens']} tokens of length {n['length']}."
        )

    return Explore(
        draw=lambda k, s, p: show_softsplit_explorer(image, k, s, p),
        controls={
            "k": Number(20, 1, 80, "kernel k", says=lambda k: f"kernel {k} by {_pixels(k)}"),
            "s": Number(10, 1, 40, "stride s", says=lambda s: f"stride {_pixels(s)}"),
            "p": Number(5, 0, 20, "padding p", says=lambda p: f"padding {_pixels(p)}"),
        },
        alt=alt,
        caption="Figure 5.6 — The patches and the overlap counts of a soft split you choose.",
        site_grid=SOFTSPLIT_SITE_GRID,
        numbers=numbers,
    )


def _pixels(count: int) -> str:
    return f"{count} pixel" if count == 1 else f"{count} pixels"


def _word(count: int) -> str:
    """A count as the captions write it: words up to nine, then digits."""
    words = "zero one two three four five six seven eight nine".split()
    return words[count] if count < len(words) else str(count)


def _base_says(base: float) -> str:
    """A base as a screen reader says it: "base 10^4 = 10,000", "base 10^4.5, about 31,600"."""
    exponent = round(math.log10(base), 2)
    if exponent == int(exponent):
        return f"base 10^{exponent:g} = {round(base):,}"
    return f"base 10^{exponent:g}, about {_readable(base)}"


def _readable(number: float) -> str:
    """A period as a reader says it: 6.28, 1,780 or 3.2 x 10^7."""
    if number < 1e6:
        return f"{number:,.3g}" if number < 1000 else f"{number:,.0f}"
    exponent = math.floor(math.log10(number))
    return f"{number / 10**exponent:.3g} x 10^{exponent}"


def site_explores() -> dict[str, Explore]:
    """The series' Explore sections by notebook name (``scripts/explore_frames.py`` draws them)."""
    from .data import load_mountains

    mountains = load_mountains()
    return {
        "01_patch_tokenization": tokenization_explore(mountains),
        "03_sinusoidal_pe_clocks": clock_explore(),
        "05_t2t_soft_split": softsplit_explore(mountains),
    }
