"""Table notes and captions say what a reader needs in plain words: no spec keys or R-package trivia, the
corpus-level value named only where a metric is corpus-level, and a marker legend for markers cells use.

Read over every example's built report (its results.json and spec, as ``sigreport build`` renders them).
"""

from __future__ import annotations

import re

import pytest

from conftest import CONFIGS
from sigreport.api.options import render_options
from sigreport.render.model import Marked, ReportModel, Table
from sigreport.render.views import build_report
from sigreport.render.views.main import DAGGER, DDAGGER
from sigreport.results import from_json
from sigreport.spec import load_spec_file

EXAMPLES = sorted(p.stem for p in CONFIGS.glob("*.yaml"))

# what a note must not hold: a spec key (tests.mauchly_p), an R package's name or its spelling of a quantity
INTERNALS = re.compile(r"\b(?:tests|outputs|classification|agreement|data|metrics)\.[a-z_]+|mauchly_p|\bcar\b|"
                       r"\bafex\b|pingouin|deepsig|irr::|\bges\b|R's correct")


def model_of(folder, name: str) -> ReportModel:
    spec = load_spec_file(CONFIGS / f"{name}.yaml").spec
    results = from_json((folder / "results.json").read_text(encoding="utf-8"))
    return build_report(results, f"{name}.yaml", figures=(), options=render_options(spec))


def tables_of(model: ReportModel) -> list[Table]:
    return [*model.main, *(t for s in model.sections for v in s.views for t in v.tables)]


@pytest.fixture(scope="module")
def models(example) -> dict[str, ReportModel]:
    return {name: model_of(example(name), name) for name in EXAMPLES}


@pytest.mark.parametrize("name", EXAMPLES)
def test_notes_hold_no_internals(models, name):
    """No table note nor analysis note names a spec key or an R package ("`tests.mauchly_p`: r", "afex's ges")."""
    model = models[name]
    notes = [n for t in tables_of(model) for n in t.notes]
    notes += [n for s in model.sections for v in s.views for n in v.notes]
    bad = [n for n in notes if INTERNALS.search(n)]
    assert not bad, bad


def corpus_level(model_results, table: Table) -> bool:
    """Whether a main table has a column whose metric is corpus-level (an aggregate other than the mean)."""
    labels = {m.label: m for m in model_results.metrics.values()}
    heads = [c.header for c in table.columns[1:]]
    return any(m.aggregate != "mean" for lab, m in labels.items() if any(lab in repr(h) for h in heads))


@pytest.mark.parametrize("name", EXAMPLES)
def test_main_caption_names_corpus_level_only_where_a_metric_is(example, models, name):
    results = from_json((example(name) / "results.json").read_text(encoding="utf-8"))
    for table in models[name].main:
        assert ("corpus-level" in table.caption) == corpus_level(results, table), (table.caption, table.name)


def marks_of(table: Table) -> set[str]:
    return {ch for row in table.rows for c in row if isinstance(c, Marked) for ch in c.marks}


@pytest.mark.parametrize("name", EXAMPLES)
def test_marker_legend_lists_only_markers_in_cells(models, name):
    """Every marker the legend explains is in some cell, and every marker in a cell is explained."""
    for table in models[name].main:
        used, legend = marks_of(table), " ".join(table.notes)
        for mark in (DAGGER, DDAGGER, "?"):
            assert (f"{mark}:" in legend) == (mark in used), (name, table.name, mark, legend)
        letters_said = "Superscript letters" in legend
        assert letters_said == bool(used - {DAGGER, DDAGGER, "?"}), (name, table.name, legend)
