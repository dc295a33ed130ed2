"""Large pairwise families in the HTML: a k x k matrix of adjusted p-values with the direction marked
(``outputs.html.pairwise``: rows | matrix | auto, auto above 40 pairs of an all-pairs family); small
families and the LaTeX tables stay as they were."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import sigreport
from sigreport.api.options import render_options
from sigreport.render.html import render_html
from sigreport.render.latex import render_latex
from sigreport.render.views import build_report
from sigreport.render.views.common import MATRIX_PAIRS


def scores(k: int, n: int = 40) -> pd.DataFrame:
    """k systems whose means rise with their number (S00 lowest), clearly apart: every pair differs."""
    rng = np.random.default_rng(3)
    rows = [(f"S{i:02d}", "c", f"i{j}", "m", 0.1 * i + rng.normal(0, 0.01)) for i in range(k) for j in range(n)]
    return pd.DataFrame(rows, columns=["system", "corpus", "item", "metric", "value"])


def spec(k: int, html: str | None = None, comparisons: str = "all_pairs",
         latex: str | None = None, figures: tuple[str, ...] = ("pvalues",)) -> sigreport.spec.Spec:
    doc: dict = {"title": "t", "alpha": 0.05, "seed": 0, "data": {"scores": "unused.csv"},
                 "systems": [f"S{i:02d}" for i in range(k)],
                 "metrics": {"m": {"higher_is_better": True, "decimals": 3}},
                 "tests": {"pairwise": "paired_t", "omnibus": "friedman", "comparisons": comparisons},
                 "outputs": {"figures": list(figures)}}
    if comparisons == "vs_baseline":
        doc["baseline"] = "S00"
    if html is not None:
        doc["outputs"]["html"] = {"pairwise": html}
    if latex is not None:
        doc["outputs"]["latex"] = {"pairwise": latex}
    return sigreport.load_spec(doc)


def report(k: int, html: str | None = None, comparisons: str = "all_pairs"):
    s = spec(k, html, comparisons)  # its outputs reach the renderer as options
    return build_report(sigreport.analyze(s, scores=scores(k)), figure_pdf=False, options=render_options(s.spec))


def pairwise_table(model):
    return next(t for t in model.tables() if t.key[-1] == "pairwise")


def table_html(page: str, name: str) -> str:
    return re.search(rf'<table id="tab-{re.escape(name)}".*?</table>', page, flags=re.S).group(0)


def test_threshold_is_forty_pairs():
    assert MATRIX_PAIRS == 40  # the README's rule; 9 systems (36 pairs) stay rows, 10 (45) become a matrix


@pytest.fixture(scope="module")
def large():
    return report(11)  # 55 pairs


def test_large_family_is_a_matrix_with_direction(large):
    t = pairwise_table(large)
    assert t.html_form is not None and len(t.rows) == 55  # the rows stay in the model (LaTeX, rows option)
    page = render_html(large)
    html = table_html(page, t.name)
    assert 'class="matrix"' in html
    assert html.count("<tr") == 1 + 11  # header and one row per system, not 55 pair rows
    # S10 has the highest mean: its row is all significant wins, its column all losses
    row10 = re.search(r"<tr><td class=\"l\">S10</td>(.*?)</tr>", html).group(1)
    assert row10.count('class="r sig win"') == 10 and "\u25b2" in row10 and "loss" not in row10
    row00 = re.search(r"<tr><td class=\"l\">S00</td>(.*?)</tr>", html).group(1)
    assert row00.count('class="r sig loss"') == 10 and "\u25bc" in row00 and "win" not in row00
    assert "<strong>" not in html and "td.sig { font-weight: bold; }" in page  # bold by the cell's class


def test_large_family_sentences_per_system(large):
    view = next(v for s in large.sections for v in s.views if v.kind == "pairwise")
    assert len(view.sentences) == 11
    assert view.sentences[0].startswith("S00 is significantly worse than S01, S02")
    assert "S10 is significantly better than S00" in view.sentences[-1]
    assert not any(" on m: " in s for s in view.sentences)  # no sentence per pair


def test_large_family_per_pair_tables_out_of_html_and_latex_and_no_heat_map(large, tmp_path):
    """55 pairs: the HTML shows the matrix and LaTeX writes it (over 40 rows), so the paired-differences table
    would be shown nowhere: it is not built (results.json has every pair's differences)."""
    assert not [t for t in large.tables() if "differences" in t.key[-1]]
    assert not [f for f in large.figures() if f.name.startswith("pvalues-")]  # the matrix is the heat map
    note = pairwise_table(large).compact.notes[0]  # the LaTeX matrix points to results.json, not to the HTML
    assert "in results.json" in note and "HTML" not in note
    out = render_latex(large, tmp_path / "tables")
    assert len(out.files) == len(large.tables()) + len(large.main) + 2  # and methods.tex, references.bib


def test_large_family_differences_in_html_rows_but_not_in_latex(tmp_path):
    """outputs.html.pairwise: rows shows the 55 rows and their differences in the HTML; LaTeX (auto) writes
    the family as a matrix and leaves the 55-row differences table out."""
    model = report(11, "rows")
    diffs = [t for t in model.tables() if "differences" in t.key[-1]]
    assert len(diffs) == 1 and diffs[0].in_html and diffs[0].pair_detail and len(diffs[0].rows) == 55
    assert f'id="tab-{diffs[0].name}"' in render_html(model)
    out = render_latex(model, tmp_path / "tables")
    assert len(out.files) == len(model.tables()) - 1 + len(model.main) + 2  # and methods.tex, references.bib
    assert not any("differences" in f for f in out.files)


def test_large_family_per_pair_tables_in_latex_with_rows(tmp_path):
    """outputs.latex.pairwise: rows asks for one row per pair in LaTeX: the differences come back too."""
    s = spec(11, latex="rows")
    model = build_report(sigreport.analyze(s, scores=scores(11)), figure_pdf=False, options=render_options(s.spec))
    diffs = [t for t in model.tables() if "differences" in t.key[-1]]
    assert diffs and all(t.pair_detail and not t.in_html for t in diffs)
    out = render_latex(model, tmp_path / "tables")
    assert len(out.files) == len(model.tables()) + len(model.main) + 2  # and methods.tex, references.bib


def test_small_family_keeps_rows():
    model = report(5)  # 10 pairs
    t = pairwise_table(model)
    assert t.html_form is None
    view = next(v for s in model.sections for v in s.views if v.kind == "pairwise")
    assert len(view.sentences) == 10 and all(" on m: t(39) = " in s for s in view.sentences)  # one per pair
    assert [f for f in model.figures() if f.name.startswith("pvalues-")]  # small family: its heat map
    assert 'class="matrix"' not in render_html(model)


def test_baseline_family_keeps_rows():
    """Against a baseline the matrix would have as many rows as the pairs: auto keeps the rows."""
    t = pairwise_table(report(MATRIX_PAIRS + 3, comparisons="vs_baseline"))  # 42 pairs
    assert len(t.rows) == MATRIX_PAIRS + 2 and t.html_form is None


@pytest.mark.parametrize(("k", "option", "matrix"), [(11, "rows", False), (5, "matrix", True), (11, "auto", True)])
def test_option(k, option, matrix):
    assert (pairwise_table(report(k, option)).html_form is not None) is matrix


def test_latex_does_not_depend_on_the_html_option(tmp_path):
    """Same tables whichever way the HTML shows the family (its forms for a paper are LaTeX's own), and no
    caption or note sends the reader of a paper to the HTML report."""
    texts = []
    for option in ("rows", "matrix"):
        out = tmp_path / option
        model = report(11, option)
        files = render_latex(model, out)
        texts.append({f: (out / f).read_text() for f in files.files})
    assert texts[0] == texts[1]
    assert not [f for f, t in texts[0].items() if "HTML" in t]


def test_latex_long_all_pairs_family_is_a_matrix():
    """LaTeX auto: a family of every pair with more than 40 pairs is a lower-triangle matrix even when its rows
    would fit the text width (the pair rows' four columns do); 10 pairs stay rows with their estimates."""
    from sigreport.render.latex import layout

    for k, matrix in ((11, True), (5, False)):
        t = next(t for t in report(k).tables() if t.key[-1] == "posthoc")
        chosen = layout(t)[0].table
        assert chosen.matrix is matrix, k
        assert chosen.form == ("lower-triangle matrix of p-values" if matrix else "pairs with estimates"), k
        assert len(chosen.rows) == (k - 1 if matrix else k * (k - 1) // 2)


@pytest.mark.parametrize("k, html, comparisons", [(11, None, "all_pairs"), (5, None, "all_pairs"),
                                                  (5, "matrix", "all_pairs"), (11, "rows", "all_pairs"),
                                                  (11, None, "vs_baseline"), (11, "matrix", "vs_baseline")])
def test_heat_map_is_left_out_exactly_where_the_view_is_a_matrix(k, html, comparisons):
    """The figure kinds are decided from the record before its view is built (so figures are drawn while the
    views are): the decision must be the view's own, for every kind of family (pairwise, the Nemenyi
    post-hoc after Friedman) and every option."""
    from sigreport.render.figures import KINDS
    from sigreport.render.views import VIEWS, kinds_of
    from sigreport.render.views.common import Labels

    results = sigreport.analyze(spec(k, html, comparisons), scores=scores(k))
    lab = Labels(results.metrics, results.alpha, html_pairwise=html or "auto")
    families = [r for r in results.records if getattr(r, "pairs", None)]
    assert {r.kind for r in families} >= {"pairwise", "posthoc"}
    for r in families:
        matrix = any(t.html_form is not None for t in VIEWS[r.kind](r, lab).tables)
        assert ("pvalues" not in kinds_of(r, tuple(KINDS), lab)) is matrix, (r.id, html, comparisons)


def test_forest_plot_of_a_matrix_family_is_left_out_of_the_pdf_only():
    """10 systems (45 pairs, a matrix in the HTML): the forest plot stays on screen (the only per-pair estimates
    the HTML shows) but is screen-only, so the PDF leaves it out; 9 systems (36 pairs, rows) print it."""
    from sigreport.render.pdf import print_page

    for k, matrix in ((10, True), (9, False)):
        s = spec(k, figures=("forest",))
        model = build_report(sigreport.analyze(s, scores=scores(k)), figure_pdf=False, options=render_options(s.spec))
        forest = [f for f in model.figures() if f.name.startswith("forest-")]
        assert len(forest) == 1 and forest[0].screen_only is matrix, k
        page = render_html(model)
        assert f'id="fig-{forest[0].name}"' in page  # on screen either way
        assert (f'id="fig-{forest[0].name}"' in print_page(model).html) is not matrix, k
