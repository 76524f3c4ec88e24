# only for vitexplain.plotting until its branch lands
"""The figure texts' checks that :mod:`vitexplain.plotting` still imports (``explore`` has its
own). Deleted once plotting checks them itself."""

from __future__ import annotations

import re

#: A caption is one numbered sentence: "Figure 3.9 — ...".
CAPTION_PATTERN = re.compile(r"Figure \d+\.\d+ — \S.*")
#: Alt text says what the figure shows: at least this many words.
MIN_ALT_WORDS = 4


def alt_text(alt: object) -> str:
    """Alt text: a str of at least four words saying what the figure shows."""
    if not isinstance(alt, str):
        raise TypeError(f"alt must be a str (a sentence saying what the figure shows), got {alt!r}")
    if len(alt.split()) < MIN_ALT_WORDS:
        raise ValueError(
            f"alt must say what the figure shows in at least {MIN_ALT_WORDS} words, got {alt!r}"
        )
    return alt


def caption_text(caption: object, example: str) -> str | None:
    """None, or one numbered sentence such as ``example``."""
    if caption is not None and (
        not isinstance(caption, str) or not CAPTION_PATTERN.fullmatch(caption)
    ):
        raise ValueError(
            "caption must read 'Figure <notebook>.<k> — <one sentence>.', such as "
            f"'{example}', got {caption!r}"
        )
    return caption
