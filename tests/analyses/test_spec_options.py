"""Spec options wired end to end: spec options -> analyses -> results.json -> report.

The statistics are verified in tests/stats/ against R, scmamp, statsmodels, coin and baycomp; these tests
run the same reference data through the CLI and check that the spec's choices reach the numbers, with
the reference values (and their sources) repeated here.
"""

from __future__ import annotations

import importlib.util
import json
import math

import numpy as np
import pytest

from conftest import TESTS, build_files
from sigreport.results.io import from_json
from sigreport.stats import bayes, correction, posthoc
from sigreport.stats.omnibus import friedman

# tests/stats/test_omnibus.py SPHERICAL (n = 12 items x k = 4 systems), with its R 4.2.2 / car 3.1-1 values
SPHERICAL = np.array([
    [0.52, 0.561, 0.569, 0.622], [0.481, 0.552, 0.618, 0.56], [0.426, 0.466, 0.436, 0.495],
    [0.405, 0.426, 0.406, 0.445], [0.508, 0.487, 0.535, 0.558], [0.553, 0.597, 0.646, 0.661],
    [0.612, 0.616, 0.64, 0.713], [0.566, 0.61, 0.59, 0.617], [0.547, 0.52, 0.55, 0.559],
    [0.602, 0.653, 0.695, 0.685], [0.587, 0.575, 0.653, 0.655], [0.463, 0.528, 0.56, 0.483],
])
# tests/stats/test_method_variants.py A, B: differences with three zeros and heavy ties
A = [0.61, 0.55, 0.70, 0.42, 0.58, 0.66, 0.49, 0.73, 0.52, 0.60, 0.45, 0.68, 0.57, 0.63, 0.50, 0.71]
B = [0.58, 0.55, 0.64, 0.45, 0.52, 0.66, 0.43, 0.70, 0.49, 0.54, 0.45, 0.62, 0.60, 0.57, 0.47, 0.65]


def scores_csv(matrix, systems, corpus="c", metric="m") -> str:
    lines = ["system,corpus,item,metric,value"]
    for i, row in enumerate(np.asarray(matrix)):
        for s, v in zip(systems, row):
            lines.append(f"{s},{corpus},i{i:03d},{metric},{float(v)!r}")
    return "\n".join(lines) + "\n"


def kind(doc: dict, k: str) -> list[dict]:
    return [a for a in doc["analyses"] if a["kind"] == k]


# -------------------------------------------------------------------------------------------- RM-ANOVA

@pytest.mark.parametrize("mauchly_p", [None, "first_order"])
def test_rm_anova_reports_r_mauchly_p_table_and_uncapped_hf(cli, workdir, mauchly_p):
    opt = f"\n          mauchly_p: {mauchly_p}" if mauchly_p else ""
    doc = build_files(cli, workdir, f"""
        title: t
        data: {{scores: s.csv}}
        metrics: {{m: {{higher_is_better: true}}}}
        tests:
          omnibus: rm_anova{opt}
        """, {"s.csv": scores_csv(SPHERICAL, "ABCD")}, "json,html")
    (om,) = kind(doc, "omnibus")
    # R 4.2.2, car 3.1-1 (tests/stats/test_omnibus.py R_RM["spherical"]):
    assert om["sphericity"]["pvalue"] == pytest.approx(0.678769455512313, rel=1e-6)  # first order, SPSS
    assert om["mauchly_pvalue_second_order"] == pytest.approx(0.680162823674298, rel=1e-6)  # mauchly.test
    assert om["epsilon_hf_uncapped"] == pytest.approx(1.07929775450975, rel=1e-6)  # car "HF eps"
    assert om["sphericity"]["epsilon_hf"] == 1.0
    assert om["mauchly_p"] == (mauchly_p or "r")  # the default is R's
    table = {row["source"]: row for row in om["table"]}
    assert table["systems"]["ss"] == pytest.approx(0.0300465000000002, rel=1e-9)  # car "Sum Sq"
    assert table["error"]["ss"] == pytest.approx(0.024223, rel=1e-9)  # car "Error SS"
    assert table["error"]["ms"] == pytest.approx(0.000734030303030303, rel=1e-9)  # afex MSE
    assert (table["systems"]["df"], table["items"]["df"], table["error"]["df"]) == (3, 11, 33)
    g = om["generalized_eta_squared"]["value"]
    assert g == pytest.approx(table["systems"]["ss"] / (table["systems"]["ss"] + table["items"]["ss"]
                                                         + table["error"]["ss"]), rel=1e-12)
    html = (workdir.path / "out" / "index.html").read_text()
    used = "p (R)" if mauchly_p is None else "p (first order)"
    assert f"The sphericity correction was chosen by {used}." in html and "drove sphericity" not in html
    assert "repeated-measures ANOVA table" in html and "generalized eta squared" in html


def test_mauchly_p_choice_changes_the_decision(cli, workdir):
    """Between the two p-values, alpha decides differently: the spec's choice is the one applied."""
    base = """
        title: t
        alpha: {alpha}
        data: {{scores: s.csv}}
        metrics: {{m: {{higher_is_better: true}}}}
        tests:
          omnibus: rm_anova
          mauchly_p: {which}
        """
    # the nonspherical data of tests/stats/test_omnibus.py: first-order p 1.41394566396145e-05, R's
    # 1.61754664526447e-05 (car 3.1-1); an alpha between the two separates them
    nonspherical = np.array([
        [0.477, 0.456, 0.475, 0.466], [0.444, 0.461, 0.457, 0.489], [0.681, 0.673, 0.701, 0.621],
        [0.699, 0.718, 0.721, 0.716], [0.526, 0.547, 0.54, 0.687], [0.387, 0.388, 0.405, 0.504],
        [0.526, 0.514, 0.535, 0.664], [0.49, 0.514, 0.502, 0.59], [0.42, 0.441, 0.482, 0.563],
        [0.648, 0.664, 0.691, 0.684], [0.595, 0.597, 0.642, 0.576], [0.367, 0.361, 0.448, 0.379]])
    applied = {}
    for which in ("r", "first_order"):
        doc = build_files(cli, workdir, base.format(alpha=1.5e-05, which=which),
                          {"s.csv": scores_csv(nonspherical, "ABCD")})
        (om,) = kind(doc, "omnibus")
        applied[which] = om["correction_applied"]
    assert applied == {"r": "none", "first_order": "greenhouse_geisser"}


# -------------------------------------------------------------------------------------------- pairwise

def test_wilcoxon_mode_and_continuity_options_reach_the_p_values(cli, workdir):
    data = {"s.csv": scores_csv(np.column_stack([A, B]), "AB")}
    spec = """
        title: t
        data: {{scores: s.csv}}
        metrics: {{m: {{higher_is_better: true}}}}
        tests:
          pairwise: wilcoxon
          zero_method: {zm}
          wilcoxon: {mode}
          continuity_correction: {cc}
        """
    # coin 1.4.2: pvalue(wilcoxsign_test(x ~ y, zero.method = "Pratt", distribution = "exact")) = 0.007080078125
    doc = build_files(cli, workdir, spec.format(zm="pratt", mode="exact", cc="true"), data, "json,html")
    (p,) = kind(doc, "pairwise")[0]["pairs"]
    assert p["exact"] is True and p["pvalue"] == pytest.approx(0.007080078125, rel=1e-12)
    assert "exact (conditional, with ties and zeros) distribution" in (workdir.path / "out" / "index.html").read_text()
    # R 4.2.2: wilcox.test(A, B, paired = TRUE, exact = FALSE, correct = FALSE, digits.rank = 7)$p.value
    doc = build_files(cli, workdir, spec.format(zm="wilcox", mode="normal", cc="false"), data, "json,html")
    (p,) = kind(doc, "pairwise")[0]["pairs"]
    assert p["exact"] is False and p["continuity_correction"] is False
    assert p["pvalue"] == pytest.approx(0.00562973187424504, rel=1e-10)
    assert "the normal approximation is without continuity correction." in (workdir.path / "out" / "index.html").read_text()
    # ... correct = TRUE: 0.00628277487585968
    doc = build_files(cli, workdir, spec.format(zm="wilcox", mode="normal", cc="true"), data)
    assert kind(doc, "pairwise")[0]["pairs"][0]["pvalue"] == pytest.approx(0.00628277487585968, rel=1e-10)


def test_paired_t_rows_carry_differences_and_small_sample_effect_sizes(cli, workdir):
    doc = build_files(cli, workdir, """
        title: t
        data: {scores: s.csv}
        metrics: {m: {higher_is_better: true}}
        tests: {omnibus: none}
        """, {"s.csv": scores_csv(np.column_stack([A, B]), "AB")}, "json,html,latex")
    (p,) = kind(doc, "pairwise")[0]["pairs"]
    d = np.array(A) - np.array(B)
    assert p["differences"]["sd"] == pytest.approx(d.std(ddof=1), rel=1e-12)
    assert p["differences"]["se"] == pytest.approx(d.std(ddof=1) / 4, rel=1e-12)
    assert p["differences"]["shapiro_pvalue"] == pytest.approx(p["extra_shapiro"] if "extra_shapiro" in p
                                                               else p["shapiro_pvalue"], rel=1e-12)
    e = p["effect_sizes"]
    assert e["d_z"]["value"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
    # Hedges' (1981) exact J(df) = Gamma(df/2) / (sqrt(df/2) Gamma((df-1)/2)) at df = n - 1 = 15
    assert e["g_z"]["value"] / e["d_z"]["value"] == pytest.approx(
        math.gamma(7.5) / (math.sqrt(7.5) * math.gamma(7)), rel=1e-12)
    assert e["g_z"]["ci_low"] < e["g_z"]["value"] < e["g_z"]["ci_high"]
    tex = (workdir.path / "out" / "tables" / "m--c--pairwise-differences.tex").read_text()
    assert r"$g_z$" in tex and r"$d_{av}$" in tex


def test_bootstrap_t_runs_and_is_refused_for_corpus_level_metrics(cli, workdir):
    doc = build_files(cli, workdir, """
        title: t
        data: {scores: s.csv}
        metrics: {m: {higher_is_better: true}}
        tests: {pairwise: bootstrap_t, resamples: 999, omnibus: none}
        """, {"s.csv": scores_csv(np.column_stack([A, B]), "AB")})
    (p,) = kind(doc, "pairwise")[0]["pairs"]
    assert kind(doc, "pairwise")[0]["method"] == "bootstrap_t" and p["ci_method"] == "studentized"
    assert 0 < p["pvalue"] < 0.05
    workdir.write("bad.yaml", """
        title: t
        data: {scores: s.csv}
        metrics:
          m: {higher_is_better: true, aggregate: ratio, statistics: [x, y]}
        tests:
          pairwise: bootstrap_t
        """)
    r = cli("validate", workdir.path / "bad.yaml")
    assert r.code == 2 and "tests.pairwise" in r.err and "line 6" in r.err and "corpus-level" in r.err


# -------------------------------------------------------------------------------------------- post-hoc

def _reference_module(name: str):
    """A module of tests/stats/ by path (its reference data, with their sources, live there)."""
    spec = importlib.util.spec_from_file_location(f"_ref_{name}", TESTS / "stats" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# García & Herrera 2008 Table 2 (30 data sets x 5 algorithms) and R's Holm-adjusted scmamp friedmanPost p-values
_GH = _reference_module("test_posthoc_all_pairs")
GH2008, HOLM = _GH.GH2008, _GH.HOLM


@pytest.mark.parametrize("method", ["holm", "shaffer", "bergmann_hommel"])
def test_all_pairs_posthoc_after_friedman(cli, workdir, method):
    doc = build_files(cli, workdir, f"""
        title: t
        data: {{scores: s.csv}}
        metrics: {{m: {{higher_is_better: true}}}}
        tests: {{omnibus: friedman, posthoc: {method}}}
        """, {"s.csv": scores_csv(GH2008, ["c45", "knn", "nb", "kernel", "cn2"])}, "json,html")
    (ph,) = kind(doc, "posthoc")
    assert ph["method"] == method and ph["control"] is None and ph["critical_difference"] is None
    got = [p["pvalue_adjusted"] for p in ph["pairs"]]
    if method == "holm":
        np.testing.assert_allclose(got, HOLM, rtol=2e-6)  # R 4.2.2 p.adjust(scmamp friedmanPost, "holm")
    else:
        ranks = np.array(friedman(GH2008).average_ranks)
        want = [p.pvalue_adjusted for p in posthoc.all_pairs(ranks, 30, method).pairs]
        assert got == pytest.approx(want, rel=1e-12)
    assert "adjusted p is at most" in (workdir.path / "out" / "index.html").read_text()


def test_bergmann_hommel_above_ten_systems_falls_back_to_shaffer(cli, workdir):
    rng = np.random.default_rng(12)
    x = rng.normal(size=(20, 11)).round(4) + np.arange(11) * 0.2
    doc = build_files(cli, workdir, """
        title: t
        data: {scores: s.csv}
        metrics: {m: {higher_is_better: true}}
        tests: {omnibus: friedman, posthoc: bergmann_hommel, pairwise: wilcoxon}
        """, {"s.csv": scores_csv(x, [f"s{i:02d}" for i in range(11)])})
    (ph,) = kind(doc, "posthoc")
    assert ph["method"] == "shaffer"
    assert any("limited to 10 systems (here 11); Shaffer" in w for w in ph["warnings"])


# -------------------------------------------------------------------------------------------- families

def _two_corpora(cli, workdir, family: str, correction_name: str = "holm") -> dict:
    rng = np.random.default_rng(5)
    rows = []
    for corpus in ("c1", "c2"):
        x = rng.normal(size=(15, 3)) * 0.1 + np.array([0.5, 0.55, 0.6])
        rows.append(scores_csv(x.round(4), "ABC", corpus=corpus, metric="m").splitlines()[1:])
        x2 = rng.normal(size=(15, 3)) * 0.1 + np.array([0.3, 0.3, 0.35])
        rows.append(scores_csv(x2.round(4), "ABC", corpus=corpus, metric="n").splitlines()[1:])
    csv = "system,corpus,item,metric,value\n" + "\n".join(line for part in rows for line in part) + "\n"
    return build_files(cli, workdir, f"""
        title: t
        data: {{scores: s.csv}}
        metrics: {{m: {{higher_is_better: true}}, n: {{higher_is_better: true}}}}
        tests: {{omnibus: none, family: {family}, correction: {correction_name}}}
        outputs: {{figures: []}}
        """, {"s.csv": csv}, "json,html")  # the html is read for its text only: no figures drawn


@pytest.mark.parametrize("family,key", [("metric", lambda a: a["metric"]), ("corpus", lambda a: a["corpus"]),
                                        ("all", lambda a: 0)])
@pytest.mark.parametrize("corr", ["holm", "hommel"])
def test_declared_families_adjust_over_every_test_of_the_family(cli, workdir, family, key, corr):
    base = {a["id"]: a for a in kind(_two_corpora(cli, workdir, "metric_corpus", corr), "pairwise")}
    doc = _two_corpora(cli, workdir, family, corr)
    groups: dict = {}
    for a in kind(doc, "pairwise"):
        assert a["family"] == family
        groups.setdefault(key(a), []).append(a)
        # the raw p-values do not depend on the family
        assert [p["pvalue"] for p in a["pairs"]] == [p["pvalue"] for p in base[a["id"]]["pairs"]]
    for members in groups.values():
        raw = [p["pvalue"] for a in members for p in a["pairs"]]
        want = correction.adjust(np.array(raw), corr)
        got = [p["pvalue_adjusted"] for a in members for p in a["pairs"]]
        assert got == pytest.approx(list(want), rel=1e-12)
        assert all(a["family_size"] == len(raw) for a in members)
        assert all(p["significant"] == (p["pvalue_adjusted"] <= 0.05) for a in members for p in a["pairs"])
    expect = {"metric": 6, "corpus": 6, "all": 12}[family]
    assert kind(doc, "pairwise")[0]["family_size"] == expect
    assert "every pairwise test in the report" in (workdir.path / "out" / "index.html").read_text() or family != "all"


def test_family_all_with_a_single_test_warns(cli, workdir):
    doc = build_files(cli, workdir, """
        title: t
        data: {scores: s.csv}
        metrics: {m: {higher_is_better: true}}
        tests: {family: all}
        """, {"s.csv": scores_csv(np.column_stack([A, B]), "AB")})
    (pw,) = kind(doc, "pairwise")
    assert pw["family_size"] == 1
    assert any("single test: nothing to correct" in w for w in pw["warnings"])


# -------------------------------------------------------------------------------------------- Bayesian

def test_bayesian_signed_rank_record_is_seeded_and_oriented(cli, workdir):
    spec = """
        title: t
        seed: 7
        data: {{scores: s.csv}}
        metrics: {{m: {{higher_is_better: {hib}}}}}
        tests:
          omnibus: none
          bayesian: {{rope: {{m: 0.01}}, samples: 20000}}
        """
    data = {"s.csv": scores_csv(np.column_stack([A, B]), "AB")}
    doc = build_files(cli, workdir, spec.format(hib="true"), data, "json,html")
    (b,) = kind(doc, "bayesian")
    assert (b["method"], b["rope"], b["decision_level"], b["n_samples"], b["prior_strength"]) == \
        ("signed_rank", 0.01, 0.95, 20000, 0.5)
    (p,) = b["pairs"]
    direct = bayes.bayesian_signed_rank(np.array(A), np.array(B), 0.01, b["seed"], 20000)
    assert (p["p_a_better"], p["p_equivalent"], p["p_b_better"], p["decision"]) == \
        (direct.p_a_better, direct.p_equivalent, direct.p_b_better, direct.decision)
    assert p["p_a_better"] + p["p_equivalent"] + p["p_b_better"] == pytest.approx(1)
    assert p["p_a_better"] > 0.9  # A is higher on 11 of 16 items by 0.03 to 0.06
    pw = kind(doc, "pairwise")[0]["pairs"][0]
    assert (p["frequentist_method"], p["frequentist_pvalue_adjusted"], p["frequentist_significant"]) == \
        ("paired_t", pw["pvalue_adjusted"], pw["significant"])
    html = (workdir.path / "out" / "index.html").read_text()
    assert "P(equivalent)" in html and "Bayesian comparison" in html
    first = (workdir.path / "out" / "results.json").read_bytes()
    build_files(cli, workdir, spec.format(hib="true"), data)
    assert (workdir.path / "out" / "results.json").read_bytes() == first  # same seed, same bytes
    # lower is better: the same scores now favour B, with the probabilities mirrored
    doc = build_files(cli, workdir, spec.format(hib="false"), data)
    (q,) = kind(doc, "bayesian")[0]["pairs"]
    flipped = bayes.bayesian_signed_rank(-np.array(A), -np.array(B), 0.01, b["seed"], 20000)
    assert (q["p_a_better"], q["p_b_better"]) == (flipped.p_a_better, flipped.p_b_better)
    assert q["p_b_better"] > 0.9 and q["estimate"] == pytest.approx(p["estimate"])


def test_bayesian_correlated_t_for_cross_validation(cli, workdir):
    rng = np.random.default_rng(3)
    lines = ["system,corpus,repeat,fold,metric,value"]
    for r in range(5):
        for f in range(2):
            a = 0.8 + rng.normal() * 0.01
            lines += [f"A,c,{r},{f},acc,{a:.4f}", f"B,c,{r},{f},acc,{a - 0.02 + rng.normal() * 0.005:.4f}"]
    doc = build_files(cli, workdir, """
        title: t
        data: {scores: s.csv}
        metrics: {acc: {higher_is_better: true}}
        tests:
          design: 5x2cv
          bayesian: {rope: {acc: 0.005}}
        """, {"s.csv": "\n".join(lines) + "\n"})
    (b,) = kind(doc, "bayesian")
    assert b["method"] == "correlated_t" and b["rho"] == 0.5 and b["n_samples"] is None
    assert b["pairs"][0]["decision"] == "a_better"


def test_bayesian_rope_on_an_untested_metric_is_a_spec_error_with_line(cli, workdir):
    workdir.write("bad.yaml", """
        title: t
        data: {scores: s.csv}
        metrics: {m: {higher_is_better: true}}
        tests:
          bayesian:
            rope:
              bleu: 0.5
        """)
    r = cli("validate", workdir.path / "bad.yaml")
    assert r.code == 2
    assert "line 7" in r.err and "tests.bayesian.rope.bleu" in r.err and "not a tested metric" in r.err


# -------------------------------------------------------------------------------------------- labels

def test_mcnemar_without_correction_equals_cochran_q_and_mcc_per_system(cli, workdir):
    # seed 003 (digest example 3): n00 = 101, n01 = 121, n10 = 59, n11 = 33
    rows, i = ["system,corpus,item,gold,pred"], 0
    for a_right, b_right, n in ((False, False, 101), (False, True, 121), (True, False, 59), (True, True, 33)):
        for _ in range(n):
            i += 1
            gold = "yes" if i % 2 else "no"
            other = "no" if gold == "yes" else "yes"
            rows += [f"a,c,i{i:03d},{gold},{gold if a_right else other}",
                     f"b,c,i{i:03d},{gold},{gold if b_right else other}"]
    doc = build_files(cli, workdir, """
        title: t
        data: {predictions: p.csv}
        classification: {resamples: 199, mcnemar: chi2, mcnemar_correction: false}
        """, {"p.csv": "\n".join(rows) + "\n"}, "json,html")
    (p,) = kind(doc, "mcnemar")[0]["pairs"]
    # (121 - 59)^2 / (121 + 59) = 21.3555...; R 4.x: mcnemar.test(matrix(c(101, 59, 121, 33), 2), correct = FALSE)
    assert p["statistic"] == pytest.approx(62**2 / 180, rel=1e-12) and p["continuity_correction"] is False
    assert p["statistic_uncorrected"] == p["statistic"] and p["cochran_q"] == pytest.approx(p["statistic"], rel=1e-12)
    html = (workdir.path / "out" / "index.html").read_text()
    assert "Cochran&#39;s Q = 21.3556 equals McNemar&#39;s chi-square without continuity correction" in html
    (c,) = kind(doc, "classification")
    from sklearn.metrics import matthews_corrcoef as sk_mcc  # scikit-learn 1.9.1 (test extra)
    golds = [line.split(",")[3] for line in rows[1::2]]
    for s, col in (("a", 4), ("b", 4)):
        preds = [line.split(",")[col] for line in rows[1:] if line.startswith(s + ",")]
        got = next(x for x in c["systems"] if x["system"] == s)["metrics"]["mcc"]
        assert got["value"] == pytest.approx(sk_mcc(golds, preds), abs=1e-12)
        assert got["ci_low"] <= got["value"] <= got["ci_high"]
    assert "MCC" in html


def test_kappa_z_test_under_the_null(cli, workdir):
    # tests/stats/test_method_variants.py TABLE; statsmodels 0.15.0 cohens_kappa(TABLE):
    # std_kappa0 0.08462056469572957, z_value 7.997159323674258, pvalue_two_sided 1.2732244461175443e-15
    table = [[22, 3, 1], [4, 15, 2], [2, 3, 18]]
    labels = ["x", "y", "z"]
    rows, i = ["item,annotator,label"], 0
    for r, row in enumerate(table):
        for c, n in enumerate(row):
            for _ in range(n):
                i += 1
                rows += [f"i{i:03d},ann1,{labels[r]}", f"i{i:03d},ann2,{labels[c]}"]
    doc = build_files(cli, workdir, """
        title: t
        data: {annotations: a.csv}
        agreement: {measures: [cohen_kappa], resamples: 99}
        """, {"a.csv": "\n".join(rows) + "\n"}, "json,html")
    (a,) = kind(doc, "agreement")
    assert a["value"] == pytest.approx(0.6767241379310345, rel=1e-12)
    assert a["se_null"] == pytest.approx(0.08462056469572957, rel=1e-10)
    assert a["z_null"] == pytest.approx(7.997159323674258, rel=1e-10)
    assert a["pvalue_null"] == pytest.approx(1.2732244461175443e-15, rel=1e-6)
    assert "SE under the null" in (workdir.path / "out" / "index.html").read_text()


# -------------------------------------------------------------------------------------------- contract

def test_new_fields_read_back_from_results_json(cli, workdir):
    build_files(cli, workdir, """
        title: t
        data: {scores: s.csv}
        metrics: {m: {higher_is_better: true}}
        tests: {bayesian: {rope: {m: 0.01}, samples: 5000}}
        """, {"s.csv": scores_csv(SPHERICAL, "ABCD")})
    res = from_json((workdir.path / "out" / "results.json").read_text())
    om = next(r for r in res.records if r.kind == "omnibus")
    assert om.mauchly_p == "r" and len(om.table) == 4
    b = next(r for r in res.records if r.kind == "bayesian")
    assert len(b.pairs) == 6
    doc = json.loads((workdir.path / "out" / "results.json").read_text())
    assert doc["tests"]["mauchly_p"] == "r" and doc["tests"]["family"] == "metric_corpus"


def test_family_all_spans_mcnemar_and_classification_metrics(cli, workdir):
    rows, i = ["system,corpus,item,gold,pred"], 0
    for corpus in ("c1", "c2"):
        for a_right, b_right, n in ((False, False, 10), (False, True, 14), (True, False, 5), (True, True, 20)):
            for _ in range(n):
                i += 1
                rows += [f"a,{corpus},i{i:03d},x,{'x' if a_right else 'y'}",
                         f"b,{corpus},i{i:03d},x,{'x' if b_right else 'y'}"]
    doc = build_files(cli, workdir, """
        title: t
        data: {predictions: p.csv}
        classification: {resamples: 99, labels: [x, y]}
        tests: {family: all, correction: bonferroni}
        """, {"p.csv": "\n".join(rows) + "\n"})
    members = kind(doc, "mcnemar") + [a for a in kind(doc, "pairwise") if a["metric"] == "accuracy"]
    assert len(members) == 4 and all(a["family_size"] == 4 and a["family"] == "all" for a in members)
    for a in members:
        (p,) = a["pairs"]
        assert p["pvalue_adjusted"] == pytest.approx(min(1.0, 4 * p["pvalue"]), rel=1e-12)  # Bonferroni over 4
