"""Sphinx configuration of the site (`make html` -> build/html/).

Sphinx + myst-nb (the notebooks' stored outputs; nothing is executed) + sphinx-book-theme. The
Makefile stages the sources in build/site-src/ (docs/*.md, copies of the notebooks, links to
figures/, vitexplain/, LICENSE and CITATION.cff), so nothing is duplicated in git. What the
builder does not do by itself is in _ext/vx_site.py: math as MathML at build time (math-core),
the index from the README's table, the "run it yourself" note and page (downloads, commands),
figure code behind a toggle, search text, BibTeX; and in _static/ and _templates/: layout
fixes, buttons (full size, pause, copy), search snippets, print style, footer.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import yaml

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))


def _package_version() -> str:
    """vitexplain.__version__, read from the source (importing the package would need torch)."""
    tree = ast.parse((ROOT / "vitexplain" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise RuntimeError("vitexplain/__init__.py defines no __version__")


CITATION = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))

project = "vitexplain"
author = ", ".join(
    a.get("name") or f"{a['given-names']} {a['family-names']}" for a in CITATION["authors"]
)
copyright = f"{author}; code and notebooks under the {CITATION['license']} licence"
release = version = _package_version()
language = "en"

extensions = ["myst_nb", "vx_site"]
extensions.append("vx_vit")  # notebook 08's live ViT (docs/_ext/vx_vit.py)
extensions.append("vx_index")  # the reading path on the index (docs/_ext/vx_index.py)
extensions.append("vx_explore")  # Explore sections with frames drawn by the package (docs/_ext)
extensions.append("vx_exercises")  # answers and worked solutions on the page
extensions.append("vx_concepts")  # the concept check page (docs/_ext/vx_concepts.py)
root_doc = "index"
include_patterns = ["index.md", "about.md", "run.md", "concepts.md", "notebooks/[0-9][0-9]_*.ipynb"]
exclude_patterns = ["**/.ipynb_checkpoints"]

# The notebooks' stored outputs, as they are in git: no kernel, no re-execution.
nb_execution_mode = "off"
nb_ipywidgets_js = {}  # no widget state is stored; never load require.js or the widget manager
# Cells whose code draws a figure are collapsed (vx_site.hide_figure_code), each toggle named
# after its figures ("Show the code of Figure 3.2"); these words only if a caption has no number.
nb_code_prompt_show = "Show the code that draws this figure"
nb_code_prompt_hide = "Hide the code that draws this figure"
myst_enable_extensions = ["dollarmath", "colon_fence", "substitution"]
myst_heading_anchors = 3

# Math: MathML written at build time (vx_site's math-core renderer), no MathJax.
html_math_renderer = "mathcore"

html_theme = "sphinx_book_theme"
html_title = "vitexplain"
html_static_path = ["_static"]
html_css_files = ["vx.css"]
html_js_files = ["vx.js"]
templates_path = ["_templates"]
html_show_sphinx = False
html_copy_source = False
html_use_index = False  # no general index: the notebooks define no index entries
# Search works from the files (searchindex.js); a result's summary would be fetched from its page,
# which a browser refuses for file:// pages, so results list page and section titles only.
html_show_search_summary = False
# The theme's sidebar without its icon links (none here), with the title in a landmark.
html_sidebars = {"**": ["vx-brand.html", "search-button-field.html", "sbt-sidebar-nav.html"]}
html_theme_options = {
    # Each notebook page links to its .ipynb in the "Run it yourself" note (vx_site.py);
    # the theme's download button would need a second copy of every notebook (_sources/).
    "use_download_button": False,
    "use_fullscreen_button": False,
    "show_toc_level": 2,
    "footer_content_items": ["vx-footer.html"],
    # "Back to top" sits in the article header's bar (_templates/vx-back-to-top.html), where it
    # covers no text, instead of floating over the page.
    "back_to_top_button": False,
    "article_header_start": ["toggle-primary-sidebar.html", "vx-back-to-top.html"],
    # No icon links, no analytics, no version switcher: nothing outside the site.
    "icon_links": [],
}
# How to cite, from CITATION.cff: on the About page (MyST) and in every page's footer (HTML).
myst_substitutions = {
    "version": version,
    "citation": (
        f"{author} ({str(CITATION['date-released'])[:4]}). *{CITATION['title']}*. "
        f"Version {version}."
    ),
}
html_context = {
    "citation_author": author,
    "citation_title": CITATION["title"],
    "default_mode": "auto",  # light or dark from the reader's system; the switcher overrides it
}
