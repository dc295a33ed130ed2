"""The significance battery through the pipeline: spec -> results.json -> report, with published values."""

from __future__ import annotations

import csv
import shutil

import numpy as np
import pytest
import yaml

from conftest import CONFIGS, build_results
from sigreport.stats import cv as cvstats


def build(cli, tmp_path, spec: dict, name: str = "out", formats: str = "json,html") -> dict:
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return build_results(cli, tmp_path / "spec.yaml", tmp_path / name, formats=formats)


def analysis(doc: dict, kind: str, method: str | None = None) -> dict:
    return next(a for a in doc["analyses"] if a["kind"] == kind and (method is None or a.get("method") == method))


def demsar_spec(tmp_path, **tests) -> dict:
    spec = yaml.safe_load((CONFIGS / "demsar.yaml").read_text())
    spec["data"]["scores"] = str(tmp_path / "auc.csv")
    spec["tests"].update(tests)
    return spec


@pytest.fixture
def auc_csv(tmp_path):
    shutil.copy(CONFIGS / "data" / "demsar_auc.csv", tmp_path / "auc.csv")
    return tmp_path / "auc.csv"


def test_demsar_printed_values(cli, tmp_path, auc_csv):
    doc = build(cli, tmp_path, demsar_spec(tmp_path))
    pw = analysis(doc, "pairwise")
    assert pw["level"] == "corpora" and pw["corpus"] is None
    pair = pw["pairs"][0]
    # Demsar 2006 / seed 003 (digest example 4): C4.5m - C4.5 gives R+ = 93, R- = 12, T = 12, N = 14.
    # Here a = C4.5, b = C4.5m, so the sums are mirrored.
    assert (pair["a"], pair["b"]) == ("C4.5", "C4.5m")
    assert (pair["r_plus"], pair["r_minus"], pair["statistic"]) == (12, 93, 12)
    assert pair["zero_method"] == "split"
    om = analysis(doc, "omnibus")
    # Digest example 5, ranked from the printed values (Voting tie averaged): 3.143, 2.000, 2.929, 1.929;
    # chi2_F = 9.857 without tie correction (Demsar's formula), 10.952 with it (R friedman.test).
    ranks = om["average_ranks"]
    assert [round(ranks[s], 3) for s in ("C4.5", "C4.5m", "C4.5cf", "C4.5cf,m")] == [3.143, 2.0, 2.929, 1.929]
    assert om["tie_correction"] is False
    assert om["statistic"] == pytest.approx(9.857, abs=5e-4)
    assert om["statistic_tie_corrected"] == pytest.approx(10.952, abs=5e-4)
    # Nemenyi CD = q_0.05 sqrt(k(k+1)/(6N)) = 2.569 * sqrt(20/84) = 1.254 (Demsar 2006, section 3.2.2).
    ph = analysis(doc, "posthoc")
    assert ph["method"] == "nemenyi"
    assert ph["critical_difference"] == pytest.approx(1.254, abs=5e-4)
    assert ph["q_alpha"] == pytest.approx(2.569, abs=5e-4)


def test_demsar_published_values_with_the_voting_tie_broken(cli, tmp_path, auc_csv):
    # Digest example 5: with Voting/C4.5cf = 0.9751 the ranks are Demsar's 3.143, 2.000, 2.893, 1.964,
    # chi2_F = 9.28 and the Iman-Davenport F_F = 3.69 (uncorrected chi-square feeding F_F, as in the paper).
    auc_csv.write_text(auc_csv.read_text().replace("C4.5cf,Voting,auc,0.975", "C4.5cf,Voting,auc,0.9751"))
    doc = build(cli, tmp_path, demsar_spec(tmp_path, comparisons="vs_baseline", posthoc="bonferroni_dunn"))
    om = analysis(doc, "omnibus")
    ranks = om["average_ranks"]
    assert [round(ranks[s], 3) for s in ("C4.5", "C4.5m", "C4.5cf", "C4.5cf,m")] == [3.143, 2.0, 2.893, 1.964]
    assert om["statistic"] == pytest.approx(9.28, abs=5e-3)
    assert om["iman_davenport"]["statistic"] == pytest.approx(3.69, abs=5e-3)
    assert (om["iman_davenport"]["df1"], om["iman_davenport"]["df2"]) == (3, 39)
    ph = analysis(doc, "posthoc")
    # Bonferroni-Dunn CD for k = 4, N = 14 at alpha 0.05: q = 2.394 (Demsar Table 5b) -> CD = 1.168.
    assert ph["method"] == "bonferroni_dunn" and ph["control"] == "C4.5"
    assert ph["critical_difference"] == pytest.approx(1.168, abs=5e-4)
    assert {(p["a"], p["b"]) for p in ph["pairs"]} == {("C4.5m", "C4.5"), ("C4.5cf", "C4.5"), ("C4.5cf,m", "C4.5")}
    assert {(p["a"], p["b"]) for p in analysis(doc, "pairwise")["pairs"]} == {
        ("C4.5m", "C4.5"), ("C4.5cf", "C4.5"), ("C4.5cf,m", "C4.5")}


def test_report_names_the_chi_square_variant(cli, tmp_path, auc_csv):
    build(cli, tmp_path, demsar_spec(tmp_path))
    html = (tmp_path / "out" / "index.html").read_text()
    assert "uncorrected (Demšar&#39;s formula)" in html or "uncorrected (Demšar's formula)" in html
    assert "feeds the Iman-Davenport F" in html


def _scores_csv(path, columns: dict[str, np.ndarray], metric="m", corpus="c"):
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["system", "corpus", "item", "metric", "value"])
        for system, values in columns.items():
            for i, v in enumerate(values):
                w.writerow([system, corpus, f"i{i}", metric, repr(float(v))])


def _spec(path, **tests):
    return {"title": "t", "seed": 7, "data": {"scores": str(path)},
            "metrics": {"m": {"higher_is_better": True, "decimals": 3}}, "tests": tests}


def test_auto_chooses_wilcoxon_for_small_skewed_data_and_says_why(cli, tmp_path):
    rng = np.random.default_rng(3)
    base = rng.uniform(0.2, 0.6, 12)
    skew = np.array([0.0] * 9 + [0.4, 0.5, 0.6])
    _scores_csv(tmp_path / "s.csv", {"A": base + skew, "B": base, "C": base + 0.01 * rng.standard_normal(12)})
    doc = build(cli, tmp_path, _spec(tmp_path / "s.csv", pairwise="auto", omnibus="auto"))
    pw = analysis(doc, "pairwise")
    assert pw["method"] == "wilcoxon"
    steps = pw["selection"]["steps"]
    assert any(s["check"].lower().startswith("shapiro") and s["outcome"].startswith("fail") for s in steps)
    assert analysis(doc, "omnibus")["selection"]["method"] in ("friedman", "rm_anova")
    assert "Why this test" in (tmp_path / "out" / "index.html").read_text()


def test_auto_chooses_paired_t_with_30_items(cli, tmp_path):
    rng = np.random.default_rng(4)
    base = rng.uniform(0.2, 0.6, 40)
    _scores_csv(tmp_path / "s.csv", {"A": base + 0.02 + 0.01 * rng.standard_normal(40), "B": base})
    doc = build(cli, tmp_path, _spec(tmp_path / "s.csv", pairwise="auto"))
    assert analysis(doc, "pairwise")["method"] == "paired_t"


def test_selection_fixed_keeps_the_previous_choice_and_says_so(cli, tmp_path):
    rng = np.random.default_rng(3)
    base = rng.uniform(0.2, 0.6, 12)
    skew = np.array([0.0] * 9 + [0.4, 0.5, 0.6])
    _scores_csv(tmp_path / "s.csv", {"A": base + skew, "B": base})
    spec = _spec(tmp_path / "s.csv", pairwise="auto", selection="fixed")
    first = analysis(build(cli, tmp_path, spec), "pairwise")
    assert first["method"] == "wilcoxon"
    # no previous report yet: it says so plainly instead of claiming a choice was kept
    assert any("no previous report" in w for w in first["warnings"])
    assert not any("kept from the previous report" in w for w in first["warnings"])
    # New release: 40 well-behaved items -> auto would now choose the paired t test.
    base = rng.uniform(0.2, 0.6, 40)
    _scores_csv(tmp_path / "s.csv", {"A": base + 0.02 + 0.01 * rng.standard_normal(40), "B": base})
    pw = analysis(build(cli, tmp_path, spec), "pairwise")
    assert pw["method"] == "wilcoxon"
    assert pw["selection"]["pinned"] is True and pw["selection"]["method"] == "paired_t"
    assert any("selection is fixed" in w for w in pw["warnings"])
    # With selection auto the new choice is taken, and the change is flagged.
    spec["tests"]["selection"] = "auto"
    pw = analysis(build(cli, tmp_path, spec), "pairwise")
    assert pw["method"] == "paired_t" and any("changed since the previous report" in w for w in pw["warnings"])


def test_bootstrap_through_the_pipeline_is_seeded_and_calibrated(cli, tmp_path):
    rng = np.random.default_rng(5)
    base = rng.uniform(0.2, 0.6, 50)
    _scores_csv(tmp_path / "s.csv", {"A": base + 0.03 + 0.05 * rng.standard_normal(50), "B": base, "C": base})
    spec = _spec(tmp_path / "s.csv", pairwise="bootstrap", resamples=999, omnibus="none")
    doc = build(cli, tmp_path, spec)
    pairs = {(p["a"], p["b"]): p for p in analysis(doc, "pairwise")["pairs"]}
    for p in pairs.values():
        assert p["n_resamples"] == 999 and p["pvalue"] >= 1 / 1000 and p["mc_se"] is not None
    # identical systems: p = 1 (ties counted with >=), not 1/(B+1)
    assert pairs[("B", "C")]["pvalue"] == 1.0
    again = build(cli, tmp_path, spec, "out2")
    assert (tmp_path / "out" / "results.json").read_bytes() == (tmp_path / "out2" / "results.json").read_bytes()
    spec["seed"] = 8
    other = build(cli, tmp_path, spec, "out3")
    assert analysis(other, "pairwise")["pairs"][0]["pvalue"] != analysis(again, "pairwise")["pairs"][0]["pvalue"] or \
        analysis(other, "pairwise")["pairs"][0]["ci_low"] != analysis(again, "pairwise")["pairs"][0]["ci_low"]


def test_corpus_level_f_beta_metric(cli, tmp_path):
    # Per-item tp/fp/fn rows; micro F1 = 2tp / (2tp + fp + fn) from the summed counts.
    rows = [("system", "corpus", "item", "metric", "value")]
    counts = {"A": [(1, 0, 0), (1, 1, 0), (0, 0, 1), (2, 0, 1)], "B": [(0, 1, 1), (1, 0, 0), (0, 1, 1), (1, 1, 2)]}
    for s, items in counts.items():
        for i, (tp, fp, fn) in enumerate(items):
            rows += [(s, "c", f"i{i}", "tp", tp), (s, "c", f"i{i}", "fp", fp), (s, "c", f"i{i}", "fn", fn)]
    with (tmp_path / "s.csv").open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    spec = {"title": "t", "data": {"scores": str(tmp_path / "s.csv")},
            "metrics": {"f1": {"higher_is_better": True, "aggregate": "f_beta", "statistics": ["tp", "fp", "fn"]}},
            "tests": {"pairwise": "permutation", "resamples": 999}}
    doc = build(cli, tmp_path, spec)
    desc = analysis(doc, "descriptives")
    # A: tp 4, fp 1, fn 2 -> 8/11; B: tp 2, fp 3, fn 4 -> 4/11.
    assert [s["mean"] for s in desc["systems"]] == pytest.approx([8 / 11, 4 / 11])
    pair = analysis(doc, "pairwise")["pairs"][0]
    assert pair["estimate"] == pytest.approx(4 / 11)
    # 2^4 = 16 <= B: exact enumeration of all swaps.
    assert pair["exact"] is True and pair["n_resamples"] == 16
    assert not any(a["kind"] == "omnibus" for a in doc["analyses"])


def test_corpus_level_metric_rejects_item_tests(cli, tmp_path):
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump({
        "title": "t", "data": {"scores": "s.csv"},
        "metrics": {"f1": {"higher_is_better": True, "aggregate": "f_beta", "statistics": ["tp", "fp", "fn"]}},
        "tests": {"pairwise": "paired_t"}}))
    r = cli("validate", tmp_path / "spec.yaml")
    assert r.code == 2 and "tests.pairwise" in r.err and "only resampling tests apply, not paired_t" in r.err


def test_cv_pipeline_matches_the_statistics(cli, tmp_path):
    doc = build(cli, tmp_path, {**yaml.safe_load((CONFIGS / "cv_5x2.yaml").read_text()),
                                "data": {"scores": str(CONFIGS / "data" / "cv_5x2.csv")}})
    t = analysis(doc, "cv", "5x2cv_t")
    f = analysis(doc, "cv", "5x2cv_f")
    grid = {}
    with (CONFIGS / "data" / "cv_5x2.csv").open() as fh:
        for row in csv.DictReader(fh):
            grid.setdefault(row["system"], np.zeros((5, 2)))[int(row["repeat"]) - 1, int(row["fold"]) - 1] = \
                float(row["value"])
    direct_t = cvstats.dietterich_5x2cv_t(grid["logreg"], grid["random-forest"])
    direct_f = cvstats.alpaydin_5x2cv_f(grid["logreg"], grid["random-forest"])
    assert t["pairs"][0]["statistic"] == pytest.approx(direct_t.statistic)
    assert t["pairs"][0]["df"] == 5
    assert f["pairs"][0]["statistic"] == pytest.approx(direct_f.statistic)
    assert (f["pairs"][0]["df1"], f["pairs"][0]["df2"]) == (10, 5)


def test_level_corpora_needs_two_corpora(cli, tmp_path):
    _scores_csv(tmp_path / "s.csv", {"A": np.arange(5.0), "B": np.arange(5.0) + 1})
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(_spec(tmp_path / "s.csv", level="corpora")))
    r = cli("validate", tmp_path / "spec.yaml")
    assert r.code == 2 and "tests.level" in r.err and "two or more corpora" in r.err


def test_user_aggregate_by_import_path(cli, tmp_path):
    # A user's corpus metric next to the spec: precision = sum(tp) / (sum(tp) + sum(fp)).
    (tmp_path / "my_metrics.py").write_text(
        "def precision(totals, n_items):\n    return totals[..., 0] / (totals[..., 0] + totals[..., 1])\n")
    rows = [("system", "corpus", "item", "metric", "value")]
    for s, items in {"A": [(1, 0), (1, 1), (2, 0)], "B": [(0, 1), (1, 0), (1, 1)]}.items():
        for i, (tp, fp) in enumerate(items):
            rows += [(s, "c", f"i{i}", "tp", tp), (s, "c", f"i{i}", "fp", fp)]
    with (tmp_path / "s.csv").open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    spec = {"title": "t", "data": {"scores": "s.csv"},
            "metrics": {"p": {"higher_is_better": True, "aggregate": "my_metrics:precision",
                              "statistics": ["tp", "fp"]}},
            "tests": {"pairwise": "bootstrap", "resamples": 199}}
    doc = build(cli, tmp_path, spec)
    # A: 4 / 5; B: 2 / 4.
    assert [s["mean"] for s in analysis(doc, "descriptives")["systems"]] == pytest.approx([0.8, 0.5])
    spec["metrics"]["p"]["aggregate"] = "my_metrics:nope"
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(spec))
    r = cli("validate", tmp_path / "spec.yaml")
    assert r.code == 2 and "metrics.p.aggregate" in r.err and "cannot import aggregate 'my_metrics:nope'" in r.err
