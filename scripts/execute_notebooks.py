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
time by default, the longest first). ``--order`` only prints the paths, longest first, for the
Makefile's nbval runs and ``tests/test_wheel.py``: with two notebooks at a time, the one that starts
last decides when the run ends, so the notebooks that train start first.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

# Cells whose output is never stored: live widgets, and timings that change on every run.
UNSTORED_TAGS = {"explore", "timing"}

# Notebook numbers, longest run first (processor seconds, measured 2026-11-29, see CONTRIBUTING):
# 08 trains a ViT, 06 and 07 train theirs and probe them, 05 runs the T2T module on 400 x 100
# pictures. A notebook not listed (a new one) starts before all of them.
LONGEST_FIRST = ("08", "06", "07", "05", "09", "03", "04", "02", "01")


def longest_first(paths: list[Path]) -> list[Path]:
    """The notebooks in the order to start them: unlisted ones, then ``LONGEST_FIRST``."""
    rank = {number: i for i, number in enumerate(LONGEST_FIRST)}
    return sorted(paths, key=lambda path: (rank.get(path.name[:2], -1), path.name))


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
    import nbformat  # here, not at the top: `--order` starts without them
    from nbclient import NotebookClient

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
    parser.add_argument("--order", action="store_true", help="only print them, longest first")
    args = parser.parse_args()
    paths = longest_first(args.notebooks)
    if args.order:
        print(*paths)
        sys.exit()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for path, seconds in zip(paths, pool.map(execute, paths), strict=True):
            print(f"{path}: executed in {seconds:.1f} s")


if __name__ == "__main__":
    main()
