"""What a graded function prints and displays: recorded in the worker, shown once, in order,
capped; under IPython (a shell here, and a real kernel) and in plain Python; fork and spawn. And
what a real kernel shows for a check interrupted (Jupyter's Interrupt): one line."""

from __future__ import annotations

import base64
import builtins
import os
import sys
import time
from pathlib import Path

import pytest

from vitexplain import exercises as ex
from vitexplain.exercises import _output

pytest.importorskip("IPython")
from IPython.display import Markdown, display  # noqa: E402

# Nothing here compares a float that PyTorch or NumPy computed: `make test-baseline` leaves it out.
pytestmark = pytest.mark.cpu_independent

PNG = b"\x89PNG\r\n\x1a\n"


class Marking:
    """A display publisher that keeps each bundle and marks its place in the printed text."""

    def __init__(self) -> None:
        self.bundles: list[dict] = []

    def publish(self, data, metadata=None, **kwargs) -> None:
        self.bundles.append(data)
        print(f"<display {len(self.bundles)}>")

    def clear_output(self, wait=False) -> None:
        pass


@pytest.fixture
def notebook(monkeypatch):
    """This process as a notebook's kernel: an IPython shell, figures by the inline backend."""
    from IPython.core.interactiveshell import InteractiveShell
    from matplotlib import pyplot as plt
    from matplotlib_inline.backend_inline import configure_inline_support
    from traitlets.config import Config

    for name in ("display", "__IPYTHON__"):  # what the shell adds, taken away after
        monkeypatch.setattr(builtins, name, None, raising=False)
    for name in ("ps1", "ps2", "ps3"):
        monkeypatch.setattr(sys, name, None, raising=False)
    monkeypatch.setitem(sys.modules, "__main__", sys.modules["__main__"])
    backend = plt.get_backend()
    config = Config()
    config.HistoryAccessor.enabled = False
    shell = InteractiveShell.instance(config=config)
    publisher = shell.display_pub = Marking()
    plt.switch_backend("module://matplotlib_inline.backend_inline")
    configure_inline_support(shell, "inline")
    yield publisher
    plt.close("all")
    plt.switch_backend(backend)
    InteractiveShell.clear_instance()


class Table:
    """A DataFrame-like object: HTML and plain text."""

    def _repr_html_(self) -> str:
        return "<table><tr><td>1</td></tr></table>"

    def __repr__(self) -> str:
        return "Table(1 row)"


def showing(exercise_id: str):
    """A right answer that prints, displays a table and Markdown, and shows a figure."""
    reference = ex.solution(exercise_id)

    def answer(*args):
        from matplotlib import pyplot as plt

        print("before")
        display(Table())
        display(Markdown("*slanted*"))
        plt.plot([0, 1], [1, 0])
        plt.show()
        print("after")
        return reference(*args)

    return answer


def test_a_notebook_gets_the_displays_once_in_order_with_the_printing(notebook, capsys):
    """With fork (with spawn: the real kernel below)."""
    ex.check("04.5", showing("04.5"))  # the grader calls the function many times
    out = capsys.readouterr().out
    assert out == (
        "causal_skew printed and displayed (first call):\nbefore\n"
        "<display 1>\n<display 2>\n<display 3>\nafter\nExercise 04.5: right.\n"
    )
    table, markdown, figure = notebook.bundles
    assert table == {"text/plain": "Table(1 row)", "text/html": Table()._repr_html_()}
    assert markdown["text/markdown"] == "*slanted*"
    assert base64.b64decode(figure["image/png"]).startswith(PNG)  # plt.show(): the figure
    assert figure["text/plain"] == "<Figure size 640x480 with 1 Axes>"


def test_displays_are_capped_in_number_and_size(notebook, capsys):
    reference = ex.solution("04.5")

    def flood(x):
        display(Markdown("x" * (_output.DISPLAY_BYTES + 1)))
        for index in range(2 * _output.DISPLAY_LIMIT):
            display(Markdown(f"item {index}"))
        return reference(x)

    ex.check("04.5", flood)
    out = capsys.readouterr().out
    shown = [bundle["text/markdown"] for bundle in notebook.bundles]
    assert shown == [f"item {index}" for index in range(_output.DISPLAY_LIMIT - 1)]
    assert out.startswith("causal_skew displayed (first call):\n[... a display output of 1,04")
    assert "characters cut]\n" in out
    assert out.count("[... more than 10 display outputs: the rest cut]") == 1
    assert out.endswith("Exercise 04.5: right.\n")


def test_plain_python_prints_what_is_displayed(capsys):
    """Outside IPython display() prints its object, in the worker as without the checker (a
    spawned worker: tests/test_exercises_spawn.py)."""
    assert _output.ipython() is None
    reference = ex.solution("04.5")

    def answer(x):
        display(Table())
        return reference(x)

    ex.check("04.5", answer)
    out = capsys.readouterr().out
    assert out == "causal_skew printed (first call):\nTable(1 row)\nExercise 04.5: right.\n"


def test_show_prints_the_plain_text_of_a_bundle_outside_ipython(capsys):
    events = [
        ("text", "a"),
        ("display", ({"text/plain": "Table(1 row)", "text/html": "<table/>"}, {})),
        ("text", "b" * 5),
        ("cut", "cut"),
    ]
    _output.show("f", events)
    assert (
        capsys.readouterr().out
        == "f printed and displayed (first call):\na\nTable(1 row)\nbbbbb [... cut]\n"
    )


def test_the_recorder_keeps_the_order_and_caps_the_text():
    with _output.recording() as recorder:
        print("a" * (_output.PRINT_LIMIT - 1))
        recorder.publish({"text/plain": "x"}, {"m": 1})
        print("bc")  # one character over the limit
        recorder.publish({"text/plain": "x", "image/png": b"\x89PNG"})  # bytes: base64
        recorder.publish({"text/plain": object()})  # not data: not sent to the notebook
    assert recorder.events == [
        ("text", "a" * (_output.PRINT_LIMIT - 1) + "\n"),
        ("display", ({"text/plain": "x"}, {"m": 1})),
        ("cut", "cut"),
        ("display", ({"text/plain": "x", "image/png": "iVBORw=="}, {})),
        ("cut", "a display output that is not JSON data cut"),
    ]


_KERNEL_CELL = """
%matplotlib inline
import matplotlib.pyplot as plt
import vitexplain as vx
from IPython.display import Markdown
reference = vx.exercises.solution("04.5")

class Table:
    def _repr_html_(self):
        return "<table><tr><td>1</td></tr></table>"

    def __repr__(self):
        return "Table(1 row)"

def answer(x):
    print("before")
    display(Table())
    display(Markdown("*slanted*"))
    plt.plot([0, 1], [1, 0])
    plt.show()
    print("after")
    return reference(x)

vx.exercises.check("04.5", answer)
"""

_SLOW_CELL = """
import time
from pathlib import Path

def count(h, w, k, s, p):
    Path(MARKER).touch()  # the worker runs the function now
    time.sleep(60)

vx.exercises.check("05.3", count)
"""


def _outputs(client, code: str) -> tuple[str, list[dict]]:
    """A cell's output as text, each display (and error) as a marker, and the displays (and
    the errors' tracebacks)."""
    client.execute(code)
    messages = []
    while not messages or messages[-1]["content"].get("execution_state") != "idle":
        messages.append(client.get_iopub_msg(timeout=120))
    shown, bundles = "", []
    for message in messages:
        content = message["content"]
        if message["msg_type"] == "stream":
            shown += content["text"]
        elif message["msg_type"] in ("display_data", "error"):
            bundles.append(content.get("data", content.get("traceback")))
            shown += f"<display {len(bundles)}>"
    return shown, bundles


def _spawned_worker(pid: int) -> bool:
    """Whether process ``pid`` has a spawned multiprocessing child (Linux's /proc)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rpartition(")")[2].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, ValueError):  # it ended meanwhile
            continue
        if parent == pid and b"spawn_main" in command:
            return True
    return False


def _interrupted(manager, client, code: str, when) -> tuple[str, list]:
    """What a cell shows when Jupyter's Interrupt (SIGINT to the kernel's process group, its
    workers too) is pressed as soon as ``when()``."""
    client.execute(code)
    deadline = time.monotonic() + 120
    while not when():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    manager.interrupt_kernel()
    messages = []
    while not messages or messages[-1]["content"].get("execution_state") != "idle":
        messages.append(client.get_iopub_msg(timeout=120))
    return "".join(m["content"]["text"] for m in messages if m["msg_type"] == "stream"), [
        m["content"]["traceback"] for m in messages if m["msg_type"] == "error"
    ]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds workers in /proc")
def test_a_real_kernel_shows_the_displays_and_an_interrupted_check_in_one_line(tmp_path):
    """Cells run in one Jupyter kernel: their iopub messages hold the text and three
    display_data, in order, with fork and then with spawn; a check interrupted while the
    function runs (fork) or while its worker starts (spawn) shows one line, and no worker's
    traceback. MPLBACKEND=Agg in the kernel's environment: the cell's %matplotlib inline rules."""
    from jupyter_client.manager import start_new_kernel

    env = {**os.environ, "VITEXPLAIN_GRADER_START": "fork", "MPLBACKEND": "agg"}
    manager, client = start_new_kernel(kernel_name="python3", env=env)
    runs, starts = tmp_path / "runs", tmp_path / "starts"
    try:
        fork = _outputs(client, _KERNEL_CELL)
        slow = _SLOW_CELL.replace("MARKER", repr(str(runs)))
        while_it_runs = _interrupted(manager, client, slow, runs.exists)
        slow = _SLOW_CELL.replace("MARKER", repr(str(starts)))
        slow = 'vx.exercises._run.START_METHOD = "spawn"\n' + slow
        pid = manager.provisioner.pid
        while_it_starts = _interrupted(manager, client, slow, lambda: _spawned_worker(pid))
        spawn = _outputs(client, _KERNEL_CELL)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    for shown, bundles in (fork, spawn):
        assert shown == (
            "causal_skew printed and displayed (first call):\nbefore\n"
            "<display 1><display 2><display 3>after\nExercise 04.5: right.\n"
        )
        table, markdown, figure = bundles
        assert table == {
            "text/plain": "Table(1 row)",
            "text/html": "<table><tr><td>1</td></tr></table>",
        }
        assert markdown["text/markdown"] == "*slanted*"
        assert base64.b64decode(figure["image/png"]).startswith(PNG)
        assert figure["text/plain"] == "<Figure size 640x480 with 1 Axes>"
    one_line = ("", [["KeyboardInterrupt: the check of exercise 05.3 was interrupted"]])
    assert while_it_runs == one_line
    assert while_it_starts == one_line
    assert not starts.exists()  # it was interrupted before its worker called the function
