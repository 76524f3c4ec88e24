"""What a learner's function prints and displays while it is graded, shown once in the notebook.

In the worker, a :class:`Recorder` stands in for stdout, stderr and, under IPython, the shell's
display publisher, so one call's output becomes a list of events in the order they happened:
``("text", str)``, ``("display", (data, metadata))`` -- the MIME bundle ``display(obj)`` made,
e.g. a DataFrame's HTML or a figure that ``plt.show()`` shows under the inline backend -- and
``("cut", note)`` where a limit was reached. In the learner's process :func:`show` replays the
events: under IPython each bundle is published again (``publish_display_data``), elsewhere its
text/plain form is printed.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import sys
from collections.abc import Iterator
from typing import Any

#: Characters of printing kept per call.
PRINT_LIMIT = 2000
#: Display outputs kept per call.
DISPLAY_LIMIT = 10
#: Characters one display output (its MIME bundle and metadata as JSON) may take.
DISPLAY_BYTES = 1 << 20

#: The inline backend (``%matplotlib inline``, Jupyter's default), by module.
INLINE = "module://matplotlib_inline.backend_inline"

Event = tuple[str, Any]  # ("text", str) | ("display", (data, metadata)) | ("cut", note)


def ipython() -> Any | None:
    """The IPython shell running in this process (a notebook's kernel), or None."""
    if "IPython" not in sys.modules:
        return None
    from IPython.core.interactiveshell import InteractiveShell

    return InteractiveShell.instance() if InteractiveShell.initialized() else None


def shell_settings() -> str | None:
    """What a spawned worker needs to display like this process: None outside IPython, else
    the matplotlib backend in use here ("" before pyplot is imported)."""
    if ipython() is None:
        return None
    if "matplotlib.pyplot" not in sys.modules:
        return ""
    import matplotlib

    return matplotlib.get_backend()


def start_ipython(backend: str) -> None:
    """A shell of the worker's own (spawned for a notebook), so that ``display()`` makes bundles,
    and the notebook's backend (``%matplotlib inline``), so that ``plt.show()`` displays."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryAccessor.enabled = False  # no history file written
    InteractiveShell.instance(config=config)
    if backend:  # the notebook uses pyplot: loaded here, in the warm worker, not in a call
        os.environ["MPLBACKEND"] = INLINE if backend == "inline" else backend
        from matplotlib import pyplot

        try:
            pyplot.switch_backend(os.environ["MPLBACKEND"])
        except Exception:  # a backend a worker cannot load (a GUI's): plt.show() shows nothing
            pyplot.switch_backend("agg")


def _json(value: Any) -> Any:
    """A copy in JSON types only (bytes as base64, as Jupyter sends them), or None: nothing of
    the learner's classes reaches the notebook's process."""
    try:
        return json.loads(json.dumps(value, default=lambda b: base64.b64encode(b).decode()))
    except (TypeError, ValueError, RecursionError):
        return None


class Recorder(io.TextIOBase):
    """stdout, stderr and display publisher of one call: its output as capped events."""

    is_publishing = False  # read by IPython's own stream capture

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._chars = self._displays = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str.__str__(text)  # a plain str, whatever the learner's class
        kept = text[: max(PRINT_LIMIT - self._chars, 0)]
        self._chars += len(text)
        if kept and self.events and self.events[-1][0] == "text":
            self.events[-1] = ("text", self.events[-1][1] + kept)
        elif kept:
            self.events.append(("text", kept))
        if len(kept) < len(text) and ("cut", "cut") not in self.events:
            self.events.append(("cut", "cut"))
        return len(text)

    def publish(self, data: dict, metadata: dict | None = None, *args: Any, **kwargs: Any) -> None:
        """IPython's ``DisplayPublisher.publish``: keep the bundle, within the limits."""
        self._displays += 1
        bundle = _json({"data": data, "metadata": metadata or {}})
        size = len(json.dumps(bundle)) if bundle is not None else 0
        many = f"more than {DISPLAY_LIMIT} display outputs: the rest cut"
        if self._displays > DISPLAY_LIMIT:
            self.events += [] if ("cut", many) in self.events else [("cut", many)]
        elif bundle is None:
            self.events.append(("cut", "a display output that is not JSON data cut"))
        elif size > DISPLAY_BYTES:
            self.events.append(("cut", f"a display output of {size:,} characters cut"))
        else:
            self.events.append(("display", (bundle["data"], bundle["metadata"])))

    def clear_output(self, wait: bool = False) -> None:
        """IPython's ``DisplayPublisher.clear_output``: what was shown stays."""


@contextlib.contextmanager
def recording() -> Iterator[Recorder]:
    """Record what the code inside prints and displays (in the worker)."""
    recorder, shell = Recorder(), ipython()
    publisher = shell.display_pub if shell is not None else None
    with contextlib.redirect_stdout(recorder), contextlib.redirect_stderr(recorder):
        try:
            if shell is not None:
                shell.display_pub = recorder
            yield recorder
        finally:
            if shell is not None:
                shell.display_pub = publisher


def _print(text: str) -> None:
    if text.strip():
        print(text.rstrip())


def show(name: str, events: list[Event]) -> None:
    """Replay a call's output under a heading: text printed, each display published under
    IPython, its text/plain form printed elsewhere."""
    if not events:
        return
    kinds = {kind for kind, _ in events}
    pairs = (("text", "printed"), ("display", "displayed"))
    verbs = [verb for kind, verb in pairs if kind in kinds]
    print(f"{name} {' and '.join(verbs) or 'printed'} (first call):")
    shell, text = ipython(), ""
    for kind, item in events:
        if kind == "display" and shell is not None:
            from IPython.display import publish_display_data

            _print(text)
            text = ""
            sys.stdout.flush()
            publish_display_data(data=item[0], metadata=item[1])
        elif kind == "display":  # on a line of its own
            text += ("\n" if text[-1:] not in ("", "\n") else "") + f"{item[0].get('text/plain')}\n"
        elif kind == "cut":  # on the line it cuts
            text += (" " if text[-1:] not in ("", "\n") else "") + f"[... {item}]\n"
        else:
            text += item
    _print(text)
