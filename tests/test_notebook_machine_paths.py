"""No stored notebook output names a folder of the machine that executed it.

A traceback, a warning or a printed path would show a reader the author's checkout
(``/home/<someone>/vitexplain/...``), a temporary folder or the virtual environment's
``site-packages``: nothing a learner can find on their own machine. Every text a stored output
holds is searched (streams, tracebacks with their colour codes removed, every text MIME type and
the output metadata); inline images (``data:`` URIs, ``image/*`` outputs) are base64, where such
letters may appear by chance, so they are left out.
"""

import json
import re
import tempfile
from pathlib import Path

import pytest

# Nothing here compares a float that PyTorch or NumPy computed: `make test-baseline` leaves it out.
pytestmark = pytest.mark.cpu_independent

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
DATA_URI = re.compile(r"data:[\w/+.-]+;base64,[A-Za-z0-9+/=]+")
# Absolute folders of a POSIX or Windows machine, an installed package's folder, a venv.
MACHINE_FOLDER = re.compile(
    r"(?<![\w.~-])/(?:work|tmp|home|root|Users|usr|opt|var|private|mnt|srv|build)(?:/|\b)"
    r"|\b[A-Za-z]:\\\\?\w"
    r"|site-packages|dist-packages|\.venv\b"
)


def _texts(value: object) -> list[str]:
    """Every string inside an output's JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    return []


def _output_texts(output: dict) -> list[str]:
    parts = [output.get("text", ""), output.get("ename", ""), output.get("evalue", "")]
    parts += output.get("traceback", [])
    for mime, value in output.get("data", {}).items():
        if not mime.startswith("image/"):
            parts += _texts(value)
    parts += _texts(output.get("metadata", {}))
    texts = ["".join(p) if isinstance(p, list) else p for p in parts]
    return [DATA_URI.sub("data:", ANSI.sub("", text)) for text in texts]


def machine_folders(path: Path) -> list[str]:
    """Where a notebook's stored outputs name a machine folder: 'cell <i>: ...<context>...'."""
    own = {str(ROOT), str(Path.home()), tempfile.gettempdir()} - {"/", ""}
    # This machine's checkout, home and temporary folder, whatever they are called.
    pattern = re.compile(
        MACHINE_FOLDER.pattern
        + "".join(rf"|(?<![\w.~-]){re.escape(folder)}(?:/|\b)" for folder in sorted(own))
    )
    found = []
    for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
        for output in cell.get("outputs", []):
            for text in _output_texts(output):
                hits = sorted({m.start() for m in pattern.finditer(text)})
                found += [f"cell {index}: ...{text[max(0, h - 60) : h + 60]!r}..." for h in hits]
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_no_stored_output_names_a_folder_of_the_machine(path: Path):
    found = machine_folders(path)
    assert not found, f"{path.name} stores machine folders:\n" + "\n".join(found)


def test_the_search_finds_what_it_looks_for(tmp_path: Path):
    """The pattern against an output it must flag and one it must not (a shape, a ratio)."""
    traceback = (
        "\x1b[0;32m/home/ada/src/vitexplain/vitexplain/patches.py:143\x1b[0m, in \x1b[0;36mpatchify"
    )
    site = 'File "C:\\Users\\ada\\venv\\Lib\\site-packages\\torch\\nn\\modules\\module.py"'
    fine = "(1, 15, 400) tokens; 60/20 = 3 rows; 1/tmp_ratio; data:image/png;base64,AAAA/work/tmp"
    notebook = {
        "cells": [
            {"cell_type": "code", "outputs": [{"output_type": "error", "traceback": [traceback]}]},
            {"cell_type": "code", "outputs": [{"output_type": "stream", "text": [site]}]},
            {"cell_type": "code", "outputs": [{"output_type": "stream", "text": fine}]},
            {
                "cell_type": "code",
                "outputs": [{"output_type": "display_data", "data": {"text/html": fine}}],
            },
        ]
    }
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(notebook))
    found = machine_folders(path)
    assert [f.split(":")[0] for f in found] == ["cell 0", "cell 1", "cell 1"], found
