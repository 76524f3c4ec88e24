"""Build the series as a static site that reads offline: ``make html`` -> build/html/.

The pages come from the notebooks' stored outputs (nothing is re-executed):

* ``index.html``: the README's notebook table (thumbnail, title, summary, link), read from the
  README itself so the two never disagree;
* one page per notebook, named like it (``01_patch_tokenization.html`` ...), with links to the
  index and to the previous and next notebook.

Everything a page needs is in the page or next to it: images are embedded, the animated GIF
(which nbconvert does not render) becomes an ``<img>``, TeX is turned into MathML at build time
(``latex2mathml``; browsers render MathML natively), the code highlighting and the page style are
inline CSS whose colours pass WCAG AA contrast (checked here when the CSS is made). Relative links
to the package's source files are copied under ``files/`` and rewritten; links between notebooks
point at their pages.

Usage: ``python scripts/build_html.py [--out build/html]``.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import time
from pathlib import Path

import nbformat
from latex2mathml.converter import convert as tex_to_mathml
from nbconvert import HTMLExporter
from nbconvert.filters.markdown_mistune import markdown2html_mistune
from pygments.formatters import HtmlFormatter

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"

# --- colours: every text colour is checked against its background (WCAG AA: 4.5:1) -----------

PAGE_BG, CODE_BG, OUTPUT_BG = "#ffffff", "#f6f8fa", "#ffffff"
TEXT, MUTED, LINK = "#1f2328", "#57606a", "#0550ae"
ANSI = {  # terminal colours of tracebacks, darkened for a light background
    "black": "#1f2328",
    "red": "#b42318",
    "green": "#116329",
    "yellow": "#7a4d00",
    "blue": "#0550ae",
    "magenta": "#8250df",
    "cyan": "#0a6370",
    "white": "#57606a",
}


def _luminance(colour: str) -> float:
    r, g, b = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(foreground: str, background: str) -> float:
    """WCAG contrast ratio of two #rrggbb colours."""
    hi, lo = sorted((_luminance(foreground), _luminance(background)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _darken_until_readable(colour: str, background: str, ratio: float = 4.6) -> str:
    """The colour, darkened step by step (hue kept) until it reads on the background."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    while contrast(f"#{r:02x}{g:02x}{b:02x}", background) < ratio:
        r, g, b = (int(c * 0.92) for c in (r, g, b))
    return f"#{r:02x}{g:02x}{b:02x}"


def highlight_css(style: str = "default") -> str:
    """Pygments CSS for ``.highlight``, every token colour made AA-readable on the code's
    background."""
    css = HtmlFormatter(style=style).get_style_defs(".highlight")
    css = re.sub(r"background(-color)?:\s*#[0-9a-fA-F]{3,6};?", "", css)  # one background: ours

    def fix(match: re.Match) -> str:
        colour = match[1].lower()
        if len(colour) == 4:  # #abc -> #aabbcc
            colour = "#" + "".join(c * 2 for c in colour[1:])
        return f"color: {_darken_until_readable(colour, CODE_BG)}"

    return re.sub(r"color:\s*(#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3})\b", fix, css)


def page_css() -> str:
    for fg, bg in [(TEXT, PAGE_BG), (MUTED, PAGE_BG), (LINK, PAGE_BG), (TEXT, CODE_BG)]:
        assert contrast(fg, bg) >= 4.5, (fg, bg)
    ansi = "\n".join(
        f".ansi-{name}-fg, .ansi-{name}-intense-fg {{ color: {colour}; }}"
        for name, colour in ANSI.items()
        if contrast(colour, OUTPUT_BG) >= 4.5
    )
    return f"""
body {{ margin: 0; background: {PAGE_BG}; color: {TEXT};
  font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }}
main, header nav, footer nav {{ max-width: 60rem; margin: 0 auto; padding: 0 1.25rem; }}
header, footer {{ border-color: #d0d7de; border-style: solid; border-width: 0 0 1px; }}
footer {{ border-width: 1px 0 0; margin-top: 3rem; }}
nav ul {{ list-style: none; display: flex; flex-wrap: wrap; gap: 1.5rem; padding: 0.75rem 0;
  margin: 0; }}
a {{ color: {LINK}; }}
a:focus-visible, pre:focus-visible {{ outline: 3px solid {LINK}; outline-offset: 2px; }}
h1, h2, h3 {{ line-height: 1.25; }}
.cell {{ margin: 1rem 0; }}
.prompt {{ color: {MUTED}; font: 0.8rem ui-monospace, monospace; margin: 0 0 0.2rem; }}
pre {{ font: 0.85rem/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; overflow-x: auto;
  padding: 0.6rem 0.8rem; margin: 0; }}
.input pre {{ background: {CODE_BG}; border-radius: 6px; }}
.output pre {{ background: {OUTPUT_BG}; border-left: 3px solid #d0d7de; }}
.output img {{ max-width: 100%; height: auto; display: block; margin: 0.5rem 0; }}
code {{ background: {CODE_BG}; padding: 0.1em 0.3em; border-radius: 4px; font-size: 0.9em; }}
pre code {{ background: none; padding: 0; }}
math[display="block"] {{ margin: 0.8rem 0; }}
table {{ border-collapse: collapse; margin: 1rem 0; }}
th, td {{ border: 1px solid #d0d7de; padding: 0.4rem 0.6rem; vertical-align: top;
  text-align: left; }}
.index img {{ width: 240px; height: auto; }}
.visually-hidden {{ position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; }}
{ansi}
.highlight {{ background: {CODE_BG}; }}
{highlight_css()}
"""


# --- TeX to MathML ----------------------------------------------------------------------------

# Code (fenced blocks, inline spans) is left alone; $$...$$ before $...$; \$ is a dollar sign.
_CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.S)
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$])\$(?!\s)((?:[^$\n]|\n(?!\n))+?)(?<!\s)\$(?!\$)")


def math_to_placeholders(markdown: str) -> tuple[str, dict[str, tuple[str, str]]]:
    """Replace each TeX formula outside code by a placeholder; return the text and, for each
    placeholder, its TeX and its MathML."""
    found: dict[str, tuple[str, str]] = {}

    def keep(tex: str, display: str) -> str:
        key = f"MATHML{len(found):04d}X"
        found[key] = (tex, tex_to_mathml(tex.strip(), display=display))
        return key if display == "inline" else f"\n\n{key}\n\n"

    parts = _CODE.split(markdown)
    for i in range(0, len(parts), 2):  # even parts are prose, odd parts code
        prose = _DISPLAY.sub(lambda m: keep(m[1], "block"), parts[i])
        parts[i] = _INLINE.sub(lambda m: keep(m[1], "inline"), prose)
    return "".join(parts), found


def markdown_to_html(markdown: str) -> str:
    """Markdown with TeX -> HTML with MathML."""
    text, formulas = math_to_placeholders(markdown)
    rendered = markdown2html_mistune(text)
    for key, (tex, mathml) in formulas.items():
        # in a heading's id and anchor link the formula becomes plain letters, elsewhere MathML
        slug = "-".join(re.findall(r"[A-Za-z0-9]+", tex))
        rendered = re.sub(rf'((?:id|href)="[^"]*?){key}', lambda m, s=slug: m[1] + s, rendered)
        rendered = rendered.replace(f"<p>{key}</p>", mathml).replace(key, mathml)
    return rendered


# --- notebooks --------------------------------------------------------------------------------


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _prepare_outputs(nb: nbformat.NotebookNode) -> None:
    """Outputs nbconvert would render badly: an image/gif (not rendered at all) gets an <img> of
    its own (text/html); a traceback loses its terminal colours (too faint on white)."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                output["traceback"] = [_ANSI.sub("", line) for line in output["traceback"]]
            data = output.get("data", {})
            if "image/gif" in data:
                alt = output.get("metadata", {}).get("image/gif", {}).get("alt", "")
                src = "data:image/gif;base64," + "".join(data["image/gif"].split())
                data["text/html"] = f'<img src="{src}" alt="{html.escape(alt, quote=True)}">'
                del data["image/gif"]


class _Links:
    """Rewrites relative links of a notebook: notebooks -> pages, other files -> files/..."""

    def __init__(self, out: Path) -> None:
        self.out = out

    def __call__(self, match: re.Match) -> str:
        attribute, target = match[1], html.unescape(match[2])
        if re.match(r"^[a-z]+:|^#|^data:", target):
            return match[0]
        path, _, anchor = target.partition("#")
        source = (NOTEBOOKS / path).resolve()
        if source.suffix == ".ipynb":
            new = source.with_suffix(".html").name
        elif source.is_file() and source.is_relative_to(ROOT):
            relative = source.relative_to(ROOT)
            (self.out / "files" / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, self.out / "files" / relative)
            new = f"files/{relative.as_posix()}"
        else:
            return match[0]
        new += f"#{anchor}" if anchor else ""
        return f'{attribute}="{html.escape(new, quote=True)}"'


def render_notebook(path: Path, out: Path) -> tuple[str, str]:
    """The notebook's body as HTML and its title (the first heading)."""
    nb = nbformat.read(path, as_version=4)
    _prepare_outputs(nb)
    exporter = HTMLExporter(template_name="basic", exclude_input_prompt=True)
    exporter.exclude_output_prompt = True
    pieces: list[str] = []
    title = path.stem
    for number, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            pieces.append(f'<div class="cell markdown">{markdown_to_html(cell.source)}</div>')
            heading = re.search(r"^#\s+(.+)$", cell.source, re.M)
            if number == 0 and heading:
                title = heading[1].strip()
        elif cell.cell_type == "code":
            single = nbformat.v4.new_notebook(cells=[cell], metadata=nb.metadata)
            body, _ = exporter.from_notebook_node(single)
            pieces.append(_code_cell(body, cell))
    body = "\n".join(pieces)
    body = re.sub(r'(href|src)="([^"]+)"', _Links(out), body)
    return body, title


def _code_cell(body: str, cell: nbformat.NotebookNode) -> str:
    """One code cell from nbconvert's basic template, reduced to its input and outputs."""
    count = cell.get("execution_count")
    prompt = f'<p class="prompt">In [{count}]:</p>' if count else ""
    source = re.search(r'(<div class="highlight[^"]*">.*?</div>)', body, re.S)
    code = source[1] if source else f"<pre>{html.escape(cell.source)}</pre>"
    _, wrapper, outputs = body.partition('<div class="output_wrapper">')
    rendered = ""
    if wrapper:  # the output wrapper runs to the end, before the cell's own closing </div>
        rendered = outputs.rstrip().removesuffix("</div>").rstrip().removesuffix("</div>")
        rendered = re.sub(r'<div class="prompt[^"]*">[^<]*</div>', "", rendered)
    # every <pre> may scroll: keyboard users must reach it
    html_cell = f'<div class="cell code">{prompt}<div class="input">{code}</div>'
    html_cell += f'<div class="output">{rendered}</div></div>' if rendered.strip() else "</div>"
    return html_cell.replace("<pre>", '<pre tabindex="0">')


def page(title: str, body: str, nav: str) -> str:
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)} · vitexplain</title>
<style>{page_css()}</style>
</head>
<body>
<header><nav aria-label="Series">{nav}</nav></header>
<main>
{body}
</main>
<footer><nav aria-label="Series, again">{nav}</nav></footer>
</body>
</html>
"""


def nav_links(pages: list[tuple[str, str]], index: int | None) -> str:
    """Index, previous and next links for page ``index`` of ``pages`` [(file, title)]."""
    items = ['<li><a href="index.html">All notebooks</a></li>']
    if index is not None:
        if index > 0:
            file, title = pages[index - 1]
            items.append(f'<li><a href="{file}" rel="prev">Previous: {html.escape(title)}</a></li>')
        if index + 1 < len(pages):
            file, title = pages[index + 1]
            items.append(f'<li><a href="{file}" rel="next">Next: {html.escape(title)}</a></li>')
    return "<ul>" + "".join(items) + "</ul>"


# --- the index, from the README's table -------------------------------------------------------

_ROW = re.compile(
    r"^\|\s*(<img [^|]*?>)\s*\|\s*\[([^\]]+)\]\((notebooks/[^)]+\.ipynb)\)\s*\|(.*)\|\s*$"
)


def readme_rows(readme: Path) -> list[tuple[str, str, str, str]]:
    """(thumbnail <img>, title, notebook path, summary) of each row of the README's table."""
    rows = [_ROW.match(line) for line in readme.read_text(encoding="utf-8").splitlines()]
    return [(m[1], m[2], m[3], m[4].strip()) for m in rows if m]


def build_index(out: Path, pages: list[tuple[str, str]]) -> str:
    rows = []
    for thumbnail, title, notebook, summary in readme_rows(ROOT / "README.md"):
        src = re.search(r'src="([^"]+)"', thumbnail)[1]
        alt = re.search(r'alt="([^"]*)"', thumbnail)
        if alt is None:
            raise SystemExit(f"README thumbnail {src} has no alt text")
        (out / src).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / src, out / src)
        link = Path(notebook).with_suffix(".html").name
        summary_html = markdown_to_html(summary).strip()
        rows.append(
            f'<tr><td><img src="{src}" alt="{html.escape(alt[1], quote=True)}"></td>'
            f'<td><a href="{link}">{html.escape(title)}</a></td><td>{summary_html}</td></tr>'
        )
    listed = {Path(r[2]).with_suffix(".html").name for r in readme_rows(ROOT / "README.md")}
    missing = [file for file, _ in pages if file not in listed]
    if missing:
        raise SystemExit(f"README's notebook table lacks {missing}")
    body = (
        "<h1>vitexplain: Vision Transformers, one idea at a time</h1>\n"
        "<p>The notebooks of the series, with their stored outputs, to read in order.</p>\n"
        '<table class="index"><thead><tr><th scope="col"><span class="visually-hidden">'
        'Thumbnail</span></th><th scope="col">Notebook</th><th scope="col">What it shows</th>'
        "</tr></thead><tbody>" + "\n".join(rows) + "</tbody></table>"
    )
    return page("The notebooks", body, nav_links(pages, None))


def build(out: Path) -> list[Path]:
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    notebooks = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    rendered = [render_notebook(path, out) for path in notebooks]
    pages = [
        (p.with_suffix(".html").name, title)
        for p, (_, title) in zip(notebooks, rendered, strict=True)
    ]
    written = []
    for i, ((file, title), (body, _)) in enumerate(zip(pages, rendered, strict=True)):
        (out / file).write_text(page(title, body, nav_links(pages, i)), encoding="utf-8")
        written.append(out / file)
    (out / "index.html").write_text(build_index(out, pages), encoding="utf-8")
    return [out / "index.html", *written]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "html")
    args = parser.parse_args()
    start = time.perf_counter()
    written = build(args.out)
    size = sum(f.stat().st_size for f in args.out.rglob("*") if f.is_file())
    print(
        f"{len(written)} pages in {args.out} ({size / 1e6:.1f} MB) "
        f"in {time.perf_counter() - start:.1f} s"
    )


if __name__ == "__main__":
    main()
