"""The learner's working copy of the notebooks, which `make lab` opens (never notebooks/ itself).

    python scripts/lab_notebooks.py my-notebooks            # make lab: copy what is missing
    python scripts/lab_notebooks.py --refresh my-notebooks  # make lab-refresh

The working copy is a folder next to notebooks/ (so the notebooks' links such as
``../vitexplain/patches.py`` still lead somewhere) that git ignores (``/my-notebooks*/`` in
.gitignore): running, editing and saving a notebook there, by hand or by JupyterLab's autosave,
changes no tracked file. Without ``--refresh`` only the notebooks missing from it are copied (all of
them on first use; a notebook added to the series later), so a learner's work is never
overwritten. ``--refresh`` puts the series' version of every notebook back; a copy the learner had
changed is first moved to ``my-notebooks-saved/<UTC date and time>/`` (also ignored).
"""

from __future__ import annotations

import argparse
import datetime as dt
import filecmp
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "notebooks"


def _saved_folder(dest: Path) -> Path:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d_%H%M%S")
    return dest.parent / f"{dest.name}-saved" / stamp


def sync(dest: Path, refresh: bool = False) -> list[str]:
    """Copy the series' notebooks into ``dest``; return one line per notebook copied or saved.

    Args:
        dest: the working copy, a folder next to notebooks/.
        refresh: also replace the notebooks that differ from the series' version (the changed
            copies are moved to ``<dest>-saved/<date and time>/`` first).

    Returns:
        What was done, one line per file.
    """
    dest = dest.resolve()
    if dest.parent != ROOT:
        raise ValueError(
            f"dest must be a folder in the repository next to notebooks/, such as "
            f"{ROOT / 'my-notebooks'}, got {dest}"
        )
    if dest == SOURCE:
        raise ValueError("dest must not be notebooks/ itself: the working copy is a copy")
    dest.mkdir(exist_ok=True)
    done = []
    saved = None
    for notebook in sorted(SOURCE.glob("*.ipynb")):
        copy = dest / notebook.name
        if copy.exists():
            if not refresh or filecmp.cmp(notebook, copy, shallow=False):
                continue
            saved = saved or _saved_folder(dest)
            saved.mkdir(parents=True, exist_ok=True)
            shutil.move(copy, saved / notebook.name)
            done.append(f"saved your {notebook.name} in {saved.relative_to(ROOT)}/")
        shutil.copyfile(notebook, copy)
        done.append(f"copied notebooks/{notebook.name} to {dest.relative_to(ROOT)}/")
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="the working copy, e.g. my-notebooks")
    parser.add_argument(
        "--refresh", action="store_true", help="put the series' version of every notebook back"
    )
    args = parser.parse_args(argv)
    for line in sync(args.dest, refresh=args.refresh):
        print(line)
    if args.refresh:
        print(f"{args.dest}/ holds the series' notebooks as they are in notebooks/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
