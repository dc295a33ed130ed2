"""metrics.M.margin in a build: each pair's TOST and non-inferiority against statsmodels (live), the family
correction, the orientation against the baseline, results.json (written only when set, read back byte for
byte) and the spec's refusal of a margin it cannot test."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import assert_user_error, build_files
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import ttost_paired

from sigreport.results.io import from_json, to_json

SYSTEMS = ("base", "cand", "other")


def score_table(n: int = 40, seed: int = 3, corpora: tuple[str, ...] = ("c1",)) -> tuple[str, dict]:
    rng = np.random.default_rng(seed)
    lines = ["system,corpus,item,metric,value"]
    values: dict[tuple[str, str], np.ndarray] = {}
    for c_i, corpus in enumerate(corpora):
        base = rng.uniform(0.3, 0.7, n)
        shift = {"base": 0.0, "cand": 0.004 + 0.01 * c_i, "other": -0.03}
        for s in SYSTEMS:
            v = np.round(base + shift[s] + rng.normal(0, 0.02, n), 6)
            values[(s, corpus)] = v
            lines += [f"{s},{corpus},i{i},acc,{float(x)!r}" for i, x in enumerate(v)]
    return "\n".join(lines) + "\n", values


SPEC = """
title: margins
systems: [base, cand, other]
baseline: {baseline}
data: {{scores: scores.csv}}
metrics:
  acc: {{higher_is_better: {higher}, decimals: 3, margin: 0.01}}
tests: {{pairwise: {pairwise}, correction: holm, comparisons: {comparisons}}}
"""


def spec(baseline="base", higher="true", pairwise="paired_t", comparisons="all_pairs") -> str:
    return SPEC.format(baseline=baseline, higher=higher, pairwise=pairwise, comparisons=comparisons)


@pytest.mark.parametrize("higher", [True, False])
def test_pairs_match_statsmodels_and_holm(cli, workdir, higher):
    table, values = score_table()
    doc = build_files(cli, workdir, spec(higher=str(higher).lower()), {"scores.csv": table})
    rec = next(a for a in doc["analyses"] if a["kind"] == "pairwise")
    eqs = [p["equivalence"] for p in rec["pairs"]]
    for p, e in zip(rec["pairs"], eqs):
        x, y = values[(p["a"], "c1")], values[(p["b"], "c1")]
        sm_p, (_, sm_low, _), (_, sm_upp, _) = ttost_paired(x, y, -0.01, 0.01)
        assert e["tost_pvalue"] == pytest.approx(sm_p, rel=1e-9)
        assert (e["pvalue_lower"], e["pvalue_upper"]) == (pytest.approx(sm_low, rel=1e-9), pytest.approx(sm_upp, rel=1e-9))
        assert e["ci_level"] == pytest.approx(0.9) and e["margin"] == 0.01 and e["estimate"] == p["estimate"]
        # the non-inferiority test holds the non-baseline system against the baseline
        of, against = e["noninferiority_of"], e["noninferiority_against"]
        assert "base" not in (p["a"], p["b"]) or against == "base"
        d_of = values[(of, "c1")] - values[(against, "c1")]
        sm_ni = ttost_paired(values[(of, "c1")], values[(against, "c1")], -0.01, 0.01)
        assert e["noninferiority_pvalue"] == pytest.approx(sm_ni[1][1] if higher else sm_ni[2][1], rel=1e-9)
        bound = e["noninferiority_bound"]
        assert (bound < d_of.mean()) == higher
    # corrected over the family as the pairwise tests (Holm): statsmodels multipletests, live
    for field in ("tost_pvalue", "noninferiority_pvalue"):
        want = multipletests([e[field] for e in eqs], method="holm")[1]
        assert [e[f"{field}_adjusted"] for e in eqs] == pytest.approx(list(want), rel=1e-12)
        flag = "equivalent" if field == "tost_pvalue" else "noninferior"
        assert [e[flag] for e in eqs] == [bool(v <= 0.05) for v in want]


def test_baseline_first_in_the_table_flips_the_non_inferiority_test(cli, workdir):
    table, values = score_table()
    doc = build_files(cli, workdir, spec(), {"scores.csv": table})
    pair = next(p for a in doc["analyses"] if a["kind"] == "pairwise" for p in a["pairs"]
                if (p["a"], p["b"]) == ("base", "cand"))
    e = pair["equivalence"]
    assert (e["noninferiority_of"], e["noninferiority_against"]) == ("cand", "base")
    # TOST's one-sided p-values stay those of a - b: the lower test of base - cand is the upper one of cand - base
    sm = ttost_paired(values[("base", "c1")], values[("cand", "c1")], -0.01, 0.01)
    assert e["pvalue_lower"] == pytest.approx(sm[1][1], rel=1e-9)
    assert e["noninferiority_pvalue"] == pytest.approx(sm[2][1], rel=1e-9)  # cand - base > -D <=> base - cand < D
    assert e["ci_low"] < pair["estimate"] < e["ci_high"]


def test_results_json_reads_back_byte_for_byte(cli, workdir):
    table, _ = score_table()
    build_files(cli, workdir, spec(comparisons="vs_baseline"), {"scores.csv": table})
    text = (workdir.path / "out" / "results.json").read_text(encoding="utf-8")
    results = from_json(text)
    assert to_json(results) == text
    rows = [p for r in results.records if r.kind == "pairwise" for p in r.pairs]
    assert rows and all(p.equivalence is not None and p.equivalence.noninferiority_against == "base" for p in rows)
    assert "equivalence" not in rows[0].test.extra


def test_no_margin_no_field(cli, workdir):
    table, _ = score_table()
    doc = build_files(cli, workdir, spec().replace(", margin: 0.01", ""), {"scores.csv": table})
    pairs = [p for a in doc["analyses"] if a["kind"] == "pairwise" for p in a["pairs"]]
    assert pairs and all("equivalence" not in p for p in pairs)
    assert "replicability" not in doc["tests"]
    assert "preferences" not in doc["tests"]  # written only with data.preferences (tests/data/test_preferences.py)


def test_report_shows_the_table_and_the_methods_sentence(cli, workdir):
    table, _ = score_table()
    build_files(cli, workdir, spec(), {"scores.csv": table}, formats="json,html,latex")
    html = (workdir.path / "out" / "index.html").read_text(encoding="utf-8")
    assert "equivalence within \u00b10.01" in html and "Schuirmann 1987" in html
    # each pair's sentence says what the tests show: other (0.03 below base) is neither equivalent nor
    # non-inferior at 0.01
    assert "Neither equivalence of base and other within \u00b10.01" in html
    tex = (workdir.path / "out" / "tables" / "methods.tex").read_text(encoding="utf-8")
    assert "schuirmann1987,lakens2017,wellek2010" in tex
    assert list((workdir.path / "out" / "tables").glob("*equivalence.tex"))


@pytest.mark.parametrize("pairwise", ["wilcoxon", "bootstrap", "auto"])
def test_margin_needs_paired_t(cli, workdir, pairwise):
    table, _ = score_table()
    workdir.write("scores.csv", table)
    s = workdir.write("spec.yaml", spec(pairwise=pairwise))
    assert_user_error(cli, s, workdir.path / "out", pairwise, ["metrics.acc.margin", "t-based",
                                                              f"tests.pairwise is {pairwise}"])


@pytest.mark.parametrize("bad", ["0", "-0.1", "'0.1'"])
def test_margin_must_be_a_positive_number(cli, workdir, bad):
    table, _ = score_table()
    workdir.write("scores.csv", table)
    s = workdir.write("spec.yaml", spec().replace("margin: 0.01", f"margin: {bad}"))
    assert_user_error(cli, s, workdir.path / "out", bad, ["metrics.acc.margin"])


def test_zero_variance_differences(cli, workdir):
    """A system identical to the baseline: the differences do not vary; TOST takes its limit (equivalent,
    p 0, as statsmodels gives), said in the pair's warnings, and the build goes through."""
    table, values = score_table()
    lines = table.splitlines()
    copy = ["copy," + line[len("base,"):] for line in lines if line.startswith("base,")]
    workdir.write("scores.csv", "\n".join([line for line in lines if not line.startswith("other,")] + copy) + "\n")
    workdir.write("spec.yaml", spec().replace("[base, cand, other]", "[base, cand, copy]"))
    r = cli("build", "-q", "-o", workdir.path / "out", "--formats", "json", workdir.path / "spec.yaml")
    assert r.code == 0, r.err
    doc = workdir.results()
    pair = next(p for a in doc["analyses"] if a["kind"] == "pairwise" for p in a["pairs"]
                if {p["a"], p["b"]} == {"base", "copy"})
    e = pair["equivalence"]
    with np.errstate(divide="ignore", invalid="ignore"):
        sm_p = ttost_paired(values[("base", "c1")], values[("base", "c1")], -0.01, 0.01)[0]
    assert e["tost_pvalue"] == sm_p == 0.0 and e["noninferiority_pvalue"] == 0.0
    assert e["se"] == 0.0 and "do not vary" in e["warnings"][0]
    assert e["ci_low"] == e["ci_high"] == 0.0
