"""What a pip user gets: the wheel, installed outside the repository, without the editable install.

``make setup`` installs the package in editable mode, which hides a missing subpackage or data
file. Here the wheel is built (``pip wheel --no-deps --no-build-isolation``), unpacked into a
folder of its own with ``pip install --target``, put first on ``PYTHONPATH``, and used from a
folder outside the repository: the picture, one figure of every plotting module, the exercises,
and every notebook under strict nbval (two at a time with pytest-xdist), as a teacher runs them
after ``pip install "vitexplain[notebooks]"``: the wheel's metadata must declare that extra, and
every module a notebook imports must come from the standard library, the package, its
dependencies or that extra. The figures the notebooks draw there are compared with ``figures/``.

These tests carry the marker ``wheel``: ``make test`` runs them as its last step,
``make test-notebooks-baseline``, under the instruction set of another CPU (the Makefile's
ISA_BASELINE), so that CI runs each notebook twice, here and in the repository, never more.
"""

from __future__ import annotations

import ast
import email
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from importlib.metadata import packages_distributions
from pathlib import Path

import compare_figures
import execute_notebooks
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import vitexplain

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
EXTRA = "notebooks"  # pip install "vitexplain[notebooks]"

# One call per plotting module, on small data: each must return a Figure.
USE_THE_INSTALLED_PACKAGE = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import numpy as np
    import torch
    from matplotlib.figure import Figure

    import vitexplain as vx
    from vitexplain import plotting

    site = Path(sys.argv[1]).resolve()
    assert Path(vx.__file__).resolve().is_relative_to(site), vx.__file__
    assert vx.__version__ == sys.argv[2]
    picture = vx.load_mountains()
    assert picture.shape == (60, 100) and np.array_equal(picture, vx.mountain_at_dusk())
    pe = vx.sinusoid_encoding(16, 8)
    run = {"epoch": [1, 2], "loss": [1, 0.5], "train_accuracy": [0.5, 1], "test_accuracy": [0.5, 1]}
    sim = vx.grid_similarity(pe[None], (3, 5), num_prefix_tokens=1)
    figures = {
        "core": vx.show_image(picture),
        "patches": vx.show_patch_grid(picture, 20),
        "attention": vx.show_matrices([torch.eye(3)], ["I"]),
        "position": vx.show_columns(vx.sinusoid_encoding(20, 8), [0, 2]),
        "clocks": vx.show_clocks(vx.sinusoid_encoding(10, 4)),
        "position_similarity": vx.show_similarity(pe @ pe.T, starts=(0, 4)),
        "relative_position": vx.show_relative_distances(vx.relative_index(3)),
        "t2t": vx.show_padded_token(np.zeros((4, 4)), np.ones(16), number=1),
        "t2t_animation": vx.show_softsplit_frame(picture, 20, 10, 5, current=0),
        "training": vx.show_training_curves({"run": run}),
        "learned_position": vx.show_position_similarity([sim], ["sin-cos"]),
        "attribution": vx.show_lens_accuracy([0.5, 0.9], [0.4, 0.9]),
    }
    assert all(isinstance(fig, Figure) for fig in figures.values())
    assert len(vx.figure_to_png(figures["patches"])) > 1000
    assert vx.exercises.grade("01.1", (196, 768)) is None
    assert vx.exercises.solution("01.1") is not None
    assert vx.load_trained_digits_vit("learned").head.out_features == 10  # package data
    assert vx.load_marked_digits_vit().head.out_features == 10
    assert len(vx.load_marker_record()["marker"]["seeds"]) == 3
    print("ok", len(figures), "figures")
    """
)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout, installed into a folder of its own."""
    work = tmp_path_factory.mktemp("wheel")
    # Built from a copy of what the sdist holds: the checkout gets no build/ folder, and two
    # test runs at once cannot build into each other's.
    source = work / "src"
    shutil.copytree(
        ROOT / "vitexplain", source / "vitexplain", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", work / "dist", source],
        check=True,
        cwd=work,
    )
    (wheel,) = (work / "dist").glob("vitexplain-*.whl")
    assert wheel.name.startswith(f"vitexplain-{vitexplain.__version__}-")  # version in one place
    site = work / "site"
    subprocess.run([*pip, "install", "--no-deps", "--target", site, wheel], check=True, cwd=work)
    return site


def _outside_env(site: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "VITEXPLAIN_FIGURES_DIR"}
    env["PYTHONPATH"] = str(site)
    return env


def test_the_wheel_holds_every_subpackage(installed: Path):
    packages = {p.parent.relative_to(installed) for p in installed.rglob("__init__.py")}
    expected = {p.parent.relative_to(ROOT) for p in (ROOT / "vitexplain").rglob("__init__.py")}
    weights = {p.name for p in (installed / "vitexplain" / "weights").glob("*.pt")}
    assert weights == {"digits_vit_learned.pt", "digits_vit_marker.pt", "digits_vit_none.pt"}
    assert packages == expected
    modules = {p.relative_to(installed) for p in installed.rglob("*.py")}
    assert modules == {p.relative_to(ROOT) for p in (ROOT / "vitexplain").rglob("*.py")}


def test_the_installed_package_works_outside_the_repository(installed: Path, tmp_path: Path):
    script = tmp_path / "use.py"
    script.write_text(USE_THE_INSTALLED_PACKAGE)
    result = subprocess.run(
        [sys.executable, script, installed, vitexplain.__version__],
        cwd=tmp_path,
        env=_outside_env(installed),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "ok 12 figures" in result.stdout


def _metadata(installed: Path) -> email.message.Message:
    (info,) = installed.glob("vitexplain-*.dist-info")
    return email.message_from_string((info / "METADATA").read_text(encoding="utf-8"))


def _notebook_imports(path: Path) -> set[str]:
    """Top-level modules the code cells of a notebook import."""
    modules = set()
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "code":
            continue
        code = "".join(cell["source"])
        lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))]
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                modules.add(node.module.split(".")[0])
    return modules


def test_the_notebooks_extra_brings_what_every_notebook_imports(installed: Path):
    metadata = _metadata(installed)
    assert EXTRA in metadata.get_all("Provides-Extra", [])
    requirements = [Requirement(r) for r in metadata.get_all("Requires-Dist", [])]
    base = {canonicalize_name(r.name) for r in requirements if r.marker is None}
    extra = {
        canonicalize_name(r.name)
        for r in requirements
        if r.marker is not None and r.marker.evaluate({"extra": EXTRA})
    }
    # A Jupyter to run them in, its kernel, and the Explore sections' controls.
    assert {"jupyterlab", "ipykernel", "ipywidgets"} <= extra, extra
    assert not (extra & {"pytest", "nbval", "ruff", "playwright"}), extra  # no test tools
    distributions = packages_distributions()
    imports = set().union(*(_notebook_imports(p) for p in NOTEBOOKS))
    assert {"torch", "vitexplain"} <= imports  # the parser sees the imports
    missing = {}
    for module in sorted(imports - set(sys.stdlib_module_names) - {"vitexplain"}):
        names = {canonicalize_name(d) for d in distributions.get(module, [])}
        if not names & (base | extra):
            missing[module] = sorted(names) or "not installed"
    assert not missing, f"imported by a notebook, brought by neither the package nor [{EXTRA}]"


def test_every_notebook_passes_nbval_outside_the_repository_and_writes_nothing(
    installed: Path, tmp_path: Path
):
    """The notebooks copied into a folder of their own, run by the current environment's kernel
    (which has the [notebooks] extra) with the wheel first on its path, under strict nbval; the
    figures they save (into a folder outside theirs) match the committed ones."""
    folder, figures = tmp_path / "course", tmp_path / "figures"
    folder.mkdir()
    for path in NOTEBOOKS:
        shutil.copy(path, folder)
    assert len(NOTEBOOKS) >= 8
    shutil.copy(ROOT / "tests" / "nbval_sanitize.cfg", tmp_path)
    before = sorted(p.name for p in folder.iterdir())
    # Two notebooks at a time when pytest-xdist is there (one kernel each), the longest first
    # and in that order (the one that starts last decides when the run ends).
    parallel = ["-n", "2", "--dist", "loadfile", "--no-loadscope-reorder"]
    parallel = parallel if importlib.util.find_spec("xdist") else []
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--nbval",
            "--nbval-current-env",
            "--nbval-sanitize-with",
            tmp_path / "nbval_sanitize.cfg",
            *parallel,
            "-o",
            "addopts=",
            "--rootdir",
            folder,
            *(folder / path.name for path in execute_notebooks.longest_first(NOTEBOOKS)),
        ],
        cwd=folder,
        env={**_outside_env(installed), "VITEXPLAIN_FIGURES_DIR": str(figures)},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-5000:]
    assert " passed" in result.stdout and " failed" not in result.stdout
    assert sorted(p.name for p in folder.iterdir()) == before  # no figure, no file
    assert compare_figures.compare(figures, ROOT / "figures", tol=1.0) == []
