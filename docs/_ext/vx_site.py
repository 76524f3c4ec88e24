"""What the site needs beyond Sphinx, myst-nb and sphinx-book-theme (see docs/conf.py).

* ``mathcore``: an HTML math renderer that writes MathML at build time with math-core (no
  MathJax, nothing loaded by the page); display math sits in a box that scrolls by itself.
* Notebooks: a short "run it yourself" note with a download link to the notebook follows the
  first cell. (Every figure is stored as an HTML ``<figure>`` output with its alt text and
  caption; no stored output is an image with its alt text in metadata any more.)
* The index: the README's notebook table (thumbnail, notebook, summary) and the toctree, written
  where ``docs/index.md`` has the line ``<!-- vx-notebook-table -->``.
* The "Run it yourself" page (docs/run.md): the downloads that `make html` builds into the
  sources' downloads/ folder (scripts/site_downloads.py: wheel, sdist, notebooks zip) and the
  commands that take a fresh machine from them to JupyterLab, written where the page has the line
  ``<!-- vx-downloads -->``; the torch pin from requirements.lock, the Python range and any
  repository address from the project's metadata (none is invented).
* Figure code a reader can hide: a code cell that draws a figure with its alt text and caption
  (``vx.display_figure(..., caption=...)``) gets myst-nb's ``hide-input`` tag, so its code sits
  behind a "Show" toggle and a screen reader hears the alt text and caption once, from the figure.
  The toggle is named after the figures it draws ("Show the code of Figure 3.2", cell metadata
  myst-nb reads), without myst-nb's aria-label "Toggle hidden content" (its HTML visitor).
* Search with sections and snippets, offline: the text of every section goes into
  ``_static/vx-search-text.js`` (a classic script the search page loads; ``file://`` forbids the
  fetch Sphinx would use), which ``_static/vx-search.js`` turns into section links with a snippet.
* Every built page keeps one viewport meta tag and loads no icon script (_templates/layout.html):
  the theme's 1.56 MB Font Awesome script turns its <i class="fa-..."> icons into SVG, which its
  own style sheet already draws with the local web font (_static/vendor/fontawesome/webfonts);
  the script and the theme's source maps are removed from the build. The layout also puts the
  contents sidebar in front of the article, for the Tab order.
* Code lines as blocks: Pygments' HTML formatter is replaced by one that wraps each line of a
  highlighted code block in ``<span class="vx-line" style="--vx-indent: N">`` (N its leading
  spaces), so that print (vx.css) can wrap a long line with its continuation indented under the
  line's own code instead of at column 0.
* No built page is rewritten: every change to the theme's markup is a template block.
"""

from __future__ import annotations

import html
import json
import re
import tomllib
from pathlib import Path

import yaml
from docutils import nodes
from math_core import LatexError, LatexToMathML
from myst_nb.sphinx_ import HideCodeCellNode, depart_HideCellInput
from pygments.formatters import HtmlFormatter
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)
_MATHML = LatexToMathML()
TABLE_MARKER = "<!-- vx-notebook-table -->"
DOWNLOADS_MARKER = "<!-- vx-downloads -->"
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"  # PyTorch's own index of CPU-only builds

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


def run_it_yourself(filename: str) -> dict:
    """The markdown cell put after a notebook's first cell."""
    text = (
        "```{admonition} Run it yourself\n"
        ":class: tip vx-run\n"
        "This page shows the notebook with the outputs stored in it; nothing was run to build "
        f"it. Download {{download}}`{filename} <{filename}>` (a browser shows a `.ipynb` link "
        "of a page read from a file as text: right-click the link and choose *Save link as*), "
        "or all the notebooks as one zip from {doc}`/run`, which also offers the package and "
        "the three commands that take a fresh machine to JupyterLab. With a copy of the "
        "project's repository, `make lab` sets up the locked environment and opens your own "
        "copy of every notebook in JupyterLab, where you can run the cells, change the code "
        "and save.\n"
        "```"
    )
    return {"cell_type": "markdown", "metadata": {}, "source": text, "id": "vx-run-it-yourself"}


_FIGURE_NUMBER = re.compile(r"<figcaption[^>]*>\s*(Figure \d+\.\d+)")


def toggle_words(numbers: list[str]) -> tuple[str, str]:
    """The words of the toggle in front of the code of these figures (their summary's text, so
    its accessible name): "Show the code of Figure 3.2", or "... of Figures 6.1 and 6.2"."""
    if len(numbers) == 1:
        what = numbers[0]
    else:
        what = "Figures " + ", ".join(n.removeprefix("Figure ") for n in numbers[:-1])
        what += " and " + numbers[-1].removeprefix("Figure ")
    return f"Show the code of {what}", f"Hide the code of {what}"


def hide_figure_code(notebook: dict) -> int:
    """Tag ``hide-input`` every code cell that draws a figure with its caption (its alt text and
    caption are string literals in the code, which the figure also says), its toggle named
    after the figures it draws. Returns how many."""
    hidden = 0
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        source = "".join(cell.get("source", ""))
        html_outputs = "".join(
            "".join(output.get("data", {}).get("text/html", ""))
            for output in cell.get("outputs", [])
        )
        draws = '<figure class="vx-figure"' in html_outputs
        if draws and "display_figure(" in source and "caption=" in source:
            metadata = cell.setdefault("metadata", {})
            tags = metadata.setdefault("tags", [])
            if "hide-input" not in tags:
                tags.append("hide-input")
                hidden += 1
            numbers = _FIGURE_NUMBER.findall(html_outputs)
            if numbers:
                show, hide = toggle_words(numbers)
                metadata.setdefault("mystnb", {}).update(
                    code_prompt_show=show, code_prompt_hide=hide
                )
    return hidden


def visit_hidden_cell(self, node: nodes.Element) -> None:
    """myst-nb's toggle of a hidden cell without its aria-label "Toggle hidden content" (the
    same for every toggle): the summary is named by its visible words (toggle_words)."""
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n<summary>\n')
    for state, words in (("collapsed", node["prompt_show"]), ("expanded", node["prompt_hide"])):
        self.body.append(f'<p class="{state} admonition-title">{html.escape(words)}</p>\n')
    self.body.append("</summary>\n")


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
        "```{toctree}\n:hidden:\n:caption: Check yourself\n\nconcepts\n```\n\n"
        "```{toctree}\n:hidden:\n:caption: About\n\nabout\nrun\n```\n"
    )


# --- the Run it yourself page ----------------------------------------------------------------


def _size(path: Path) -> str:
    return f"{path.stat().st_size / 1e6:.1f} MB"


def torch_pin(lock: Path) -> str:
    """The exact torch requirement of the lock (``torch==2.13.0``)."""
    for line in lock.read_text(encoding="utf-8").splitlines():
        if re.match(r"^torch==\S+$", line.strip()):
            return line.strip()
    raise ExtensionError(f"{lock.name} pins no torch")


def repository_url(root: Path) -> str | None:
    """The repository's address if the project's metadata gives one (CITATION.cff's
    repository-code, or a Repository/Source/Homepage URL in pyproject.toml), else None."""
    citation = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
    if citation.get("repository-code"):
        return citation["repository-code"]
    urls = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"].get(
        "urls", {}
    )
    for key in ("Repository", "Source", "Source Code", "Homepage"):
        if urls.get(key):
            return urls[key]
    return None


def downloads_markdown(folder: Path, root: Path) -> str:
    """The MyST of the downloads table and the commands, from the files in `folder`."""
    wheels = sorted(folder.glob("vitexplain-*.whl"))
    sdists = sorted(folder.glob("vitexplain-*.tar.gz"))
    zips = sorted(folder.glob("vitexplain-notebooks-*.zip"))
    if not (len(wheels) == len(sdists) == len(zips) == 1):
        raise ExtensionError(f"{folder} must hold one wheel, one sdist and one notebooks zip")
    wheel, sdist, notebooks = wheels[0], sdists[0], zips[0]
    python = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "requires-python"
    ]
    unzipped = notebooks.name.removesuffix(".zip")

    def link(path: Path) -> str:
        return f"{{download}}`{path.name} </downloads/{path.name}>`"

    repository = repository_url(root)
    where = (
        f"the project's repository, <{repository}>"
        if repository
        else "a copy of the project's repository"
    )
    return f"""(downloads)=
## Downloads

| File | What it is | Size |
|---|---|---|
| {link(notebooks)} | the nine notebooks, in one folder `{unzipped}/` | {_size(notebooks)} |
| {link(wheel)} | the package `vitexplain` (a wheel: what pip installs) | {_size(wheel)} |
| {link(sdist)} | the package's source (an sdist: pip builds a wheel of it) | {_size(sdist)} |

(commands)=
## From these files to JupyterLab

You need Python {python.replace(">=", "")} or newer and pip. In a terminal, in the folder that holds
the downloads, make a fresh virtual environment and unzip the notebooks (on Windows, activate
with `vx-env\\Scripts\\activate` instead of the `source` line):

:::{{container}} vx-setup
```bash
python3 -m venv vx-env
source vx-env/bin/activate
python -m zipfile -e {notebooks.name} .
```
:::

Then three commands:

:::{{container}} vx-commands
```bash
pip install {torch_pin(root / "requirements.lock")} --index-url {TORCH_INDEX}
pip install "./{wheel.name}[notebooks]"
jupyter lab {unzipped}
```
:::

1. PyTorch first, the CPU build from PyTorch's own index: without `--index-url`, pip takes
   PyPI's build, which on Linux is the CUDA build of several GB. The stored outputs were made
   with this version.
2. The package from the wheel, with its `notebooks` extra (JupyterLab, ipykernel and ipywidgets);
   pip takes the other dependencies (NumPy, Matplotlib, scikit-learn, ...) from PyPI.
3. JupyterLab on the notebooks' folder. It prints the address to open, with its token; open
   `01_patch_tokenization.ipynb` and run the cells.

With {where}, `make lab` does the same with the exact versions of its lock file and opens your
own copy of every notebook (see its README).
"""


# --- BibTeX -------------------------------------------------------------------------------------

BIBTEX_MARKER = "<!-- vx-bibtex -->"


def bibtex(citation: dict) -> str:
    """A BibTeX @software entry from CITATION.cff's fields: authors, title, year (of
    date-released), version, licence, and the repository or URL if the file has one."""
    authors = " and ".join(
        f"{{{a['name']}}}" if a.get("name") else f"{a['family-names']}, {a['given-names']}"
        for a in citation["authors"]
    )
    released = str(citation.get("date-released", ""))
    if not re.match(r"^\d{4}-\d{2}-\d{2}$", released):
        raise ExtensionError("CITATION.cff needs date-released (YYYY-MM-DD) for the BibTeX year")
    fields = {
        "author": authors,
        "title": f"{{{citation['title']}}}",
        "year": released[:4],
        "version": str(citation["version"]),
        "license": citation.get("license", ""),
        "url": citation.get("repository-code") or citation.get("url") or "",
    }
    body = ",\n".join(f"  {key} = {{{value}}}" for key, value in fields.items() if value)
    return f"@software{{vitexplain,\n{body}\n}}"


# --- events -----------------------------------------------------------------------------------


def source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    if docname == app.config.root_doc and TABLE_MARKER in source[0]:
        root = Path(app.confdir).parent
        notebooks = sorted(
            f"notebooks/{p.name}" for p in (root / "notebooks").glob("[0-9][0-9]_*.ipynb")
        )
        table = index_markdown(readme_rows(root / "README.md"), notebooks)
        source[0] = source[0].replace(TABLE_MARKER, table)
    elif BIBTEX_MARKER in source[0]:
        root = Path(app.confdir).parent
        citation = yaml.safe_load((root / "CITATION.cff").read_text(encoding="utf-8"))
        entry = f"```{{code-block}} bibtex\n:class: vx-bibtex\n{bibtex(citation)}\n```"
        source[0] = source[0].replace(BIBTEX_MARKER, entry)
    elif DOWNLOADS_MARKER in source[0]:
        folder = Path(app.srcdir) / "downloads"
        markdown = downloads_markdown(folder, Path(app.confdir).parent)
        source[0] = source[0].replace(DOWNLOADS_MARKER, markdown)
    elif app.env.doc2path(docname).suffix == ".ipynb":
        notebook = json.loads(source[0])
        hide_figure_code(notebook)
        filename = Path(app.env.doc2path(docname)).name
        notebook["cells"].insert(1, run_it_yourself(filename))
        source[0] = json.dumps(notebook)


# --- search text, code lines, the build's files ---------------------------------------------

_SKIP = (nodes.raw, nodes.image, nodes.math, nodes.math_block, nodes.comment, nodes.section)


def section_texts(doctree: nodes.document) -> list[list[str]]:
    """[anchor id, title, text] of every section: its own words (prose, code, text outputs), not
    those of the sections inside it, nor raw HTML, images or TeX."""

    def words(node: nodes.Node) -> list[str]:
        if isinstance(node, nodes.Text):
            return [node.astext()]
        return [w for child in node.children if not isinstance(child, _SKIP) for w in words(child)]

    sections = []
    for section in doctree.findall(nodes.section):
        if not section["ids"]:
            continue
        title = section[0].astext() if isinstance(section[0], nodes.title) else ""
        body = [child for child in section.children[1:] if not isinstance(child, _SKIP)]
        text = " ".join(" ".join(w for child in body for w in words(child)).split())
        sections.append([section["ids"][0], title, text])
    return sections


def doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    if app.builder.format == "html":
        if not hasattr(app.env, "vx_search_text"):
            app.env.vx_search_text = {}
        app.env.vx_search_text[docname] = section_texts(doctree)


# docutils' HTML5 writer puts a viewport tag in a page's meta tags; Sphinx's basic layout writes
# one already (and the pydata theme a third, see _templates/layout.html): one per page.
_DOCUTILS_VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1" />\n'


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if "metatags" in context:
        context["metatags"] = context["metatags"].replace(_DOCUTILS_VIEWPORT, "")
    if pagename == "search":
        app.add_js_file("vx-search-text.js")
        app.add_js_file("vx-search.js")


class LineFormatter(HtmlFormatter):
    """Pygments' HTML with every line of a code block in ``<span class="vx-line"
    style="--vx-indent: N">`` (N its leading spaces), so that print (vx.css) can wrap a long line
    with its continuation indented under the line's own code instead of at column 0. Pygments
    closes its token spans at each line end, so a line's span holds whole tokens."""

    def wrap(self, source):
        return super().wrap(self._lines(source))

    @staticmethod
    def _lines(source):
        for kind, line in source:
            if kind == 1:  # a line of code (0: the formatter's own markup)
                text = html.unescape(re.sub(r"<[^>]+>", "", line))
                indent = len(text) - len(text.lstrip(" "))
                line = f'<span class="vx-line" style="--vx-indent: {indent}">{line}</span>'
            yield kind, line


def builder_inited(app: Sphinx) -> None:
    if hasattr(app.builder, "highlighter"):
        app.builder.highlighter.formatter = LineFormatter


def build_finished(app: Sphinx, error: Exception | None) -> None:
    if error is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    texts = getattr(app.env, "vx_search_text", {})
    script = "window.VX_SEARCH_TEXT = " + json.dumps(texts, ensure_ascii=False, sort_keys=True)
    (outdir / "_static" / "vx-search-text.js").write_text(script + ";\n", encoding="utf-8")
    # The theme copies its static files after every page is written, the last step before this
    # event: only here can its icon script (no page loads it, see _templates/layout.html) and
    # its source maps be left out of the build.
    scripts = outdir / "_static" / "scripts"
    for name in ("fontawesome.js", "fontawesome.js.LICENSE.txt"):
        (scripts / name).unlink(missing_ok=True)
    for source_map in scripts.glob("*.js.map"):
        source_map.unlink()


def setup(app: Sphinx) -> dict:
    app.add_html_math_renderer("mathcore", (visit_math, None), (visit_math_block, None))
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_HideCellInput))
    app.connect("builder-inited", builder_inited)
    app.connect("source-read", source_read)
    app.connect("doctree-resolved", doctree_resolved)
    app.connect("html-page-context", page_context)
    app.connect("build-finished", build_finished)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
