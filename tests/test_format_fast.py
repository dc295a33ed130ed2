"""The fast paths of cell formatting and of the LaTeX width estimate give what the general rules give.

Each reference below is the straightforward implementation the fast path replaced (kept here, not in the
package): escaping character by character, numbers through ``_fixed`` and ``_finite``, and column widths
measured cell by cell with a fresh measure per table."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from sigreport.render import format as fmt
from sigreport.render import latex
from sigreport.render.format import Safe, escape
from sigreport.render.markdown import Plain
from sigreport.render.model import (CI, Column, Count, Decision, Df, Int, Join, LatexOptions, Lines, Marked, Num, P,
                                    Stat, Sym, Table, Text, Versus)


def escape_reference(value: object, unprintable: set[str] | None = None) -> str:
    if isinstance(value, Safe):
        return str(value)
    out = []
    for ch in "" if value is None else str(value):
        if ch in fmt._SPECIALS:
            out.append(fmt._SPECIALS[ch])
        elif fmt.latex_printable(ch):
            out.append(ch)
        else:
            if unprintable is not None:
                unprintable.add(ch)
            out.append(fmt.placeholder(ch))
    return "".join(out)


def test_escape_every_character_as_the_reference():
    for c in [*range(0x3000), 0x1F600, 0xFEFF, 0xFB01]:
        ch = chr(c)
        for s in (ch, f"a{ch}b", f"{ch}{ch}"):
            got, want = set(), set()
            assert escape(s, got) == escape_reference(s, want), hex(c)
            assert got == want


def test_escape_random_text_as_the_reference():
    rng = random.Random(3)
    alphabet = "abcXYZ019 .,-()[]\\~^&%$#_{}<>\n\t\r\x00\x7f\u2212\u2014\u03b1\u00e9\u65e5\U0001f600\u2020"
    for _ in range(3000):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        got, want = set(), set()
        assert escape(s, got) == escape_reference(s, want)
        assert got == want
    assert escape(12.5) == "12.5" and escape(None) == ""
    assert escape(Safe("\\&")) == "\\&"


def test_latex_text_memo_does_not_confuse_safe_strings_with_plain_ones():
    t = fmt.Latex()
    assert t.text("a_b") == "a\\_b"
    assert t.text(Safe("a_b")) == "a_b"  # equal to the plain key above, but already LaTeX
    assert t.text("a_b") == "a\\_b"
    t.text("\u65e5")
    t.text("\u65e5")
    assert t.unprintable == {"\u65e5"}


def fixed_reference(x: float, decimals: int) -> str:
    s = f"{x:.{decimals}f}"
    return f"{0:.{decimals}f}" if float(s) == 0 else s


def finite_reference(x: float | None) -> bool:
    return x is not None and not (isinstance(x, float) and not math.isfinite(x))


def num_reference(t: fmt.Target, x: float | None, decimals: int) -> str:
    return t.signed(fixed_reference(x, decimals)) if finite_reference(x) else t.dash()  # type: ignore[arg-type]


VALUES = [0.0, -0.0, 1e-05, -1e-05, -0.0004, -0.0005, -0.0006, 0.0005, 1e16, -1e16, 5e-324, -5e-324, 0.1, -2.5,
          2.5, 123456789.123456789, math.nan, math.inf, -math.inf, None, 3, -3, 0, np.float64(-0.0001),
          np.float64(0.25), np.float32(-0.0001), np.int64(-2)]


@pytest.mark.parametrize("target", [fmt.Html, fmt.Latex, Plain, latex._Measure])
def test_numbers_as_the_reference(target):
    rng = random.Random(5)
    values = VALUES + [rng.uniform(-2, 2) * 10 ** rng.randrange(-8, 8) for _ in range(2000)]
    t = target()
    for x in values:
        for d in (0, 1, 2, 3, 4):
            assert t.cell(Num(x, d)) == num_reference(t, x, d), (x, d)
            assert fmt._fixed(x, d) == fixed_reference(x, d) if finite_reference(x) else True
        if x is not None and finite_reference(x) and abs(x) < 1e6:
            assert t.cell(Stat(x)) == num_reference(t, x, 3)
        lo, hi = x, (None if x is None else abs(x) + 1)
        want = (t.dash() if lo is None else
                t.concat([t.text("["), num_reference(t, lo, 2), t.text(", "), num_reference(t, hi, 2), t.text("]")]))
        assert t.cell(CI(lo, hi, 0.95, 2)) == want


def test_direct_and_memoised_cells_are_the_formatting_of_their_kind():
    cells = [Num(0.5), Int(3), Df(2.5), Count(33.5), Stat(1e7), P(0.0001), P(0.5), CI(None, 1.0, 0.9, 2, True),
             Decision(True), Join((Text("a_b"), Num(-0.25), CI(0.1, 0.2, 0.95))), Text("S0 & S1"), Sym("p_adj"),
             Lines((Text("x"), Text("y"))), Marked(Num(0.1), "best", "\u2020"), Versus(0.01, True, False)]
    for target in (fmt.Html, fmt.Latex, Plain):
        t = target()
        for c in cells:
            once, twice = t.cell(c), t.cell(c)
            assert once == twice == fmt._CELLS[type(c)](target(), c), (target, c)


# ---------------------------------------------------------------------------------------------- column widths


def column_widths_reference(table: Table, limit: float | None = None) -> list[float]:
    m = latex._Measure()
    widths = [max(latex.text_width(m.cell(part)) for part in (c.header.parts if isinstance(c.header, Lines)
                                                              else (c.header,))) for c in table.columns]
    bold_rows = set(table.bold_rows)
    for i, row in enumerate(table.rows):
        bold = i in bold_rows
        for j, c in enumerate(row):
            if isinstance(c, Versus):
                c = c.as_marked()
            inner = c.inner if isinstance(c, Marked) else c
            w = latex.text_width(m.cell(inner), bold or (isinstance(c, Marked) and c.emphasis == "best"))
            if isinstance(c, Marked) and c.marks:
                w += 0.7 * latex.text_width(c.marks)
            widths[j] = max(widths[j], w)
        if limit is not None and latex._span(widths) > limit:
            break
    return widths


def _cell(rng: random.Random):
    x = rng.uniform(-3, 3) * 10 ** rng.randrange(-4, 8)
    return rng.choice([
        Num(x, rng.randrange(4)), Num(None), P(abs(x) % 1), Stat(x), Int(int(x)), Df(abs(x)), Count(abs(x)),
        CI(x, x + 1, 0.95), Decision(rng.random() < 0.5), Text(rng.choice(["S0 (a)", "a_b", "\u65e5", ""])),
        Join((Num(x), Text(" "), CI(x - 1, x + 1, 0.95))), Sym("p_adj"), Sym("crit", "0.05"),
        Marked(Num(x), rng.choice(["", "best", "second"]), rng.choice(["", "\u2020", "a"])),
        Versus(abs(x) % 1, rng.choice([True, False, None]), rng.choice([True, False, None]))])


def _table(rng: random.Random, compact: bool = True) -> Table:
    k = rng.randrange(1, 12)
    columns = tuple(Column(rng.choice([Text(f"col {j}"), Lines((Text("m \u2191"), Text(f"c{j}"))), Sym("p_adj")]))
                    for j in range(k))
    rows = tuple(tuple(_cell(rng) for _ in range(k)) for _ in range(rng.randrange(0, 60)))
    bold = tuple(i for i in range(len(rows)) if rng.random() < 0.1)
    small = _table(rng, False) if compact and rng.random() < 0.5 else None
    return Table(("x",), "A caption", columns, rows, (), bold, name="t", compact=small)


def test_column_widths_and_layout_as_the_reference():
    rng = random.Random(11)
    measure = latex._Measure()  # shared by every table, as in render_tables
    options = [LatexOptions(), LatexOptions(float="table"), LatexOptions(pairwise="rows"),
               LatexOptions(pairwise="matrix")]
    for _ in range(150):
        t = _table(rng)
        for limit in (None, latex.COLUMN_WIDTH, latex.TEXT_WIDTH):
            assert latex.column_widths(t, limit, measure) == column_widths_reference(t, limit)
        for opts in options:
            want = latex.chosen_form(t, opts)
            if t.compact is not None and opts.pairwise == "auto" and not (
                    len(t.compact.columns) > 2 and len(t.rows) > latex.LONG_TABLE_ROWS):
                wide = latex._span(column_widths_reference(t, latex.TEXT_WIDTH)) > latex.TEXT_WIDTH
                assert (want.rows == t.compact.rows and want.rows != t.rows) == wide or t.rows == t.compact.rows
            parts = latex.layout(t, opts, measure)
            widths = column_widths_reference(want)
            assert parts == latex.layout(t, opts)
            assert [p.table for p in parts] == [want] * len(parts)
            for p in parts:
                assert p.env == latex.env_for(latex._span([widths[i] for i in p.columns]), opts)
