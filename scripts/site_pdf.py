"""The whole series as one printable PDF (`make pdf`), offline.

`make pdf` builds the site's sources as one HTML page (Sphinx's singlehtml builder, the same
conf.py and extensions as `make html`), then this script prints that page with Debian's Chromium
(Playwright, every request that is not a local file refused): A4, the site's print style (code
wrapped, no sidebars or buttons, figures no taller than a page with their caption), every
collapsed code cell and worked solution opened (OPEN_ALL), a tagged PDF (each figure's alt text
is its /Alt) with an outline from the headings.

    python scripts/site_pdf.py build/singlehtml/index.html build/vitexplain.pdf
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = Path(os.environ.get("E2E_CHROMIUM", "/usr/bin/chromium"))
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
# Every <details> (a figure's code, a worked solution) replaced by a box of its content, its
# summary kept but a code toggle's: an opened toggle printed right away has Chromium paint
# none of its content on a page that it starts, by timing (notebook 03: four figures' code,
# four blank pages, in some runs).
OPEN_ALL = """() => {
  for (const details of document.querySelectorAll("details")) {
    const box = document.createElement("div");
    box.className = details.className;
    for (const child of [...details.children]) {
      if (child.tagName !== "SUMMARY" || !details.classList.contains("hide")) box.append(child);
    }
    details.replaceWith(box);
  }
}"""
MARGIN = {"top": "15mm", "bottom": "15mm", "left": "15mm", "right": "15mm"}  # e2e prints so too


def print_pdf(page_file: Path, target: Path) -> list[str]:
    """Print `page_file` to `target`; returns the requests it tried beyond local files."""
    refused: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            context = browser.new_context(color_scheme="light", reduced_motion="reduce")

            def guard(route):
                if route.request.url.startswith(("file://", "data:")):
                    route.continue_()
                else:
                    refused.append(route.request.url)
                    route.abort()

            context.route("**/*", guard)
            page = context.new_page()
            page.goto(page_file.resolve().as_uri(), wait_until="load")
            page.evaluate(OPEN_ALL)
            page.emulate_media(media="print")
            page.evaluate("document.fonts.ready")
            target.parent.mkdir(parents=True, exist_ok=True)
            page.pdf(
                path=str(target),
                format="A4",
                margin=MARGIN,
                tagged=True,
                outline=True,
            )
        finally:
            browser.close()
    return refused


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("page", type=Path, help="the singlehtml build's index.html")
    parser.add_argument("pdf", type=Path, help="the PDF to write")
    args = parser.parse_args()
    refused = print_pdf(args.page, args.pdf)
    if refused:
        raise SystemExit(f"the page tried to reach the network: {refused[:5]}")
    print(f"{args.pdf}  {args.pdf.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
