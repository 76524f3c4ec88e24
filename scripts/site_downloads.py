"""The site's downloads: the package's wheel and sdist, and a zip of the notebooks.

`make html` runs it before Sphinx (into build/site-src/downloads/), so a reader of the site alone
gets what running the notebooks needs, made from this checkout's own files: the wheel and the
sdist by setuptools' own build backend (PEP 517, ``setuptools.build_meta``; the light docs
environment has setuptools, no torch is needed to build), from a copy of what the sdist holds
(the checkout gets no build/ or egg-info folder); the notebooks zipped as they are in git, in one
folder ``vitexplain-notebooks-<version>/``, with a fixed date, so the zip's bytes depend on the
notebooks only.

    python scripts/site_downloads.py OUT_DIR
"""

from __future__ import annotations

import argparse
import ast
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SDIST_FILES = ("pyproject.toml", "README.md", "LICENSE")
ZIP_DATE = (2000, 1, 1, 0, 0, 0)  # any fixed date: the zip's bytes depend on its files only


def package_version(root: Path = ROOT) -> str:
    """vitexplain.__version__, read from the source (importing the package would need torch)."""
    tree = ast.parse((root / "vitexplain" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise RuntimeError("vitexplain/__init__.py defines no __version__")


def build_package(out: Path, root: Path = ROOT) -> list[Path]:
    """Build the wheel and the sdist into `out` with setuptools' PEP 517 backend; returns both."""
    with tempfile.TemporaryDirectory(prefix="vitexplain-dist-") as tmp:
        source = Path(tmp) / "src"
        shutil.copytree(
            root / "vitexplain",
            source / "vitexplain",
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
        for name in SDIST_FILES:
            shutil.copy(root / name, source)
        made = []
        for hook in ("build_wheel", "build_sdist"):  # one process each, as pip and build do
            backend = (
                f"import sys; from setuptools import build_meta as b; print(b.{hook}(sys.argv[1]))"
            )
            result = subprocess.run(
                [sys.executable, "-c", backend, str(out.resolve())],
                cwd=source,
                check=True,
                capture_output=True,
                text=True,
            )
            made.append(out / result.stdout.splitlines()[-1])  # the backend's own log comes first
    return made


def zip_notebooks(out: Path, version: str, root: Path = ROOT) -> Path:
    """The notebooks, as git has them, in one folder of a zip."""
    folder = f"vitexplain-notebooks-{version}"
    target = out / f"{folder}.zip"
    notebooks = sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if not notebooks:
        raise FileNotFoundError(f"no notebooks in {root / 'notebooks'}")
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in notebooks:
            info = zipfile.ZipInfo(f"{folder}/{path.name}", date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder to write the three files into")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    version = package_version()
    made = [*build_package(args.out), zip_notebooks(args.out, version)]
    for path in made:
        print(f"{path}  {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
