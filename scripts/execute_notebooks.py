"""Re-execute notebooks in place so that running it twice changes no byte (``make figures``).

For each notebook: run every cell with nbclient in the notebook's own folder (figures are saved
only where ``VITEXPLAIN_FIGURES_DIR`` points; ``make figures`` sets it to ``figures/``), then make
the stored file independent of timing:

* no execution timings, no widget state (random widget ids);
* consecutive stream outputs of a cell merged (the kernel splits printed text at arbitrary points);
* outputs of cells tagged ``explore`` dropped: their live widgets only mean something in a running
  JupyterLab, and nbval ignores them (``# NBVAL_IGNORE_OUTPUT``) while still running the cell;
  likewise cells tagged ``timing``, whose output (seconds on this machine) changes on every run.

Usage: ``python scripts/execute_notebooks.py [--jobs N] notebooks/*.ipynb`` (two notebooks at a
time by default: most of a notebook's time is its kernel starting and importing, on one core).
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient

# Cells whose output is never stored: live widgets, and timings that change on every run.
UNSTORED_TAGS = {"explore", "timing"}


def merge_streams(outputs: list) -> list:
    """Join consecutive stream outputs of the same stream (stdout / stderr) into one."""
    merged: list = []
    for out in outputs:
        last = merged[-1] if merged else None
        same_stream = (
            out.get("output_type") == "stream"
            and last is not None
            and last.get("output_type") == "stream"
            and last["name"] == out["name"]
        )
        if same_stream:
            last["text"] += out["text"]
        else:
            merged.append(out)
    return merged


def execute(path: Path) -> float:
    """Execute one notebook in place; return the seconds it took."""
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
        store_widget_state=False,
    ).execute()
    seconds = time.perf_counter() - start
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if UNSTORED_TAGS & set(cell.metadata.get("tags", [])):
            cell.outputs = []
        else:
            cell.outputs = merge_streams(cell.outputs)
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description="Re-execute notebooks in place, reproducibly.")
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--jobs", type=int, default=2, help="notebooks executed at once")
    args = parser.parse_args()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for path, seconds in zip(args.notebooks, pool.map(execute, args.notebooks), strict=True):
            print(f"{path}: executed in {seconds:.1f} s")


if __name__ == "__main__":
    main()
