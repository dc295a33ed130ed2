"""User text made safe for the plain-text outputs: Markdown (main.md, methods.md, the diff and trend notes)
and CSV cells (main.csv, ``sigreport trend --format csv``).

Names of systems, metrics and corpora come from the user's files. Copied raw into Markdown, ``<img src=x
onerror=...>`` stays HTML and ``[l](javascript:...)`` a live link on the page that shows it (GitHub, GitLab,
a wiki); copied raw into a CSV, ``=HYPERLINK(...)`` is a formula when a spreadsheet opens it. One function
per target, here at the bottom of the layers, so the renderer and the archive escape the same way.
"""

from __future__ import annotations

MARKDOWN_SPECIALS = "\\`*_[]<|#"
"""Backslash-escaped by :func:`markdown_text`: emphasis, code, links and images, HTML, table cells, headings."""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""A text cell starting with one of these is read as a formula by Excel, LibreOffice or Google Sheets (OWASP,
"CSV Injection")."""


def clean(s: str) -> str:
    """Names come from user data: no control character may reach a terminal or break a line."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in s)


def markdown_text(s: str) -> str:
    """``s`` shown literally by a Markdown renderer: control characters escaped (:func:`clean`), and every
    character of :data:`MARKDOWN_SPECIALS` backslash-escaped, so no HTML tag, link, emphasis or table cell
    border comes out of a name."""
    s = clean(s)
    for ch in MARKDOWN_SPECIALS:
        s = s.replace(ch, "\\" + ch)
    return s


def csv_safe(s: str) -> str:
    """A text cell of a CSV: a cell a spreadsheet would read as a formula gets a leading single quote (OWASP's
    recommendation; the quote shows in the cell, the formula never runs). Only for text: numbers are written
    as they are (``-0.12`` stays a number), and so is a cell that reads as a number."""
    if s.startswith(FORMULA_STARTS) and not _is_number(s):
        return "'" + s
    return s


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True
