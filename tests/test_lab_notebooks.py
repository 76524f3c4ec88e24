"""scripts/lab_notebooks.py: the working copy `make lab` opens, and `make lab-refresh`."""

import secrets
import shutil
import subprocess
from pathlib import Path

import lab_notebooks
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _status() -> str:
    command = ["git", "status", "--porcelain", "--untracked-files=all"]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout


@pytest.fixture
def dest():
    """A working copy of this test's own (same pattern as my-notebooks/, so git ignores it)."""
    folder = ROOT / f"my-notebooks-test-{secrets.token_hex(4)}"
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(folder.parent / f"{folder.name}-saved", ignore_errors=True)


def test_the_copy_is_made_kept_and_refreshed_and_git_sees_none_of_it(dest: Path):
    before = _status()
    series = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert len(series) >= 8
    done = lab_notebooks.sync(dest)
    assert sorted(p.name for p in dest.glob("*.ipynb")) == series and len(done) == len(series)
    first = dest / series[0]
    assert first.read_bytes() == (ROOT / "notebooks" / series[0]).read_bytes()

    first.write_text("{}")  # the learner's work: kept by make lab, also after a new notebook
    (dest / series[1]).unlink()
    assert lab_notebooks.sync(dest) == [f"copied notebooks/{series[1]} to {dest.name}/"]
    assert first.read_text() == "{}"
    assert _status() == before  # git ignores the copy

    done = lab_notebooks.sync(dest, refresh=True)
    (saved,) = (dest.parent / f"{dest.name}-saved").iterdir()
    assert done == [f"saved your {series[0]} in {saved.relative_to(ROOT)}/", done[1]]
    assert (saved / series[0]).read_text() == "{}"
    assert first.read_bytes() == (ROOT / "notebooks" / series[0]).read_bytes()
    assert lab_notebooks.sync(dest, refresh=True) == []  # nothing differs any more
    assert _status() == before


def test_the_copy_must_sit_next_to_notebooks(tmp_path: Path):
    with pytest.raises(ValueError, match="dest must be a folder in the repository next to"):
        lab_notebooks.sync(tmp_path / "my-notebooks")
    with pytest.raises(ValueError, match="must not be notebooks/ itself"):
        lab_notebooks.sync(ROOT / "notebooks")
