"""A leaderboard of many systems: the leaderboard figure (from the ranked descriptives, nothing recomputed),
the key figure, and a family of more than 20 systems shown by neighbours and baseline pairs with every pair in a
searchable screen-only table (no k x k matrix in HTML, PDF or LaTeX). The 24-model example
(configs/leaderboard.yaml) is built once per session (conftest.example)."""

from __future__ import annotations

import re

import pytest

from sigreport.render.figures import figure_plan
from sigreport.render.figures.leaderboard import draw_leaderboard, leaderboard_fits, order
from sigreport.render.figures.output import drawn_texts, style
from sigreport.render.figures.leaderboard import leaderboard_figure
from sigreport.render.html import render_page
from sigreport.render.latex import latex_tables
from sigreport.render.options import RenderOptions
from sigreport.render.views import build_report
from sigreport.render.views.scores import LARGE_FAMILY, shown_pairs, value_order
from sigreport.results import from_json
from sigreport.results.decisions import decide
from sigreport.results.records import DescriptivesRecord, PairwiseRecord


@pytest.fixture(scope="module")
def board(example):
    report = example("leaderboard")
    return report, from_json((report / "results.json").read_text(encoding="utf-8"))


def test_the_figure_rows_are_the_tiers_in_value_order(board):
    _, results = board
    desc = next(r for r in results.records if isinstance(r, DescriptivesRecord))
    ranks = decide(results).blocks[0].ranks
    assert leaderboard_fits(desc) and ranks is not None
    rows = order(desc, results.metrics["accuracy"])
    assert [s.system for s in rows] == [s for tier in ranks.members for s in tier]  # tiers, best value first
    assert all(s.tier == ranks.tier[s.system] and s.rank_ub == ranks.rank_ub[s.system] for s in rows)
    with style():
        texts = drawn_texts(leaderboard_figure(desc, results.metrics["accuracy"]))
    for k, tier in enumerate(ranks.members, 1):
        low, high = min(ranks.rank_ub[s] for s in tier), max(ranks.rank_ub[s] for s in tier)
        assert (f"tier {k}, rank {low}" if low == high else f"tier {k}, rank {low}\u2013{high}") in texts
    assert set(results.systems) <= set(texts)


def test_the_key_figure_is_the_leaderboard_in_html_pdf_and_latex(board):
    report, _ = board
    page = (report / "index.html").read_text(encoding="utf-8")
    key = re.search(r'<figure class="fig key" id="([^"]+)"', page)
    assert key and "leaderboard" in key.group(1)
    assert "The tiers of the Conclusions for Accuracy on bench" in page
    assert (report / "figures" / "leaderboard-accuracy-bench-descriptives.pdf").exists()
    snippet = (report / "figures" / "leaderboard-accuracy-bench-descriptives.tex").read_text(encoding="utf-8")
    assert "\\includegraphics" in snippet and "Leaderboard of Accuracy" in snippet
    assert (report / "report.pdf").stat().st_size > 0


def test_fewer_than_six_systems_draw_no_leaderboard(example):
    results = from_json((example("summarization") / "results.json").read_text(encoding="utf-8"))
    desc = [r for r in results.records if isinstance(r, DescriptivesRecord)]
    assert desc and not any(leaderboard_fits(r) for r in desc)
    assert all(not figure_plan(r, results, ("leaderboard",)) for r in desc)
    with pytest.raises(ValueError):
        draw_leaderboard(desc[0])


def test_a_large_family_shows_neighbours_not_a_matrix(board):
    report, results = board
    fam = next(r for r in results.records if isinstance(r, PairwiseRecord))
    k = len(results.systems)
    assert k > LARGE_FAMILY and len(fam.pairs) == k * (k - 1) // 2
    page = (report / "index.html").read_text(encoding="utf-8")
    assert 'class="matrix"' not in page
    # the shown table: the k - 1 pairs of neighbours in value order (no baseline in this spec)
    shown = re.search(r'<table id="tab-accuracy--bench--pairwise" .*?</table>', page, re.S)
    assert shown and shown.group(0).count("<tr") == 1 + (k - 1)
    means = {s.system: s.mean for s in next(r for r in results.records if isinstance(r, DescriptivesRecord)).systems}
    got = [means[s] for s in value_order(fam.pairs, True)]  # the order of the means (ties: either order)
    assert got == pytest.approx(sorted(means.values(), reverse=True), abs=1e-12)
    every = re.search(r'<table id="tab-accuracy--bench--pairwise--all" class="sortable".*?</table>', page, re.S)
    assert every and every.group(0).count("<tr") == 1 + len(fam.pairs)  # every pair, searchable


def test_the_pdf_and_latex_leave_the_every_pair_table_out(board):
    _, results = board
    model = build_report(results, figures=(), options=RenderOptions())
    printed = render_page(model, for_print=True)
    assert "pairwise--all" not in printed and 'class="sortable"' not in printed and "<script>" not in printed
    tex = latex_tables(model)
    assert not any(t.screen_only for t in tex)
    assert max(len(t.rows) for t in tex if t.key[-1] == "pairwise") == len(results.systems) - 1
    fam = next(t for t in tex if t.key[-1] == "pairwise")
    assert not any(f.matrix for f in fam.forms)  # no k x k matrix form for the paper


def test_baseline_pairs_join_the_neighbours(board):
    _, results = board
    fam = next(r for r in results.records if isinstance(r, PairwiseRecord))
    base = results.systems[0]
    got = shown_pairs(fam.pairs, True, base)
    k = len(results.systems)
    neighbours = len(results.systems) - 1
    with_base = [i for i in got[neighbours:]]
    assert len(set(got)) == len(got)
    assert all(base in (fam.pairs[i].a, fam.pairs[i].b) for i in with_base)
    assert sum(base in (fam.pairs[i].a, fam.pairs[i].b) for i in got) == k - 1  # every pair with the baseline


def test_the_kind_can_be_asked_for_alone(tmp_path):
    """outputs.figures: [leaderboard] is a valid spec (the plan's descriptives can give it), and draws it alone."""
    import yaml

    import sigreport
    from conftest import CONFIGS

    doc = yaml.safe_load((CONFIGS / "leaderboard.yaml").read_text(encoding="utf-8"))
    doc["data"]["scores"] = str(CONFIGS / "data" / "leaderboard.csv")
    doc["outputs"]["figures"] = ["leaderboard"]
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(doc), encoding="utf-8")
    report = sigreport.build(spec, tmp_path / "out", formats=["html"])
    page = (report.path / "index.html").read_text(encoding="utf-8")
    assert page.count("<svg") == 1 and 'id="fig-leaderboard-accuracy-bench-descriptives"' in page
