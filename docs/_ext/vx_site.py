"""What the site needs beyond Sphinx, myst-nb and sphinx-book-theme (see docs/conf.py).

* ``mathcore``: an HTML math renderer that writes MathML at build time with math-core (no
  MathJax, nothing loaded by the page); display math sits in a box that scrolls by itself.
* Notebooks: a figure stored as image/png or image/gif with ``metadata[mime]["alt"]`` (the
  format before figures became HTML ``<figure>`` outputs) is given the same text/html bundle, so
  its alt text reaches the ``<img>``; a short "run it yourself" note with a download link to the
  notebook follows the first cell.
* The index: the README's notebook table (thumbnail, notebook, summary) and the toctree, written
  where ``docs/index.md`` has the line ``<!-- vx-notebook-table -->``.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from docutils import nodes
from math_core import LatexError, LatexToMathML
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)
_MATHML = LatexToMathML()
TABLE_MARKER = "<!-- vx-notebook-table -->"

# --- math -------------------------------------------------------------------------------------


def _to_mathml(node: nodes.Element, latex: str, display: bool) -> str:
    try:
        return _MATHML.convert_with_local_state(latex.strip(), displaystyle=display)
    except LatexError as error:
        logger.warning("math-core cannot convert %r: %s", latex, error, location=node)
        return f"<code>{html.escape(latex)}</code>"


def visit_math(self, node: nodes.math) -> None:
    self.body.append(_to_mathml(node, node.astext(), display=False))
    raise nodes.SkipNode


def visit_math_block(self, node: nodes.math_block) -> None:
    ids = " ".join(node["ids"])
    self.body.append(f'<div class="vx-math"{f" id={ids!r}" if ids else ""}>')
    self.body.append(_to_mathml(node, node.astext(), display=True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


# --- notebooks --------------------------------------------------------------------------------


def figure_html(mime: str, data: str | list[str], alt: str) -> str:
    """The text/html bundle of a figure: an <img> with its alt text, data embedded."""
    payload = "".join(data) if isinstance(data, list) else data
    src = f"data:{mime};base64,{''.join(payload.split())}"
    return f'<figure class="vx-figure"><img src="{src}" alt="{html.escape(alt)}"></figure>'


def add_figure_html(notebook: dict) -> int:
    """Give every image output that carries alt text in its metadata, and has no text/html yet,
    a text/html figure (myst-nb prefers text/html in HTML). Returns how many it changed."""
    changed = 0
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            for mime in ("image/gif", "image/png"):
                alt = output.get("metadata", {}).get(mime, {}).get("alt")
                if mime in data and alt and "text/html" not in data:
                    data["text/html"] = figure_html(mime, data[mime], alt)
                    changed += 1
    return changed


def run_it_yourself(filename: str) -> dict:
    """The markdown cell put after a notebook's first cell."""
    text = (
        "```{admonition} Run it yourself\n"
        ":class: tip vx-run\n"
        "This page shows the notebook with the outputs stored in it; nothing was run to build "
        f"it. Download {{download}}`{filename} <{filename}>` and open it in JupyterLab in an "
        "environment with the package and its `notebooks` extra (`pip install torch==2.13.0`, "
        'then `pip install "vitexplain[notebooks]"` from the repository); or clone the repository '
        "and run `make lab`: it sets up the locked environment and opens your own copy of every "
        "notebook in JupyterLab, where you can run the cells, change the code and save.\n"
        "```"
    )
    return {"cell_type": "markdown", "metadata": {}, "source": text, "id": "vx-run-it-yourself"}


# --- the index from the README --------------------------------------------------------------

_ROW = re.compile(
    r"^\|\s*<img\s[^>]*?src=\"(?P<src>[^\"]+)\"[^>]*?>\s*\|"
    r"\s*\[(?P<title>[^\]]+)\]\((?P<notebook>notebooks/[^)]+\.ipynb)\)\s*\|(?P<summary>.*)\|\s*$"
)
_ALT = re.compile(r'alt="([^"]*)"')


def readme_rows(readme: Path) -> list[dict[str, str]]:
    """Thumbnail src and alt, title, notebook path and summary of each row of the README's
    notebook table."""
    rows = []
    for line in readme.read_text(encoding="utf-8").splitlines():
        match = _ROW.match(line)
        if match:
            alt = _ALT.search(line)
            if alt is None or not alt[1].strip():
                raise ExtensionError(f"README thumbnail {match['src']} has no alt text")
            rows.append({**match.groupdict(), "alt": alt[1], "summary": match["summary"].strip()})
    return rows


def index_markdown(rows: list[dict[str, str]], notebooks: list[str]) -> str:
    """The MyST of the notebook table and the (hidden) toctree, from the README's rows."""
    listed = [row["notebook"] for row in rows]
    missing = sorted(set(notebooks) - set(listed))
    if missing:
        raise ExtensionError(f"the README's notebook table lacks {missing}")
    lines = ["| Preview | Notebook | What it shows |", "|---|---|---|"]
    for row in rows:
        lines.append(
            f"| ![{row['alt']}]({row['src']}) | [{row['title']}]({row['notebook']}) "
            f"| {row['summary']} |"
        )
    toctree = "\n".join(n.removesuffix(".ipynb") for n in listed)
    table = "\n".join(lines)
    return (
        f":::{{container}} vx-index\n{table}\n:::\n\n"
        f"```{{toctree}}\n:hidden:\n:caption: Notebooks\n\n{toctree}\n```\n\n"
        "```{toctree}\n:hidden:\n:caption: About\n\nabout\n```\n"
    )


# --- events -----------------------------------------------------------------------------------


def source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    if docname == app.config.root_doc and TABLE_MARKER in source[0]:
        root = Path(app.confdir).parent
        notebooks = sorted(
            f"notebooks/{p.name}" for p in (root / "notebooks").glob("[0-9][0-9]_*.ipynb")
        )
        table = index_markdown(readme_rows(root / "README.md"), notebooks)
        source[0] = source[0].replace(TABLE_MARKER, table)
    elif app.env.doc2path(docname).suffix == ".ipynb":
        notebook = json.loads(source[0])
        add_figure_html(notebook)
        filename = Path(app.env.doc2path(docname)).name
        notebook["cells"].insert(1, run_it_yourself(filename))
        source[0] = json.dumps(notebook)


def setup(app: Sphinx) -> dict:
    app.add_html_math_renderer("mathcore", (visit_math, None), (visit_math_block, None))
    app.connect("source-read", source_read)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
