"""One figure rule (sigreport.results.figure_rules.FIGURE_RULES): the spec check and the build read the same
table, so a figure kind the check accepts is one the build can draw and the build draws no kind the check
would refuse; `outputs.figures: [cd]` with `omnibus: auto` is accepted, and warned about when the data make
`auto` choose RM-ANOVA."""

from __future__ import annotations

import numpy as np
import pytest

import sigreport
from sigreport.analyses import build_plan, node_sources
from sigreport.data import load_data
from sigreport.render.figures import KINDS
from sigreport.results.figure_rules import FIGURE_RULES, FigureSource, gives, source_of

from conftest import CONFIGS

EXAMPLES = sorted(p.stem for p in CONFIGS.glob("*.yaml"))


def test_the_table_covers_every_kind_and_says_what_each_needs():
    assert tuple(FIGURE_RULES) == tuple(KINDS)
    assert gives("cd", FigureSource("posthoc", "nemenyi", "friedman"))
    assert not gives("cd", FigureSource("posthoc", "paired_t", "friedman"))  # paired t tests have no ranks
    assert not gives("cd", FigureSource("posthoc", "nemenyi", "rm_anova"))
    assert gives("forest", FigureSource("posthoc", "paired_t", "rm_anova"))
    assert gives("pvalues", FigureSource("mcnemar", "auto")) and not gives("forest", FigureSource("mcnemar", "auto"))


@pytest.mark.parametrize("name", EXAMPLES)
def test_what_a_record_gives_its_plan_node_could_give(name):
    sf = sigreport.load_spec(CONFIGS / f"{name}.yaml")
    plan = build_plan(sf.spec, load_data(sf))
    nodes = {n.id: n for n in plan.nodes}
    results = sigreport.analyze(sf)
    checked = 0
    for r in results.records:
        got = {k for k in FIGURE_RULES if gives(k, source_of(r))}
        could = {k for k in FIGURE_RULES for s in node_sources(nodes[r.id]) if gives(k, s)}
        assert got <= could, (r.id, got, could)
        checked += bool(got)
    assert checked


def scores(n: int, skewed: bool) -> str:
    """Three systems on n items: normal scores (auto chooses RM-ANOVA) or a heavy outlier on the few items
    (residuals fail Shapiro-Wilk: auto chooses Friedman)."""
    rng = np.random.default_rng(8)
    rows = ["system,corpus,item,metric,value"]
    base = rng.normal(0.5, 0.1, n)
    for k, s in enumerate(("A", "B", "C")):
        v = base + 0.03 * k + rng.normal(0, 0.02, n)
        if skewed:
            v[0] += 3.0 * (k + 1)
        rows += [f"{s},c,i{i},m,{x:.6f}" for i, x in enumerate(v)]
    return "\n".join(rows) + "\n"


SPEC = ("title: t\ndata:\n  scores: s.csv\nmetrics:\n  m: {higher_is_better: true}\ntests:\n  omnibus: auto\n"
        "outputs:\n  formats: [json, html]\n  figures: [cd]\n")


@pytest.mark.parametrize("skewed, chosen", [(True, "friedman"), (False, "rm_anova")])
def test_cd_with_omnibus_auto_is_accepted_and_warned_about_when_no_diagram_can_be_drawn(cli, workdir, skewed, chosen):
    workdir.write("s.csv", scores(12 if skewed else 40, skewed))
    spec = workdir.write("spec.yaml", SPEC)
    assert cli("validate", spec).code == 0
    r = cli("build", "-o", workdir.path / "out", spec)
    assert r.code == 0, r.err
    (omnibus,) = [a for a in workdir.results()["analyses"] if a["kind"] == "omnibus"]
    assert omnibus["method"] == chosen
    html = (workdir.path / "out" / "index.html").read_text(encoding="utf-8")
    warned = ("outputs.figures lists &#39;cd&#39;, but tests.omnibus: auto chose repeated-measures ANOVA on this "
              "data, so no critical-difference diagram is drawn")
    if chosen == "friedman":
        assert 'id="fig-cd-m-c-posthoc"' in html and warned not in html
    else:
        assert "<svg" not in html and warned in html  # beside the omnibus test, and in results.json
        assert any("no critical-difference diagram" in w for w in omnibus["warnings"])
        strict = cli("build", "--strict", "-o", workdir.path / "out2", spec)  # the warning counts: --strict fails
        assert strict.code == 2 and "no critical-difference diagram is drawn" in strict.err
