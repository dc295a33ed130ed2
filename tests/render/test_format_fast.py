"""The fast paths of cell formatting and of the LaTeX width estimate give what the general rules give.

Each reference below is the straightforward implementation the fast path replaced (kept here, not in the
package): escaping character by character, numbers through ``_fixed`` and ``_finite``, and column widths
measured cell by cell with a fresh measure per table."""

from __future__ import annotations

import dataclasses
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
    text = "" if value is None else str(value)
    for k, ch in enumerate(text):
        if ch == "/":  # a break after a slash within a word (organisation/model), a plain one between spaces
            within = 0 < k < len(text) - 1 and not text[k - 1].isspace() and not text[k + 1].isspace()
            out.append("/\\hspace{0pt plus 2pt}" if within else "/")
        elif ch in fmt._SPECIALS:
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
    alphabet = "abcXYZ019 .,-()[]/\\~^&%$#_{}<>\n\t\r\x00\x7f\u2212\u2014\u03b1\u00e9\u65e5\U0001f600\u2020"
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
                t.concat([t.text("["), num_reference(t, lo, 2), t.text(t.ci_comma), num_reference(t, hi, 2),
                          t.text("]")]))
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
    """The fit rule's column widths, written out: each column's widest cell and own head (a two-line head's
    second line; its first spans the columns that share it), then every spanning head made room for."""
    m = latex._Measure()
    own = lambda c: c.header.parts[1:] if isinstance(c.header, Lines) and len(c.header.parts) > 1 else (c.header,)
    widths = [max(latex.text_width(m.cell(part)) for part in own(c)) for c in table.columns]
    bold_rows = set(table.bold_rows)
    for i, row in enumerate(table.rows):
        bold = i in bold_rows
        for j, c in enumerate(row):
            if isinstance(c, Versus):
                c = c.as_marked()
            inner = c.inner if isinstance(c, Marked) else c
            strong = bold or (isinstance(c, Marked) and c.emphasis == "best")
            w = (max(latex.text_width(m.cell(p), strong) for p in inner.parts) if isinstance(inner, Lines) and
                 not isinstance(c, Marked) else latex.text_width(m.cell(inner), strong))
            if isinstance(c, Marked) and c.marks:
                w += 0.7 * latex.text_width(c.marks)
            widths[j] = max(widths[j], w)
        if limit is not None and latex._span(widths, 8) > limit:
            break
    j = 0
    while j < len(table.columns):  # runs of columns under one spanning head
        h = table.columns[j].header
        k = j + 1
        if isinstance(h, Lines) and len(h.parts) > 1:
            while k < len(table.columns) and isinstance(table.columns[k].header, Lines) and \
                    table.columns[k].header.parts[0] == h.parts[0]:
                k += 1
            room = sum(widths[j:k]) + 12 * (k - j - 1)
            need = min(max(latex.text_width(m.cell(p)) for p in latex.broken_head(h.parts[0], room, m)),
                       latex.text_width(m.cell(h.parts[0])))
            widths[k - 1] += max(0.0, need - room)
        j = k
    return widths


def chosen_reference(t: Table, opts: LatexOptions) -> Table:
    """The form LaTeX writes: rows -> the table; matrix -> the first matrix form that fits the text width at
    the least \\tabcolsep (else the last); auto -> the same over every form, pair rows only up to 40 rows."""
    if opts.pairwise == "rows" or not t.forms:
        return t
    forms = [f for f in t.forms if f.matrix] if opts.pairwise == "matrix" else (
        [f for f in t.forms if f.matrix or len(f.rows) <= latex.LONG_TABLE_ROWS] or list(t.forms[:1]))
    if not forms:
        return t
    for f in forms:
        if latex._span(column_widths_reference(f), 2 * latex.MIN_TABCOLSEP) <= opts.page.textwidth:
            return dataclasses.replace(f, name=t.name)
    return dataclasses.replace(forms[-1], name=t.name)


def _cell(rng: random.Random):
    x = rng.uniform(-3, 3) * 10 ** rng.randrange(-4, 8)
    return rng.choice([
        Num(x, rng.randrange(4)), Num(None), P(abs(x) % 1), Stat(x), Int(int(x)), Df(abs(x)), Count(abs(x)),
        CI(x, x + 1, 0.95), Decision(rng.random() < 0.5), Text(rng.choice(["S0 (a)", "a_b", "\u65e5", ""])),
        Join((Num(x), Text(" "), CI(x - 1, x + 1, 0.95))), Sym("p_adj"), Sym("crit", "0.05"),
        Marked(Num(x), rng.choice(["", "best", "second"]), rng.choice(["", "\u2020", "a"])),
        Versus(abs(x) % 1, rng.choice([True, False, None]), rng.choice([True, False, None]))])


def _table(rng: random.Random, forms: bool = True) -> Table:
    k = rng.randrange(1, 12)
    columns = tuple(Column(rng.choice([Text(f"col {j}"), Lines((Text("m \u2191"), Text(f"c{j}"))), Sym("p_adj"),
                                       Lines((Text("Length ratio (summary / reference)"), Text(f"c{j}")))]))
                    for j in range(k))
    rows = tuple(tuple(_cell(rng) for _ in range(k)) for _ in range(rng.randrange(0, 60)))
    bold = tuple(i for i in range(len(rows)) if rng.random() < 0.1)
    alt = tuple(dataclasses.replace(_table(rng, False), matrix=rng.random() < 0.5)
                for _ in range(rng.randrange(1, 4))) if forms and rng.random() < 0.5 else ()
    return Table(("x",), "A caption", columns, rows, (), bold, name="t", forms=alt)


def test_column_widths_and_layout_as_the_reference():
    rng = random.Random(11)
    measure = latex._Measure()  # shared by every table, as in render_tables
    options = [LatexOptions(), LatexOptions(float="table"), LatexOptions(pairwise="rows"),
               LatexOptions(pairwise="matrix"), LatexOptions(float="table*")]
    for _ in range(150):
        t = _table(rng)
        for limit in (None, latex.COLUMN_WIDTH, latex.TEXT_WIDTH):
            assert latex.column_widths(t, limit, measure) == pytest.approx(column_widths_reference(t, limit))
        for opts in options:
            want = latex.chosen_form(t, opts)
            assert want == chosen_reference(t, opts)
            parts = latex.layout(t, opts, measure)
            assert parts == latex.layout(t, opts)
            widths = column_widths_reference(parts[0].table)
            assert all(p.table == parts[0].table for p in parts)
            assert parts[0].table == want or (len(want.rows) == 1 and parts[0].table == latex.transposed(want))
            assert sorted(i for p in parts for i in p.rows if p.columns == parts[0].columns) == list(
                range(len(parts[0].table.rows)))  # every row once
            # every column in some part (panels may be split across floats by height, each part its own panels)
            assert sorted({j for p in parts for g in p.groups for j in g}) == list(range(len(widths)))
            for p in parts:
                assert all(g[0] == 0 for g in p.groups)
                if len(p.groups) > 1 or p.count > len(range(0, max(1, len(want.rows)), latex.LONG_TABLE_ROWS)):
                    limit = opts.page.columnwidth if opts.float == "table" else opts.page.textwidth
                    for g in p.groups:  # a panel is too wide only when it holds one column beside the labels
                        assert latex._span([widths[i] for i in g], 2 * p.tabcolsep) <= limit or len(g) <= 2
                else:  # the whole table in the first float of the rule that holds it
                    fit = latex.fitting(widths, opts)
                    assert (p.env, p.tabcolsep) == (fit or (latex.env_for(latex._span(widths), opts), 6.0))




def test_a_slash_within_a_name_may_break_a_line():
    """organisation/model names (mockllm/large) may break after the slash, with a little stretch (they ran 9.8 pt
    past the lncs column in a list of three); a slash between spaces stays plain."""
    assert escape("mockllm/large") == "mockllm/\\hspace{0pt plus 2pt}large"
    assert escape("summary / reference") == "summary / reference"
    assert escape("/a") == "/a" and escape("a/") == "a/"
