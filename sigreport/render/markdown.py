"""The main results table as Markdown (``main.md``, for release notes) and CSV (``main.csv``, for
spreadsheets): the same model tables the HTML and LaTeX show, through a plain-text cell target.

Markdown has no underline: the second best is written ``<u>...</u>`` and markers ``<sup>...</sup>``,
which GitHub, GitLab and most Markdown renderers show. The CSV keeps a value column per (metric, corpus)
as text (so an interval stays one cell) and beside it the rank mark and the markers, without markup; a name
that a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``, tab, CR first) gets a leading ``'``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence

from sigreport.escaping import csv_safe
from sigreport.escaping import markdown_text
from sigreport.render.format import SYMBOLS, Target, _sci
from sigreport.render.model import CI, P, Cell, Count, Decision, Df, Int, Marked, Num, Stat, Table, Text


class Plain(Target):
    """Cells as plain Unicode text (a minus sign is ASCII so spreadsheets read numbers)."""

    name = "plain"

    def text(self, s: str) -> str:
        return s

    def signed(self, s: str) -> str:
        return s

    def sci(self, x: float, digits: int) -> str:
        mant, e = _sci(x, digits)
        return f"{mant}e{e}"

    def p_zero(self) -> str:
        return "<1e-300"

    def sym(self, name: str, arg: str | None) -> str:
        if name == "crit":
            return f"crit (alpha = {arg})"
        return re.sub(r"<[^>]+>", "", SYMBOLS[name][0]) if name in SYMBOLS else name

    def concat(self, parts: Iterable[str]) -> str:
        return "".join(parts)

    def dash(self) -> str:
        return "\u2014"

    def marked(self, inner: str, emphasis: str, marks: str) -> str:
        return inner + (f" {marks}" if marks else "")


class MarkdownCells(Plain):
    """Cells for a Markdown table: text shown literally (:func:`sigreport.escaping.markdown_text`: no name
    becomes HTML, a link or a cell border), bold with ``**``, underline and superscript as HTML."""

    def text(self, s: str) -> str:
        return markdown_text(s)

    def marked(self, inner: str, emphasis: str, marks: str) -> str:
        out = {"best": f"**{inner}**", "second": f"<u>{inner}</u>"}.get(emphasis, inner)
        return out + (f"<sup>{self.text(marks)}</sup>" if marks else "")


def markdown(tables: Sequence[Table]) -> str:
    """Every table as a Markdown pipe table with its caption above and legend below."""
    fmt = MarkdownCells()
    out = []
    for t in tables:
        out.append(f"**{fmt.text(t.caption)}**\n")
        out.append("| " + " | ".join(fmt.cell(c.header) for c in t.columns) + " |")
        out.append("|" + "|".join(":---" if c.align == "l" else "---:" for c in t.columns) + "|")
        out += ["| " + " | ".join(fmt.cell(c) for c in row) + " |" for row in t.rows]
        out.append("")
        out += [f"{fmt.text(n)}  " for n in t.notes]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def csv_text(tables: Sequence[Table]) -> str:
    """One CSV of all parts: a row per (part, system); per value column its value, mark and markers (the
    Rank (UB) column: its number)."""
    fmt = Plain()
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    for i, t in enumerate(tables):
        heads = [csv_safe(fmt.cell(c.header)) for c in t.columns[1:]]
        marked = [any(isinstance(row[j], Marked) for row in t.rows) for j in range(1, len(t.columns))]
        if i:
            w.writerow([])
        w.writerow(["system", *(f"{h}{suffix}" for h, m in zip(heads, marked)
                                for suffix in (("", " [mark]", " [markers]") if m else ("",)))])
        for row in t.rows:  # a value column has its mark and markers; the rank column its number alone
            w.writerow([_csv_value(fmt, row[0]), *(x for c, m in zip(row[1:], marked)
                                                   for x in (_csv_cell(fmt, c) if m else (_csv_value(fmt, c),)))])
    return buf.getvalue()


def _csv_cell(fmt: Plain, c: Cell) -> tuple[str, str, str]:
    if isinstance(c, Marked):
        return _csv_value(fmt, c.inner), c.emphasis, c.marks
    return _csv_value(fmt, c), "", ""


NUMBERS = (Num, Int, Df, Count, Stat, P, CI, Decision)
"""Cells whose CSV text is a number (or an interval, a yes/no) the views made, never a name."""


def _csv_value(fmt: Plain, c: Cell | str) -> str:
    """A cell's text; a text cell (a name) a spreadsheet would read as a formula gets a leading quote, a number
    never does (-0.12 stays a number)."""
    if isinstance(c, str):
        c = Text(c)
    return fmt.cell(c) if isinstance(c, NUMBERS) else csv_safe(fmt.cell(c))
