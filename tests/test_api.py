"""vitexplain/__init__.py: one list of public names, plain imports, no work at import time."""

import re
import subprocess
import sys
import types
from collections import Counter
from pathlib import Path

import pytest

import vitexplain as vx
import vitexplain.plotting

# Nothing here compares a float that PyTorch or NumPy computed: `make test-baseline` leaves it out.
pytestmark = pytest.mark.cpu_independent

ROOT = Path(__file__).resolve().parents[1]
READER_TEXTS = [
    *sorted((ROOT / "notebooks").glob("*.ipynb")),
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
]


def _used_names() -> dict[str, set[str]]:
    """{"name" or "module.name": files} for every ``vx.<name>`` the notebooks and docs write."""
    used: dict[str, set[str]] = {}
    for path in READER_TEXTS:
        for chain in re.findall(r"\bvx\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)", path.read_text()):
            used.setdefault(chain, set()).add(path.name)
    return used


def test_all_has_no_duplicates_and_every_name_resolves():
    duplicates = [name for name, count in Counter(vx.__all__).items() if count > 1]
    assert duplicates == []
    missing = [name for name in vx.__all__ if not hasattr(vx, name)]
    assert missing == []


def test_all_is_what_the_imports_bind():
    """Every public value bound in the package's namespace is in __all__, and nothing else."""
    bound = {
        name
        for name, value in vars(vx).items()
        if not name.startswith("_")
        and not (isinstance(value, types.ModuleType) and name != "exercises")
    }
    assert bound - {"annotations"} == set(vx.__all__)


def test_every_name_the_notebooks_and_docs_use_is_public():
    used = _used_names()
    assert len(used) > 100  # the grep found the notebooks' calls
    for chain, files in sorted(used.items()):
        head, _, attribute = chain.partition(".")
        value = getattr(vx, head, None)
        if isinstance(value, types.ModuleType) and head != "exercises":
            # vx.digits.WEIGHTS_DIR: a module's own constant, reached through its module
            assert attribute and hasattr(value, attribute), (chain, files)
        else:
            assert head in vx.__all__, (chain, files)


def test_every_public_name_is_used_by_a_reader_or_a_test():
    texts = [p.read_text() for p in READER_TEXTS]
    texts += [p.read_text() for p in sorted((ROOT / "tests").glob("test_*.py"))]
    words = set(re.findall(r"\b\w+\b", "\n".join(texts)))
    assert [name for name in vx.__all__ if name not in words] == []


def test_plotting_lists_each_module_name_once():
    modules = [
        value
        for name, value in vars(vitexplain.plotting).items()
        if isinstance(value, types.ModuleType) and value.__name__.startswith("vitexplain.plotting.")
    ]
    assert len(modules) == 14
    names = [name for module in modules for name in module.__all__]
    assert len(names) == len(set(names))  # no name in two modules
    assert sorted(vitexplain.plotting.__all__) == sorted(names)
    for name in vitexplain.plotting.__all__:
        assert hasattr(vitexplain.plotting, name), name
    figure_functions = {n for n in names if n.startswith("show_")}
    assert figure_functions <= set(vx.__all__)


def test_import_loads_no_matplotlib_and_no_widgets():
    code = (
        "import sys, vitexplain as vx; vx.show_image; vx.interact_figure; vx.exercises.check;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'matplotlib', 'ipywidgets', 'IPython', 'PIL', 'scipy', 'sklearn'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
