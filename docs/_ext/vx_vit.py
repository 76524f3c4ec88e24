"""The live ViT on notebook 08's page: the shipped model, run in the reader's browser.

Notebook 08 holds a Markdown cell with the line ``<!-- vx-live-vit ... -->`` (an HTML comment:
nothing in JupyterLab). On the site this extension puts there the widget's markup, the exported
weights and test pictures (``docs/_data/digits_vit.json``, written by
``scripts/export_site_vit.py``) and the weights of its twin without position
(``docs/_data/digits_vit_none.json``) as two JSON blocks, and the live model's JavaScript, all
inline: the page is opened from ``file://``, where a browser refuses ``fetch`` and module scripts.
The JavaScript is seven files by concern (``docs/_js/vit*.js``, in ``SCRIPTS`` order: the speed,
the model (``vit.js``), the backward pass, the questions, the worker, the twins, the page),
written into one classic script as
the body of one function, so that they share their names without modules. Its style is
``_static/vx-vit.css``. The script starts its Web Worker from its own text (a ``blob:`` URL,
made in memory), so the worker needs no file either.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

DOCS = Path(__file__).resolve().parents[1]
DATA = DOCS / "_data" / "digits_vit.json"
TWIN = DOCS / "_data" / "digits_vit_none.json"
# in this order: each uses what the ones before it define, and vit-worker.js ends the worker's
# run (a Web Worker made from this same script) before vit-twins.js and vit-page.js
SCRIPTS = [
    DOCS / "_js" / name
    for name in (
        "vit-fast.js",
        "vit.js",
        "vit-backward.js",
        "vit-questions.js",
        "vit-worker.js",
        "vit-twins.js",
        "vit-page.js",
    )
]
PAGE = "notebooks/08_vit_on_digits"
MARKER = re.compile(r"<!-- vx-live-vit\b.*?-->")


def _canvas(vx: str, size: int, label: str) -> str:
    return (
        f'<canvas data-vx="{vx}" width="{size}" height="{size}" role="img" '
        f'aria-label="{label}"></canvas>'
    )


def widget_html(num_classes: int, depth: int, heads: int, grid: int, weight: int) -> str:
    """The widget's markup; vit-page.js fills it in and shows it (hidden without JavaScript).
    weight: the bytes of the two JSON blocks (both models' weights and the test pictures)."""
    patches = "".join(
        f'<option value="{1 + i}">patch at row {i // grid + 1}, column {i % grid + 1}</option>'
        for i in range(grid * grid)
    )
    probs = "".join(
        f'<li><span class="vx-vit-class">{k}</span><span class="vx-vit-track" aria-hidden="true">'
        f'<span class="vx-vit-bar"></span></span><span class="vx-vit-value"></span></li>'
        for k in range(num_classes)
    )
    head_titles = "".join(f'<span class="vx-vit-head">head {h + 1}</span>' for h in range(heads))
    maps = "".join(
        f'<span class="vx-vit-block">block {b + 1}</span>'
        + "".join(
            f'<canvas data-vx-map="{b}-{h}" width="64" height="64" role="img" '
            f'aria-label="block {b + 1}, head {h + 1}"></canvas>'
            for h in range(heads)
        )
        for b in range(depth)
    )
    why = "".join(f'<option value="{k}">class {k}</option>' for k in range(num_classes))
    lens_head = "".join(f'<th scope="col">{k}</th>' for k in range(num_classes))
    lens_rows = "".join(
        f'<tr><th scope="row">block {b + 1}</th>{"<td></td>" * num_classes}</tr>'
        for b in range(depth)
    )
    return f"""
<div class="vx-vit" id="vx-vit" hidden>
<h3 id="vx-vit-title">The live model</h3>
<p>Everything below is computed in your browser, at once, from the shipped weights
(<code>digits_vit_learned.pt</code>, the model of this notebook) by the JavaScript of
<code>docs/_js/vit.js</code> (its matrix products in a small WebAssembly kernel, in
<code>vit-fast.js</code>): nothing is sent anywhere. The weights of this model and of its twin
below, and the 397 test pictures, come with the page: {weight / 2**20:.1f} MB of it, the numbers
as the models hold them (float32, in base64). Draw a digit or pick a test picture.</p>
<div class="vx-vit-input">
<div class="vx-vit-drawing">
<canvas data-vx="draw" class="vx-vit-draw" width="192" height="192" tabindex="0"
 role="application" aria-roledescription="drawing grid" aria-describedby="vx-vit-draw-help"
 aria-label="Drawing grid, 8 by 8 pixels"></canvas>
<p class="vx-vit-cursor" data-vx="cursor" aria-live="polite"></p>
</div>
<div class="vx-vit-controls">
<label for="vx-vit-slider">Test picture</label>
<input type="range" id="vx-vit-slider" data-vx="slider" min="0" max="396" step="1" value="0"
 aria-describedby="vx-vit-picture">
<output id="vx-vit-picture" data-vx="picture-text" for="vx-vit-slider"></output>
<button type="button" data-vx="clear">Clear the drawing</button>
<p id="vx-vit-draw-help" class="vx-vit-note">Draw by clicking or dragging on the grid (or by
touch); by keyboard, the arrow keys move the cursor and Space toggles ink. Ink is level 16, the
darkest of the digits' 0–16 scale (the model sees 16 / 16 = 1, as <code>vx.load_digit_split</code>
scales the pictures); on a pixel with ink, drawing erases it to 0.</p>
<p class="vx-vit-note">The model learned from the UCI digits: scanned handwriting, 32 × 32
black-and-white pixels counted in 4 × 4 blocks into 8 × 8 pictures of ink levels 0–16, so its
strokes are wide, soft-edged and of many shades. Strokes drawn here are full ink and one pixel
wide, pictures unlike those it learned from: a drawn digit may read as another.</p>
<details class="vx-vit-numbers"><summary>The picture as numbers</summary>
<p data-vx="draw-levels"></p></details>
</div>
</div>
<p class="vx-vit-status" data-vx="status" role="status" aria-live="polite"></p>
<h4>Class probabilities</h4>
<ol class="vx-vit-probs" data-vx="probs" aria-label="Class probabilities, classes 0 to 9">
{probs}</ol>
<h4>Attention in every block and head</h4>
<p><label for="vx-vit-query">Query token</label>
<select id="vx-vit-query" data-vx="query"><option value="0">the class token</option>{patches}
</select></p>
<div class="vx-vit-heads" role="group" aria-label="Attention maps, one per block and head">
<span></span>{head_titles}{maps}</div>
<p class="vx-vit-note">Each panel: the weight <span data-vx="attn-who">the class token</span>
gives each of the 16 patches, laid on the 4 × 4 grid, in one block and head (bright = large,
one scale from 0 to <span data-vx="attn-scale"></span>).</p>
<div class="vx-vit-pair">
<figure>{_canvas("rollout", 96, "rollout")}
<figcaption>Rollout: the class token's row of R over the 16 patches (bright = large, 0 to
<span data-vx="rollout-scale"></span>).</figcaption></figure>
<figure>{_canvas("occlusion", 96, "occlusion")}
<figcaption>Occlusion: the probability of the predicted class lost when a patch is set to 0
(red: lost, blue: gained; one scale, symmetric about 0, up to ±<span
data-vx="occlusion-scale"></span>).</figcaption></figure>
</div>
<h4>Why this class? Gradient-weighted rollout</h4>
<p>Rollout above shows how the class token's attention mixes the patches, for any class. Chefer
et al. (2021) weight each attention weight by the gradient of one class's logit before rolling
out, so that the map answers a question about that class: "why 3?", or "why not 8?"
(<code>docs/_js/vit-backward.js</code>: the backward pass, by hand).</p>
<div class="vx-vit-pair">
<figure>{_canvas("why-map", 96, "gradient-weighted rollout")}
<figcaption>Gradient-weighted rollout of the class picked: R[0, 1:], R = I + sum over blocks of
the heads' mean of clamp(∂y<sub>c</sub>/∂A · A, min=0) rolled out (bright = large, 0 to
<span data-vx="why-scale"></span>).</figcaption></figure>
<div class="vx-vit-controls">
<label for="vx-vit-why">Explain the class</label>
<select id="vx-vit-why" data-vx="why"><option value="auto">the class the model reads</option>
{why}</select>
<p class="vx-vit-note" data-vx="why-status" role="status" aria-live="polite"></p>
</div>
</div>
<h4>Position or not: the twin models and Scramble</h4>
<p>Notebook 08's model has a learned position embedding; its twin
(<code>digits_vit_none.pt</code>, the same recipe) has none, so its attention sees a set of
patches, not their places. Scramble shuffles the 16 patches of the picture (shuffle 1, 2, …:
seeded, so the same on every visit) and both models read it.</p>
<div class="vx-vit-pair">
<figure>{_canvas("scrambled", 96, "the picture the twin models read")}
<figcaption>The picture the twins read, patch borders drawn.</figcaption></figure>
<div class="vx-vit-controls">
<button type="button" data-vx="scramble">Scramble the patches</button>
<button type="button" data-vx="unscramble">Put them back in order</button>
<p class="vx-vit-note" data-vx="order"></p>
</div>
</div>
<div class="vx-vit-scroll" role="region" aria-label="The twin models' answers" tabindex="0">
<table class="vx-vit-lens" data-vx="twins">
<caption>The class each model reads and its probability, on the picture in order and
scrambled.</caption>
<thead><tr><th scope="col">picture</th><th scope="col">with learned position</th>
<th scope="col">without position</th></tr></thead>
<tbody><tr><th scope="row">in order</th><td></td><td></td></tr>
<tr><th scope="row">scrambled</th><td></td><td></td></tr></tbody></table></div>
<p class="vx-vit-status" data-vx="twin-status" role="status" aria-live="polite"></p>
<h4>Logit lens</h4>
<div class="vx-vit-scroll" role="region" aria-label="Logit lens table" tabindex="0">
<table class="vx-vit-lens" data-vx="lens">
<caption>Class probabilities read after each block (final norm and head on the class token);
the largest of each row in bold.</caption>
<thead><tr><th scope="col">after</th>{lens_head}</tr></thead>
<tbody>{lens_rows}</tbody></table></div>
</div>
<noscript><p>The live model needs JavaScript.</p></noscript>
"""


def page_context(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    body = context.get("body", "")
    found = MARKER.search(body)
    if found is None:
        if pagename == PAGE:
            raise ExtensionError(f"{PAGE} has no <!-- vx-live-vit --> line for the live ViT")
        return
    data = json.loads(DATA.read_text(encoding="utf-8"))
    config = data["config"]
    grid = config["img_size"][0] // config["patch_size"]
    payload = DATA.read_text(encoding="utf-8").strip().replace("</", "<\\/")
    twin = TWIN.read_text(encoding="utf-8").strip().replace("</", "<\\/")
    weight = len(payload.encode()) + len(twin.encode())
    markup = widget_html(config["num_classes"], config["depth"], config["num_heads"], grid, weight)
    parts = []
    for path in SCRIPTS:
        part = path.read_text(encoding="utf-8")
        if "</script" in part:
            raise ExtensionError(f"{path} must not contain '</script'")
        parts.append(f"  // --- {path.name} ---\n{part}")
    script = '(function () {\n  "use strict";\n' + "\n".join(parts) + "})();\n"
    inline = (
        f'{markup}<script type="application/json" id="vx-vit-data">{payload}</script>\n'
        f'<script type="application/json" id="vx-vit-twin">{twin}</script>\n'
        f"<script>\n{script}</script>\n"
    )
    context["body"] = body[: found.start()] + inline + body[found.end() :]


def setup(app: Sphinx) -> dict:
    app.add_css_file("vx-vit.css")
    app.connect("html-page-context", page_context)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
