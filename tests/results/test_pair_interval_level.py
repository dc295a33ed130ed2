"""A pair's interval (``PairRow.ci``) is at the level asked for; a discrete test's achieved coverage is its own
field (``ci.coverage``), the same in a build and in its results.json read back, and the table note reads it."""

from __future__ import annotations

import pytest

import sigreport
from sigreport.render.views.scores import achieved_note
from sigreport.results.io import from_json, to_json
from sigreport.results.records import PairwiseRecord

# Ten items, B always a little higher than A: the sign test's 95% interval of the median difference is
# (d_(2), d_(9)), whose coverage is 1 - 2 P(X <= 1), X ~ Binomial(10, 1/2) = 0.978515625
# (R: 1 - 2 * pbinom(1, 10, 0.5)).
ROWS = ["system,corpus,item,metric,value"] + [
    f"{s},c,i{i},acc,{0.5 + (0.01 * i if s == 'B' else 0.0) + 0.001 * (i % 3):.4f}" for i in range(10) for s in "AB"]
COVERAGE = 0.978515625


def _family(workdir) -> tuple[PairwiseRecord, PairwiseRecord]:
    workdir.write("scores.csv", "\n".join(ROWS) + "\n")
    workdir.write("spec.yaml", "title: t\ndata: {scores: scores.csv}\nmetrics:\n  acc: {higher_is_better: true}\n"
                  "tests: {pairwise: sign, omnibus: none}\n")
    res = sigreport.analyze(workdir.path / "spec.yaml")
    again = from_json(to_json(res))
    return tuple(next(r for r in x.records if isinstance(r, PairwiseRecord) and r.kind == "pairwise")
                 for x in (res, again))  # type: ignore[return-value]


def test_the_level_is_the_one_asked_and_the_coverage_its_own_field(workdir):
    built, read = _family(workdir)
    for r in (built, read):
        (row,) = r.pairs
        assert r.method == "sign" and r.ci_level == 0.95
        assert row.ci.level == 0.95  # the level asked for, not the sign test's achieved 0.9785
        assert row.ci.coverage == pytest.approx(COVERAGE, abs=1e-12)
    assert built.pairs[0].ci == read.pairs[0].ci
    assert achieved_note(built) == achieved_note(read) == [
        "The intervals are at the nominal 95%; being order statistics of a discrete law, they reach 97.85% "
        "coverage (ci_level_achieved in results.json)."]
