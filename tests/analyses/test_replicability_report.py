"""tests.replicability in a build: each row's one-sided p-values from the corpora's paired t tests and
its partial-conjunction values and k, by hand from those tests (scipy's t distribution), and the spec's
refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import assert_user_error, build_files
from scipy import stats

from sigreport.results.io import from_json, to_json

CORPORA = ("c1", "c2", "c3", "c4")


def table(n: int = 30, seed: int = 5) -> str:
    rng = np.random.default_rng(seed)
    lines = ["system,corpus,item,metric,value"]
    for c_i, corpus in enumerate(CORPORA):
        base = rng.uniform(0.3, 0.7, n)
        shift = {"A": 0.0, "B": 0.02 * c_i - 0.01, "C": 0.05}
        for s, d in shift.items():
            v = base + d + rng.normal(0, 0.03, n)
            lines += [f"{s},{corpus},i{i},acc,{float(x)!r}" for i, x in enumerate(v)]
    return "\n".join(lines) + "\n"


SPEC = """
title: replicability
systems: [A, B, C]
data: {{scores: scores.csv}}
metrics:
  acc: {{higher_is_better: {higher}, decimals: 3}}
tests: {{pairwise: paired_t, replicability: {method}{extra}}}
"""


def bonferroni_by_hand(p: list[float]) -> list[float]:
    asc, n = sorted(p), len(p)
    out, top = [], 0.0
    for u in range(1, n + 1):
        top = max(top, min(1.0, (n - u + 1) * asc[u - 1]))
        out.append(top)
    return out


def fisher_by_hand(p: list[float]) -> list[float]:
    asc, n = sorted(p), len(p)
    out, top = [], 0.0
    for u in range(1, n + 1):
        x, k = -2 * sum(math.log(v) for v in asc[u - 1:]), n - u + 1  # chi2 with 2k df, closed form
        top = max(top, math.exp(-x / 2) * sum((x / 2) ** j / math.factorial(j) for j in range(k)))
        out.append(top)
    return out


@pytest.mark.parametrize("method,higher", [("bonferroni", True), ("fisher", True), ("bonferroni", False)])
def test_rows_by_hand(cli, workdir, method, higher):
    doc = build_files(cli, workdir, SPEC.format(higher=str(higher).lower(), method=method, extra=""),
                      {"scores.csv": table()})
    pairwise = {a["corpus"]: a for a in doc["analyses"] if a["kind"] == "pairwise"}
    rec = next(a for a in doc["analyses"] if a["kind"] == "replicability")
    assert rec["id"] == "acc/*/replicability" and rec["corpora"] == list(CORPORA) and rec["method"] == method
    assert len(rec["rows"]) == 6  # three pairs, both directions
    for row in rec["rows"]:
        want = []
        for c in CORPORA:
            p = next(q for q in pairwise[c]["pairs"] if {q["a"], q["b"]} == {row["better"], row["than"]})
            t = p["statistic"] if p["a"] == row["better"] else -p["statistic"]
            t = t if higher else -t
            want.append(stats.t.sf(t, p["df"]))  # one-sided p of "better is better", from the t statistic
        # p/2 of the two-sided p (and 1 - p/2 the other way), each direction computed directly: a small p keeps
        # its digits in both rows of the pair
        assert row["pvalues"] == pytest.approx(want, rel=1e-9)
        hand = (bonferroni_by_hand if method == "bonferroni" else fisher_by_hand)(want)
        assert row["partial_conjunction"] == pytest.approx(hand, rel=1e-8, abs=1e-300)
        assert row["k_estimate"] == sum(v <= 0.05 for v in hand)
        assert row["significant_count"] == sum(v <= 0.05 for v in want)
    # C is better than A on every corpus by a wide margin (shift 0.05, SD 0.03, n = 30)
    c_over_a = next(r for r in rec["rows"] if (r["better"], r["than"]) == (("C", "A") if higher else ("A", "C")))
    assert c_over_a["k_estimate"] == 4
    text = (workdir.path / "out" / "results.json").read_text(encoding="utf-8")
    assert to_json(from_json(text)) == text


def test_report_sentence(cli, workdir):
    build_files(cli, workdir, SPEC.format(higher="true", method="bonferroni", extra=""), {"scores.csv": table()},
                formats="json,html")
    html = (workdir.path / "out" / "index.html").read_text(encoding="utf-8")
    assert "C beats A on at least 4 of 4 corpora" in html and "Dror et al. 2017" in html


@pytest.mark.parametrize("extra,field", [(", level: corpora", "tests.replicability"),
                                         (", method: x", "tests.replicability.method")])
def test_refused(cli, workdir, extra, field):
    workdir.write("scores.csv", table())
    s = workdir.write("spec.yaml", SPEC.format(higher="true", method="bonferroni", extra=extra)
                      if "level" in extra else SPEC.format(higher="true", method="stouffer", extra=""))
    assert_user_error(cli, s, workdir.path / "out", extra, ["tests.replicability"])
