"""The report page at a desktop's 1280 px and a phone's 390 px, as far as a test can see it without a browser:
column heads break only between their parts (``crit`` above ``(α = 0.05)``, never inside it), a pair's row
label wraps before ``vs`` and never inside a name, a long statistic label may wrap, figures shrink to the
screen instead of scrolling, tables too wide for the column scroll with a shadow that says so.

What a browser shows was checked by hand with headless Chromium screenshots (not a test dependency).
"""

from __future__ import annotations

import re

from conftest import ROOT
from sigreport.archive import notes, releases
from sigreport.render.format import Html, Latex, escape
from sigreport.render.html import screen
from sigreport.render.latex import _Measure
from sigreport.render.markdown import Plain
from sigreport.render.model import CI, Column, Decision, Int, P, Pair, Stat, Sym, Table, Text, join

NBSP = "\u00a0"
CSS = (ROOT / "templates" / "html" / "style.css").read_text(encoding="utf-8")


def css_blocks(css: str) -> dict[str, str]:
    """Top-level rules by their prelude (``@media ...`` blocks whole, their inner rules as text); a prelude
    that appears more than once gets its bodies joined."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    out: dict[str, str] = {}
    depth, start, prelude = 0, 0, ""
    for i, ch in enumerate(css):
        if ch == "{":
            if depth == 0:
                prelude, start = css[start:i].strip(), i + 1
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                out[prelude] = out.get(prelude, "") + css[start:i]
                start = i + 1
    return out


def rule(block: str, selector: str) -> str:
    """The declarations of ``selector`` in ``block`` (the rules of a stylesheet or of a media block), joined."""
    return " ".join(body for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", block)
                    if selector in (s.strip() for s in sel.split(",")))


NARROW = css_blocks(CSS)["@media screen and (max-width: 600px)"]
SCREEN = css_blocks(CSS)["@media screen"]
PRINT = css_blocks(CSS)["@media print"]
ALL = "".join(f"{k}{{{v}}}" for k, v in css_blocks(CSS).items() if not k.startswith("@"))


def heads(page: str, table_id: str) -> list[str]:
    """The column heads of the table ``table_id`` as HTML."""
    table = re.search(f'<table id="{re.escape(table_id)}".*?</thead>', page, re.S)
    assert table, table_id
    return re.findall(r"<th(?: [^>]*)?>(.*?)</th>", table.group(0))


# ---- column heads ------------------------------------------------------------------------------------


def test_crit_head_keeps_its_level_on_one_line():
    """'crit (α = 0.05)' may break after 'crit' only (it broke into 'crit (α', '=', '0.05)' in a narrow
    column); LaTeX writes it as a subscript, and plain text keeps ordinary spaces."""
    assert Html().cell(Sym("crit", "0.05")) == f"crit (\u03b1{NBSP}={NBSP}0.05)"
    assert Latex().cell(Sym("crit", "0.05")) == r"$\text{crit}_{\alpha=0.05}$"
    assert Plain().cell(Sym("crit", "0.05")) == "crit (alpha = 0.05)"


def test_pairwise_heads_break_only_between_their_parts(example):
    page = (example("summarizers") / "index.html").read_text(encoding="utf-8")
    pairwise = heads(page, "tab-rouge1_recall--texts--pairwise")  # on screen: decision and p_adj next to the pair
    assert pairwise[:6] == [f"a{NBSP}vs{NBSP}b", "Significant", "p<sub>adj</sub>", "n", "mean<wbr>(a\u2212b)",
                            f"95%{NBSP}CI"]  # one pair: no column is "the same on every row"
    assert f"crit (\u03b1{NBSP}={NBSP}0.05)" in pairwise and "crit (\u03b1 = 0.05)" not in page
    differences = heads(page, "tab-rouge1_recall--texts--pairwise-differences")
    assert differences[1:5] == [f"SD{NBSP}of a{NBSP}\u2212{NBSP}b", f"SE{NBSP}of a{NBSP}\u2212{NBSP}b",
                                f"Shapiro-Wilk{NBSP}W", f"Shapiro-Wilk{NBSP}p"]
    descriptives = heads(page, "tab-rouge1_recall--texts--descriptives")
    assert descriptives[-1] == f"95%{NBSP}CI of the mean"


def test_a_no_break_space_is_a_tie_in_latex_and_a_space_in_the_width_estimate():
    assert escape(f"SD{NBSP}of a{NBSP}\u2212{NBSP}b") == "SD~of a~$-$~b"
    m = _Measure()
    assert m.width(m.cell(Pair("A", "B"))) == m.width("A vs B")
    assert m.text(f"95%{NBSP}CI") == "95% CI"


# ---- row labels ---------------------------------------------------------------------------------------


def test_a_pair_wraps_before_vs_and_never_inside_a_name():
    """Each side is a span the stylesheet keeps on one line ('lexicon' and 'vs roberta-large'): a hyphen in
    a name is no place for a line break. Other targets write the pair as plain words, escaped."""
    assert Html().cell(Pair("bert-base", "roberta-large")) == (
        '<span class="pair"><span>bert-base</span> <span>vs roberta-large</span></span>')
    assert Html().cell(Pair("<a>", "b&c")) == '<span class="pair"><span>&lt;a&gt;</span> <span>vs b&amp;c</span></span>'
    assert Latex().cell(Pair("sys_1", "B")) == r"sys\_1 vs B"
    assert Plain().cell(Pair("A", "B")) == "A vs B"
    # on any screen, when its table is wider than the column (a wide table first narrows, then scrolls)
    assert "white-space: normal" in rule(SCREEN, ".pair") and "white-space: nowrap" in rule(SCREEN, ".pair > span")
    assert ".pair" not in ALL + PRINT  # in print a pair stays on one line (cells do not wrap)
    assert "white-space: nowrap" in rule(ALL, "td")


def pairs_table(rows: int) -> Table:
    cols = (Column(Text("a vs b"), "l"), Column(Sym("n")), Column(Sym("t")), Column(Sym("crit", "0.05")),
            Column(Sym("p")), Column(Sym("p_adj")), Column(Text("Significant"), "c"), Column(Text("Effect")))
    body = [(Pair("A", "B"), Int(30), Stat(2.5), Stat(2.045), P(0.01), P(0.02), Decision(True), Text("\u2014")),
            (Pair("A", "C"), Int(30), Stat(0.5), Stat(2.045), P(0.6), P(0.6), Decision(False), Text("\u2014"))]
    return Table(("m", "c", "pairwise"), "caption", cols, tuple(body[:rows]), ("a note",), name="m--c--pairwise")


def test_a_screen_pairwise_table_puts_its_decision_and_p_adj_next_to_the_pair():
    """On screen: pair, decision, p_adj, then the rest in the model's order; a column with one value on every row
    (n, crit) is stated once in a note before the table's own, an empty one (Effect: a dash) named as such."""
    t = screen(Html(), pairs_table(2))
    assert [c.header for c in t.columns] == [Text("a vs b"), Text("Significant"), Sym("p_adj"), Sym("t"), Sym("p")]
    assert t.rows[1] == (Pair("A", "C"), Decision(False), P(0.6), Stat(0.5), P(0.6))
    assert t.notes == (f"The same on every row: n = 30, crit (\u03b1{NBSP}={NBSP}0.05) = 2.045; "
                       "no value on any row: Effect.", "a note")
    one = screen(Html(), pairs_table(1))  # one row: every column is "constant", none is dropped
    assert len(one.columns) == 8 and one.notes == ("a note",) and one.columns[1].header == Text("Significant")
    systems = Table(("m",), "c", (Column(Text("System"), "l"), Column(Sym("n")), Column(Text("Mean"))),
                    ((Text("A"), Int(5), join("0.1")), (Text("B"), Int(5), join("0.2"))))
    assert [c.header for c in screen(Html(), systems).columns] == [Text("System"), Text("Mean")]


def test_an_interval_never_breaks_inside_on_screen():
    """A value with its interval may break before the interval (class vci, white-space: normal on screen), never
    inside it: "0.42 [0.31, 0.53]" wraps as "0.42" above "[0.31, 0.53]"."""
    cell = join(CI(0.31, 0.53, 0.95, 2))
    assert Html().cell(CI(0.31, 0.53, 0.95, 2)) == f"[0.31,{NBSP}0.53]" and Html().css_class(cell) == ""
    assert Html().css_class(join("0.42 ", CI(0.31, 0.53, 0.95, 2))) == " vci"
    assert Latex().cell(CI(0.31, 0.53, 0.95, 2)) == "[0.31, 0.53]"
    assert "white-space: normal" in rule(SCREEN, ".scroll td.vci") and ".vci" not in ALL + PRINT


def test_pairwise_rows_are_pairs(example):
    page = (example("summarizers") / "index.html").read_text(encoding="utf-8")
    body = re.search(r'<table id="tab-rouge1_recall--texts--pairwise".*?</table>', page, re.S)
    assert body and '<td class="l"><span class="pair"><span>A</span> <span>vs B</span></span></td>' in body.group(0)


def test_a_long_statistic_label_may_wrap_on_a_phone(example):
    """The Friedman table's labels ('Friedman χ²_F (uncorrected (Demšar's formula))') filled the width of a
    phone as a sticky first column, hiding the values; its column may wrap there (words, not names)."""
    page = (example("demsar") / "index.html").read_text(encoding="utf-8")
    omnibus = re.search(r'<table id="tab-auc--all--omnibus".*?</table>', page, re.S)
    assert omnibus and omnibus.group(0).count('<td class="l wrap">') == 4
    assert "white-space: normal" in rule(NARROW, ".scroll td.wrap")


# ---- the stylesheet -----------------------------------------------------------------------------------


def test_figures_shrink_to_a_phone_instead_of_scrolling():
    """At 390 px the key figure was a scroll box (``min-width: 26rem``) that cut its labels; a figure's SVG is
    ``width="100%"`` with its natural size as ``max-width``, so without a minimum it fits the screen."""
    assert "figure.fig" not in NARROW
    assert "min-width" not in rule(ALL + SCREEN, "figure.fig svg") and "overflow" not in rule(ALL, "figure.fig")


def test_table_heads_have_no_minimum_width():
    """A minimum width per head (4.5rem) made a 12-column pairwise table wider than the 1280 px page's column
    for one-character columns (n, t, df)."""
    assert "min-width" not in rule(ALL + SCREEN, "figure.tbl th")
    assert "min-width: 0" in rule(PRINT, "figure.tbl th")  # print has always had none


def test_wide_tables_scroll_with_a_shadow_on_screen_only():
    """A table wider than its column keeps its scroll box; a shadow at the right edge (covered at the
    table's end by a white layer that scrolls with it) says there is more. The archive's pages do the same."""
    shadow = rule(SCREEN, ".scroll")
    assert "no-repeat local" in shadow and "no-repeat scroll" in shadow
    assert "background" not in rule(ALL + PRINT, ".scroll")
    assert "overflow-x: auto" in rule(ALL, ".scroll")
    for style in (releases.STYLE, notes.STYLE):
        assert "overflow-x:auto" in style and "no-repeat local" in style and "no-repeat scroll" in style


def test_a_long_setting_wraps_on_a_phone():
    """sacrebleu's signature (one 60-character word) made the mt example's page 440 px wide at 390."""
    assert "overflow-wrap: anywhere" in rule(NARROW, "table.settings td")
