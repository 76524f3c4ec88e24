"""The concept check page (docs/concepts.md): 20 questions on the series, taken before notebook
01 and again after 08 or 09.

Where docs/concepts.md has the line ``<!-- vx-concept-check -->``, this writes the questions
(radio buttons in a fieldset each), a verdict line under each, and under each a disclosure with
every option's misconception and a link to the notebook section that addresses it; then the
Grade, Download and Forget buttons and a live summary (the scores and the normalised gain). The
data is docs/_data/concepts.json, exported from ``vitexplain.exercises.concepts`` by
scripts/export_exercises.py; the script docs/_js/concepts.js is inlined as a classic script and
grades by the same specs as ``vx.exercises.check``. Without JavaScript the questions and links
are readable and the buttons stay hidden.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

DOCS = Path(__file__).resolve().parent.parent
DATA = DOCS / "_data" / "concepts.json"
SCRIPT = DOCS / "_js" / "concepts.js"
MARKER = "<!-- vx-concept-check -->"


def anchor(section: str) -> str:
    """The id Sphinx gives a section with this heading (docutils' make_id)."""
    return nodes.make_id(section)


def _item(item: dict[str, Any]) -> str:
    slug = item["id"].replace(".", "-")
    options = "".join(
        f'<label class="vx-option"><input type="radio" name="{item["id"]}" value="{letter}"> '
        f"({letter}) {html.escape(o['text'])}</label>"
        for letter, o in zip("abcdefgh", item["options"], strict=False)
    )
    links = "".join(
        f"<li>({letter}) {html.escape(o['misconception'] or 'the right answer')}: "
        f'<a href="{o["page"]}.html#{anchor(o["section"])}">notebook {o["page"][10:12]}, '
        f"{html.escape(o['section'])}</a></li>"
        for letter, o in zip("abcdefgh", item["options"], strict=False)
    )
    return (
        f'<li class="vx-cc-item" id="vx-cc-{slug}"><fieldset>'
        f"<legend>{item['id']}. {html.escape(item['question'])}</legend>{options}</fieldset>"
        f'<output class="vx-verdict" id="vx-cc-verdict-{slug}"></output>'
        f'<details class="vx-cc-links"><summary>Where the series addresses the options of '
        f"{item['id']}</summary><ul>{links}</ul></details></li>"
    )


def page(data: dict[str, Any]) -> str:
    """The concept check's HTML, its data and its script."""
    items = "".join(_item(item) for item in data["items"])
    text = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    return (
        '<div id="vx-concepts" class="vx-concepts"><form>'
        '<fieldset class="vx-cc-when vx-cc-js" hidden><legend>These answers are my answers '
        'from</legend><label class="vx-option"><input type="radio" name="vx-cc-when" '
        'value="before" checked> before the series</label><label class="vx-option">'
        '<input type="radio" name="vx-cc-when" value="after"> after the series</label>'
        f'</fieldset><ol class="vx-cc-items">{items}</ol>'
        '<button type="submit" class="vx-cc-js" hidden>Grade my answers</button></form>'
        '<p class="vx-cc-summary" role="status" aria-live="polite"></p>'
        '<p class="vx-cc-js" hidden><button type="button" class="vx-cc-download">Download my '
        'answers (JSON)</button> <button type="button" class="vx-cc-forget">Forget my answers'
        "</button></p></div>"
        f'<script type="application/json" id="vx-concepts-data">{text}</script>'
        f"<script>\n{SCRIPT.read_text(encoding='utf-8')}</script>"
    )


def source_read(app: Sphinx, docname: str, source: list[str]) -> None:
    if docname == "concepts" and MARKER in source[0]:
        data = json.loads(DATA.read_text(encoding="utf-8"))
        source[0] = source[0].replace(MARKER, f"```{{raw}} html\n{page(data)}\n```")


def setup(app: Sphinx) -> dict:
    app.connect("source-read", source_read)
    app.add_css_file("vx-concepts.css")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
