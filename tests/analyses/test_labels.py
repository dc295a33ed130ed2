"""Predictions and annotations through the CLI: the source's numbers end to end, the results.json contract of
the kinds classification, mcnemar, cochran_q and agreement, and the wiring of classification metrics into the
spec's pairwise and omnibus tests."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import CONFIGS, build_files, needs, pdflatex_compile

# -------------------------------------------------------------------------------------------- helpers


def predictions_csv(rows: list[tuple[str, str, str, str, str]]) -> str:
    return "system,corpus,item,gold,pred\n" + "".join(",".join(r) + "\n" for r in rows)


def annotations_csv(rows: list[tuple[str, ...]], corpus: bool = False) -> str:
    head = "corpus,item,annotator,label\n" if corpus else "item,annotator,label\n"
    return head + "".join(",".join(r) + "\n" for r in rows)


def seed_confusion_rows() -> list[tuple[str, str, str, str, str]]:
    """Seed 004 (digest example 6): TP 120, FP 40, FN 30, TN 310 for one system, positive class 'pos'."""
    cells = [("pos", "pos", 120), ("neg", "pos", 40), ("pos", "neg", 30), ("neg", "neg", 310)]
    rows, i = [], 0
    for gold, pred, n in cells:
        for _ in range(n):
            i += 1
            rows.append(("clf", "test", f"i{i:03d}", gold, pred))
    return rows


def mcnemar_rows() -> list[tuple[str, str, str, str, str]]:
    """Seed 003 (digest example 3): n00 = 101, n01 = 121, n10 = 59, n11 = 33 for systems a and b."""
    rows, i = [], 0
    for a_right, b_right, n in ((False, False, 101), (False, True, 121), (True, False, 59), (True, True, 33)):
        for _ in range(n):
            i += 1
            gold = "yes" if i % 2 else "no"
            other = "no" if gold == "yes" else "yes"
            rows.append(("a", "c", f"i{i:03d}", gold, gold if a_right else other))
            rows.append(("b", "c", f"i{i:03d}", gold, gold if b_right else other))
    return rows


# Seed 004 (digest example 7): ten sentences, annotator 1 and annotator 2 (C = complication, S = symptom).
TEN_1 = "C S C C C S S C S C".split()
TEN_2 = "C S C C S S C C S C".split()
# Seed 004, Table 8: rows annotator 2, columns annotator 1.
SEED3 = [[25, 2, 5], [3, 26, 5], [1, 3, 30]]


def analyses(doc: dict, kind: str) -> list[dict]:
    return [a for a in doc["analyses"] if a["kind"] == kind]


# -------------------------------------------------------------------------------------------- the source's numbers


def test_seed_confusion_matrix_metrics_through_cli(cli, workdir):
    doc = build_files(cli, workdir, """
        title: seed 004 metrics
        data:
          predictions: preds.csv
        classification:
          labels: [pos, neg]
          positive_label: pos
          resamples: 200
          test_metrics: [accuracy, precision, recall, f1, specificity]
        tests:
          pairwise: bootstrap
          resamples: 199
        """, {"preds.csv": predictions_csv(seed_confusion_rows())}, "json,html,latex")
    (c,) = analyses(doc, "classification")
    assert c["id"] == "classification/test/classification" and c["corpus"] == "test"
    (s,) = c["systems"]
    assert s["system"] == "clf"
    # rows gold, columns predicted, labels in the declared order: [[TP, FN], [FP, TN]]
    assert s["confusion_matrix"] == {"labels": ["pos", "neg"], "matrix": [[120, 30], [40, 310]]}
    m = s["metrics"]
    # Seed 004 (digest example 6): precision 0.75, recall 0.80, F1 0.774, accuracy 0.86, specificity 0.886.
    assert m["precision"]["value"] == pytest.approx(0.75, abs=1e-12)  # 120 / 160
    assert m["recall"]["value"] == pytest.approx(0.80, abs=1e-12)  # 120 / 150
    assert round(m["f1"]["value"], 4) == 0.7742  # 2 * 120 / (240 + 30 + 40) = 240/310
    assert m["accuracy"]["value"] == pytest.approx(0.86, abs=1e-12)  # 430 / 500
    assert round(m["specificity"]["value"], 4) == 0.8857  # 310 / 350
    assert m["f1_pos"]["value"] == m["f1"]["value"]
    for name in ("accuracy", "precision", "recall", "specificity", "f1", "f1_macro", "f1_micro", "f1_weighted",
                 "precision_neg", "recall_macro", "specificity_weighted"):
        v = m[name]
        assert set(v) == {"value", "ci_low", "ci_high"}
        assert v["ci_low"] <= v["value"] <= v["ci_high"], name
    # micro F = accuracy for single-label data
    assert m["f1_micro"]["value"] == pytest.approx(0.86, abs=1e-12)
    # the test metrics are first-class metrics: their corpus values are the seed's numbers too
    desc = {a["metric"]: a["systems"][0]["mean"] for a in analyses(doc, "descriptives")}
    assert desc == {"accuracy": pytest.approx(0.86, abs=1e-12), "precision": pytest.approx(0.75, abs=1e-12),
                    "recall": pytest.approx(0.80, abs=1e-12), "f1": pytest.approx(240 / 310, abs=1e-12),
                    "specificity": pytest.approx(310 / 350, abs=1e-12)}
    assert doc["metrics"]["accuracy"]["label"] == "Accuracy"
    assert doc["data"]["predictions"]["file"] == "preds.csv" and doc["data"]["predictions"]["rows"] == 500
    html = (workdir.path / "out" / "index.html").read_text()
    assert "0.750 [" in html and "Confusion matrix of clf on test" in html
    tables = {p.name for p in (workdir.path / "out" / "tables").glob("*.tex")}
    assert {"classification--test--metrics.tex", "classification--test--per-class.tex",
            "classification--test--confusion--clf.tex"} <= tables


def test_seed_mcnemar_through_cli(cli, workdir):
    doc = build_files(cli, workdir, """
        title: seed 003 McNemar
        data:
          predictions: preds.csv
        classification:
          resamples: 99
        tests:
          pairwise: paired_t
        """, {"preds.csv": predictions_csv(mcnemar_rows())}, "json,html")
    (mc,) = analyses(doc, "mcnemar")
    (p,) = mc["pairs"]
    assert (p["a"], p["b"], p["n00"], p["n01"], p["n10"], p["n11"]) == ("a", "b", 101, 121, 59, 33)
    # Seed 003: (|121 - 59| - 1)^2 / (121 + 59) = 20.67 on 1 df;
    # R 4.x: mcnemar.test(matrix(c(101, 59, 121, 33), 2))$statistic = 20.67222222
    assert p["statistic"] == pytest.approx(20.67222222, abs=1e-8)
    assert round(p["statistic"], 2) == 20.67
    assert p["df"] == 1 and p["exact"] is False and p["continuity_correction"] is True
    assert p["pvalue"] < 0.05 and p["significant"] is True
    assert p["pvalue_adjusted"] == p["pvalue"]  # a family of one
    assert set(p) >= {"a", "b", "n01", "n10", "statistic", "pvalue", "pvalue_adjusted", "exact",
                      "continuity_correction", "significant"}
    assert not analyses(doc, "cochran_q")  # two systems
    # accuracy gets the spec's pairwise test (paired t on per-item correctness): a = 92/314, b = 154/314
    pw = next(a for a in analyses(doc, "pairwise") if a["metric"] == "accuracy")
    assert pw["method"] == "paired_t"
    assert pw["pairs"][0]["estimate"] == pytest.approx((92 - 154) / 314, abs=1e-12)
    html = (workdir.path / "out" / "index.html").read_text()
    assert "chi-square(1) = 20.67 with continuity correction" in html
    # the settings table states the classification choices
    assert "Tested as metrics" in html and "exact binomial test when n01 + n10 &lt; 25" in html


def test_mcnemar_exact_when_few_discordant_items(cli, workdir):
    rows, i = [], 0
    for a_right, b_right, n in ((True, True, 20), (False, True, 12), (True, False, 3), (False, False, 5)):
        for _ in range(n):
            i += 1
            rows += [("a", "c", f"i{i}", "x", "x" if a_right else "y"),
                     ("b", "c", f"i{i}", "x", "x" if b_right else "y")]
    doc = build_files(cli, workdir, "title: t\ndata:\n  predictions: p.csv\nclassification:\n  resamples: 99\n",
                      {"p.csv": predictions_csv(rows)}, "json,html")
    (p,) = analyses(doc, "mcnemar")[0]["pairs"]
    assert p["exact"] is True and p["continuity_correction"] is False and p["df"] is None
    # R 4.x: binom.test(3, 15)$p.value = 0.03515625
    assert p["pvalue"] == pytest.approx(0.03515625, abs=1e-12)
    assert p["statistic"] == 3
    assert "exact binomial test because n01 + n10 = 15 &lt; 25" in p["reason"].replace("<", "&lt;")
    html = (workdir.path / "out" / "index.html").read_text()
    assert "exact binomial" in html and "n01 + n10 &lt; 25" in html


def test_seed_ten_sentences_kappa_through_cli(cli, workdir):
    rows = [(f"s{i + 1}", "A1", x) for i, x in enumerate(TEN_1)] + [(f"s{i + 1}", "A2", x) for i, x in enumerate(TEN_2)]
    doc = build_files(cli, workdir, "title: t\ndata:\n  annotations: ann.csv\n", {"ann.csv": annotations_csv(rows)},
                      "json,html,latex")
    (k,) = analyses(doc, "agreement")
    # Seed 004 (digest example 7): P(A) = 0.8, P(E) = 0.52, kappa = 0.583 (= 0.28 / 0.48 = 7/12).
    assert k["measure"] == "cohen_kappa" and k["annotators"] == ["A1", "A2"] and k["corpus"] is None
    assert k["observed_agreement"] == pytest.approx(0.8, abs=1e-12)
    assert k["expected_agreement"] == pytest.approx(0.52, abs=1e-12)
    assert round(k["value"], 3) == 0.583
    assert k["interpretation"] == "moderate"
    assert k["n_items"] == 10 and k["level"] == "nominal" and k["value_kind"] == "coefficient"
    assert k["matrix"] == [[5, 1], [1, 3]]  # rows A1, columns A2, labels C, S (order of appearance)
    assert k["se"] > 0 and k["ci_low"] < k["value"] < k["ci_high"]
    for field in ("measure", "level", "annotators", "value", "observed_agreement", "expected_agreement", "se",
                  "ci_low", "ci_high", "interpretation", "n_items"):
        assert field in k
    html = (workdir.path / "out" / "index.html").read_text()
    assert "0.583" in html and "moderate" in html and "Agreement matrix of annotators A1 (rows) and A2" in html
    assert (workdir.path / "out" / "tables" / "agreement--all--matrix.tex").exists()


def _seed3_rows() -> list[tuple[str, str, str]]:
    rows, i = [], 0
    for r, row in enumerate(SEED3):
        for c, n in enumerate(row):
            for _ in range(n):
                i += 1
                rows += [(f"u{i}", "A2", str(r + 1)), (f"u{i}", "A1", str(c + 1))]
    return rows


def test_seed_three_class_and_weighted_kappa_through_cli(cli, workdir):
    doc = build_files(cli, workdir, """
        title: t
        data:
          annotations: ann.csv
        agreement:
          level: ordinal
          order: ["1", "2", "3"]
          resamples: 200
        """, {"ann.csv": annotations_csv(_seed3_rows())})
    by = {a["measure"]: a for a in analyses(doc, "agreement")}
    assert set(by) == {"cohen_kappa", "weighted_kappa_linear", "weighted_kappa_quadratic"}
    # Seed 004 (digest example 7): P(A) = 0.81, P(E) = 0.3342, kappa = 0.7146.
    assert round(by["cohen_kappa"]["value"], 4) == 0.7146
    assert by["cohen_kappa"]["expected_agreement"] == pytest.approx(0.3342, abs=1e-12)
    # R 4.x, vcd 1.4.11: m3 <- matrix(c(25,2,5, 3,26,5, 1,3,30), 3, byrow=TRUE);
    # Kappa(m3); Kappa(m3, weights="Equal-Spacing"); Kappa(m3, weights="Fleiss-Cohen"); confint(...)
    expected = {
        "cohen_kappa": (0.71462901772304, 0.0587364568163587, 0.599507677783485, 0.829750357662595),
        "weighted_kappa_linear": (0.71985656656208, 0.0618372174444057, 0.598657847466873, 0.841055285657287),
        "weighted_kappa_quadratic": (0.725029726516052, 0.0718836224812806, 0.584140415374468, 0.865919037657636),
    }
    for measure, (value, ase, lwr, upr) in expected.items():
        a = by[measure]
        assert a["value"] == pytest.approx(value, rel=1e-12)
        assert a["se"] == pytest.approx(ase, rel=1e-10)
        assert (a["ci_low"], a["ci_high"]) == (pytest.approx(lwr, rel=1e-10), pytest.approx(upr, rel=1e-10))
        assert a["interpretation"] == "substantial"
        assert a["bootstrap_ci_low"] < a["value"] < a["bootstrap_ci_high"]
    assert by["weighted_kappa_linear"]["level"] == "ordinal"


# Krippendorff (2011), section C: 4 observers (A-D) x 12 units, '.' = missing.
KRIPP = ["1 1 . 1", "2 2 3 2", "3 3 3 3", "3 3 3 3", "2 2 2 2", "1 2 3 4", "4 4 4 4", "1 1 2 1", "2 2 2 2",
         ". 5 5 5", ". . 1 1", ". 3 . ."]


@pytest.mark.parametrize(("level", "order", "published", "package"), [
    # Krippendorff (2011), section C: alpha = .743 (nominal), .815 (ordinal), .849 (interval);
    # krippendorff 0.9.0: krippendorff.alpha(reliability_data=..., level_of_measurement=level)
    ("nominal", None, 0.743, 0.743421052631579),
    ("ordinal", ["1", "2", "3", "4", "5"], 0.815, 0.8153875037548814),
    ("interval", None, 0.849, 0.8491071428571428),
])
def test_krippendorff_2011_through_cli(cli, workdir, level, order, published, package):
    rows = [(f"u{u + 1}", obs, v) for u, line in enumerate(KRIPP) for obs, v in zip("ABCD", line.split()) if v != "."]
    spec = f"title: t\ndata:\n  annotations: ann.csv\nagreement:\n  level: {level}\n  resamples: 200\n"
    spec += f"  order: {json.dumps(order)}\n" if order else ""
    doc = build_files(cli, workdir, spec, {"ann.csv": annotations_csv(rows)})
    by = {a["measure"]: a for a in analyses(doc, "agreement")}
    assert set(by) >= {"cohen_kappa", "fleiss_kappa", "krippendorff_alpha"}
    alpha = by["krippendorff_alpha"]
    assert round(alpha["value"], 3) == published
    assert alpha["value"] == pytest.approx(package, rel=1e-12)
    assert alpha["level"] == level and alpha["n_items"] == 11
    assert any("fewer than two ratings" in w for w in alpha["warnings"])
    assert alpha["ci_low"] <= alpha["value"] <= alpha["ci_high"] and alpha["se"] > 0
    # 4 annotators: the pairwise kappa matrix (6 pairs) and their mean (Light's kappa)
    ck = by["cohen_kappa"]
    assert ck["value_kind"] == "mean_of_pairs" and len(ck["pairs"]) == 6
    defined = [p["value"] for p in ck["pairs"] if p["value"] is not None]
    assert ck["value"] == pytest.approx(np.mean(defined), rel=1e-12)


def test_fleiss_1971_diagnoses_through_cli(cli, workdir):
    # Fleiss (1971) Table 1 as R irr's `diagnoses`: 30 patients x 6 psychiatrists, categories 1..5.
    diag = ["444444", "222555", "233335", "555555", "222444", "113333", "333355", "113334", "114444", "555555",
            "144444", "124444", "222333", "144444", "224445", "333335", "111455", "111112", "224444", "133555",
            "555555", "244444", "224555", "114444", "144445", "222224", "111155", "224444", "133333", "555555"]
    rows = [(f"p{i + 1}", f"r{j + 1}", c) for i, line in enumerate(diag) for j, c in enumerate(line)]
    doc = build_files(cli, workdir, "title: t\ndata:\n  annotations: ann.csv\nagreement:\n  measures: [fleiss_kappa]\n"
                      "  resamples: 99\n", {"ann.csv": annotations_csv(rows)})
    (f,) = analyses(doc, "agreement")
    # R irr 0.84.1: kappam.fleiss(diagnoses) -> Kappa = 0.43, z = 17.7; pyirr 0.84.1.2 value 0.43024452006014074;
    # irrCAC 0.4.4 fleiss() se 0.054198935515 (standard error under the alternative)
    assert f["value"] == pytest.approx(0.43024452006014074, rel=1e-12)
    assert f["se"] == pytest.approx(0.054198935515, abs=1e-12)
    assert round(f["value"] / f["se_null"], 1) == 17.7
    assert f["interpretation"] == "moderate" and f["n_items"] == 30 and len(f["annotators"]) == 6


def test_systems_vs_gold_kappa(cli, workdir):
    # System s1 says annotator 1's labels, gold is annotator 2's: Cohen's kappa 0.583 (seed 004).
    rows = [("s1", "c", f"i{i}", g, p) for i, (p, g) in enumerate(zip(TEN_1, TEN_2))]
    rows += [("s2", "c", f"i{i}", g, g) for i, g in enumerate(TEN_2)]
    doc = build_files(cli, workdir, "title: t\ndata:\n  predictions: p.csv\nclassification:\n  resamples: 99\n"
                      "agreement:\n  systems_vs_gold: true\n  resamples: 99\n", {"p.csv": predictions_csv(rows)},
                      "json,html")
    (g,) = [a for a in analyses(doc, "agreement") if a["source"] == "systems_vs_gold"]
    assert g["id"] == "agreement/c/cohen_kappa-vs-gold" and g["value_kind"] == "per_pair" and g["value"] is None
    s1, s2 = g["pairs"]
    assert (s1["a"], s1["b"]) == ("s1", "gold") and round(s1["value"], 3) == 0.583
    assert s1["interpretation"] == "moderate"
    assert s2["value"] == 1 and s2["interpretation"] == "almost perfect"


# -------------------------------------------------------------------------------------------- Cochran's Q


def test_cochran_q_then_mcnemar_posthoc(cli, workdir):
    # 8 items x 3 systems of 0/1 correctness.
    # R 4.x, rstatix 0.7.2: m <- matrix(c(1,1,0, 1,0,0, 0,1,1, 1,1,1, 0,0,1, 1,0,1, 1,1,0, 0,0,0), ncol=3,
    # byrow=TRUE); d <- data.frame(id=rep(1:8,3), g=factor(rep(c("A","B","C"),each=8)), y=c(m[,1],m[,2],m[,3]));
    # cochran_qtest(d, y ~ g | id) -> statistic 0.333, df 2, p 0.846  (Q = 1/3 by hand: C = (5, 4, 4), N = 13,
    # sum R_i^2 = 4 + 1 + 4 + 9 + 1 + 4 + 4 + 0 = 27: 2 (3 * 57 - 169) / (39 - 27) = 4/12)
    m = [(1, 1, 0), (1, 0, 0), (0, 1, 1), (1, 1, 1), (0, 0, 1), (1, 0, 1), (1, 1, 0), (0, 0, 0)]
    rows = [(s, "c", f"i{i}", "y", "y" if m[i][j] else "n") for i in range(8) for j, s in enumerate("ABC")]
    doc = build_files(cli, workdir, "title: t\ndata:\n  predictions: p.csv\nclassification:\n  resamples: 99\n"
                      "tests:\n  pairwise: paired_t\n  correction: bonferroni\n", {"p.csv": predictions_csv(rows)},
                      "json,html")
    (q,) = analyses(doc, "cochran_q")
    assert q["statistic"] == pytest.approx(1 / 3, abs=1e-12) and q["df"] == 2
    assert q["pvalue"] == pytest.approx(np.exp(-1 / 6), abs=1e-12)  # chi-square(2) survival = exp(-Q/2) = 0.846
    assert q["significant"] is False and q["accuracy"] == {"A": 5 / 8, "B": 0.5, "C": 0.5}
    (mc,) = analyses(doc, "mcnemar")
    assert mc["after"] == "cochran_q" and mc["omnibus_significant"] is False and mc["correction"] == "bonferroni"
    assert [(p["a"], p["b"]) for p in mc["pairs"]] == [("A", "B"), ("A", "C"), ("B", "C")]
    for p in mc["pairs"]:
        assert p["exact"] is True  # few discordant items
        assert p["pvalue_adjusted"] == pytest.approx(min(1.0, 3 * p["pvalue"]), abs=1e-12)
    html = (workdir.path / "out" / "index.html").read_text()
    assert "Cochran&#39;s Q" in html and "read these post-hoc tests with care" in html


# -------------------------------------------------------------------------------------------- first-class metrics


def test_classification_metrics_are_tested_like_scores(cli, workdir):
    """accuracy and f1_macro blocks give the classification kind's values, and the spec's tests run on them."""
    rng = np.random.default_rng(7)
    labels = ["a", "b", "c"]
    rows = []
    for corpus, n in (("x", 60), ("y", 40)):
        gold = rng.integers(0, 3, n)
        for s, skill in (("s1", 0.5), ("s2", 0.7), ("s3", 0.8)):
            pred = np.where(rng.random(n) < skill, gold, rng.integers(0, 3, n))
            rows += [(s, corpus, f"{corpus}{i}", labels[gold[i]], labels[pred[i]]) for i in range(n)]
    doc = build_files(cli, workdir, """
        title: t
        data:
          predictions: p.csv
        classification:
          resamples: 99
          test_metrics: [accuracy, f1_macro, precision_weighted, recall_b, specificity_micro, f1_c]
        tests:
          pairwise: bootstrap
          resamples: 199
          omnibus: friedman
        """, {"p.csv": predictions_csv(rows)})
    cls = {a["corpus"]: a for a in analyses(doc, "classification")}
    desc = {(a["metric"], a["corpus"]): a for a in analyses(doc, "descriptives")}
    for corpus in ("x", "y"):
        for name in ("accuracy", "f1_macro", "precision_weighted", "recall_b", "specificity_micro", "f1_c"):
            d = desc[(name, corpus)]
            for sys_entry, s in zip(d["systems"], cls[corpus]["systems"]):
                assert sys_entry["mean"] == pytest.approx(s["metrics"][name]["value"], rel=1e-12), (name, corpus)
    pw = {(a["metric"], a["corpus"]) for a in analyses(doc, "pairwise")}
    assert ("f1_macro", "x") in pw and ("accuracy", "y") in pw
    assert doc["metrics"]["f1_macro"]["aggregate"] == "sigreport.labels:f_macro"
    assert doc["metrics"]["recall_b"]["aggregate"] == "ratio"
    assert doc["metrics"]["f1_c"]["aggregate"] == "f_beta"
    om = {(a["metric"], a["corpus"]) for a in analyses(doc, "omnibus")}
    assert om == {("accuracy", "x"), ("accuracy", "y")}  # only the mean metric gets Friedman


def test_friedman_on_accuracy_equals_cochran_q(cli, workdir):
    # Cochran's Q is the tie-corrected Friedman statistic on 0/1 data (contingency module docstring).
    rng = np.random.default_rng(3)
    gold = rng.integers(0, 2, 80)
    rows = []
    for s, skill in (("s1", 0.6), ("s2", 0.75), ("s3", 0.8)):
        pred = np.where(rng.random(80) < skill, gold, 1 - gold)
        rows += [(s, "c", f"i{i}", str(gold[i]), str(pred[i])) for i in range(80)]
    doc = build_files(cli, workdir, "title: t\ndata:\n  predictions: p.csv\nclassification:\n  resamples: 99\n"
                      "tests:\n  pairwise: paired_t\n  omnibus: friedman\n", {"p.csv": predictions_csv(rows)})
    (q,) = analyses(doc, "cochran_q")
    (f,) = analyses(doc, "omnibus")
    assert f["statistic"] == pytest.approx(q["statistic"], rel=1e-12)


def test_level_corpora_gives_one_score_per_corpus(cli, workdir):
    rows = []
    for c in ("c1", "c2", "c3"):
        for i in range(10):
            rows += [("a", c, f"i{i}", "p", "p" if i < 6 else "n"), ("b", c, f"i{i}", "p", "p" if i < 8 else "n")]
    doc = build_files(cli, workdir, "title: t\ndata:\n  predictions: p.csv\nclassification:\n  resamples: 99\n"
                      "  test_metrics: [accuracy, f1_macro]\ntests:\n  level: corpora\n  pairwise: paired_t\n",
                      {"p.csv": predictions_csv(rows)})
    d = {a["metric"]: a for a in analyses(doc, "descriptives")}
    assert d["accuracy"]["corpus"] is None and d["accuracy"]["n_items"] == 3
    assert [s["mean"] for s in d["accuracy"]["systems"]] == [pytest.approx(0.6), pytest.approx(0.8)]
    assert doc["metrics"]["f1_macro"]["aggregate"] == "mean"  # one value per corpus
    assert len(analyses(doc, "classification")) == 3  # still per corpus


def test_averaged_metric_matches_classification_module():
    """The built-in label aggregates (macro / weighted from per-class tp, fp, fn) equal
    sigreport.stats.classification's averages, including classes whose metric is undefined."""
    from sigreport.data.aggregates import label_average as averaged_metric
    from sigreport.spec import MetricSpec
    from sigreport.stats.classification import classification_metrics

    rng = np.random.default_rng(11)
    k = 4
    gold = rng.integers(0, 3, 50)  # class 3 never in gold
    pred = np.where(rng.random(50) < 0.6, gold, rng.integers(0, 4, 50))
    pred[pred == 2] = 1  # class 2 never predicted
    ref = classification_metrics(gold, pred, ["a", "b", "c", "d"], beta=2.0, n_resamples=0).metrics
    classes = np.arange(k)
    g = gold[:, None] == classes
    p = pred[:, None] == classes
    totals = np.concatenate([(g & p).sum(0), (~g & p).sum(0), (g & ~p).sum(0)]).astype(float)
    names = [f"s{i}" for i in range(3 * k)]
    for base, pub in (("precision", "precision"), ("recall", "recall"), ("specificity", "specificity"), ("f", "f2")):
        for avg in ("macro", "weighted"):
            m = averaged_metric(MetricSpec(higher_is_better=True, aggregate=f"sigreport.labels:{base}_{avg}",
                                           statistics=names, beta=2.0))
            assert float(m.value(totals, 50)) == pytest.approx(ref[f"{pub}_{avg}"].value, rel=1e-12), (base, avg)


# -------------------------------------------------------------------------------------------- degenerate inputs


def test_degenerate_inputs_warn_and_never_crash(cli, workdir):
    # Everyone uses one label; a corpus with a single item; an annotator rating only one corpus.
    preds = [("s1", "one", "i1", "x", "x"), ("s2", "one", "i1", "x", "y"),
             ("s1", "same", "j1", "x", "x"), ("s2", "same", "j1", "x", "x"),
             ("s1", "same", "j2", "x", "x"), ("s2", "same", "j2", "x", "x")]
    ann = [("one", "i1", "A", "x"), ("one", "i1", "B", "x"), ("one", "i1", "C", "y"),
           ("same", "j1", "A", "x"), ("same", "j1", "B", "x"), ("same", "j2", "A", "x"), ("same", "j2", "B", "x")]
    doc = build_files(cli, workdir, "title: t\ndata:\n  predictions: p.csv\n  annotations: a.csv\n"
                      "classification:\n  resamples: 99\nagreement:\n  systems_vs_gold: true\n  resamples: 99\n",
                      {"p.csv": predictions_csv(preds), "a.csv": annotations_csv(ann, corpus=True)},
                      "json,html,latex,pdf")
    same = {a["measure"]: a for a in analyses(doc, "agreement")
            if a["corpus"] == "same" and a["source"] == "annotations"}
    k = same["cohen_kappa"]
    assert k["value"] is None and any("same label" in w for w in k["warnings"])
    one = [a for a in analyses(doc, "agreement") if a["corpus"] == "one" and a["source"] == "annotations"]
    assert one and all(a["value"] is None or a["warnings"] for a in one)
    cls = {a["corpus"]: a for a in analyses(doc, "classification")}
    assert cls["same"]["warnings"]  # specificity etc. undefined with one class
    for a in doc["analyses"]:
        for key in ("value", "statistic", "pvalue"):
            if key in a and a[key] is None and a.get("value_kind") != "per_pair":
                assert a["warnings"], a["id"]


@needs("pdflatex")
def test_label_tables_compile_with_odd_names(cli, workdir, tmp_path):
    """Labels, systems and annotators with LaTeX specials, a degenerate corpus: every table compiles."""
    preds = [("sys_&1", "c#1", f"i{i}", g, p) for i, (g, p) in enumerate(zip(TEN_2, TEN_1))]
    preds += [("100%", "c#1", f"i{i}", g, g) for i, g in enumerate(TEN_2)]
    preds += [("sys_&1", "c#1", "i99", "x~y", "x~y"), ("100%", "c#1", "i99", "x~y", "C")]
    ann = [(f"s{i}", "ann_{1}", a) for i, a in enumerate(TEN_1)] + [(f"s{i}", "ann$2", b) for i, b in enumerate(TEN_2)]
    build_files(cli, workdir, "title: t\ndata:\n  predictions: p.csv\n  annotations: a.csv\nclassification:\n"
                "  resamples: 99\n  positive_label: C\nagreement:\n  systems_vs_gold: true\n  resamples: 99\n",
                {"p.csv": predictions_csv(preds), "a.csv": annotations_csv(ann)}, "json,latex")
    tables = sorted((workdir.path / "out" / "tables").glob("*.tex"))
    assert len(tables) >= 8
    r = pdflatex_compile("\n\\clearpage\n".join(t.read_text() for t in tables), tmp_path)
    assert r.returncode == 0, r.stdout[-3000:]


def test_builds_are_reproducible(tmp_path, example):
    from sigreport.cli import main

    cfg = CONFIGS / "classifiers.yaml"
    one = example("classifiers")  # conftest: built once per session; a second, separate build must match it
    assert main(["build", "-q", "-o", str(tmp_path / "two"), "--formats", "json,html,latex", str(cfg)]) == 0
    for f in ("results.json", "index.html", "tables/classification--reviews--mcnemar.tex"):
        assert (one / f).read_bytes() == (tmp_path / "two" / f).read_bytes(), f


def test_classifiers_example_contract(example):
    doc = json.loads((example("classifiers") / "results.json").read_text())
    kinds = {a["kind"] for a in doc["analyses"]}
    assert {"classification", "mcnemar", "cochran_q", "agreement", "descriptives", "pairwise", "omnibus"} <= kinds
    measures = {a["measure"] for a in analyses(doc, "agreement")}
    assert measures == {"cohen_kappa", "weighted_kappa_linear", "weighted_kappa_quadratic", "fleiss_kappa",
                        "krippendorff_alpha"}
    assert any(p["exact"] for a in analyses(doc, "mcnemar") for p in a["pairs"])
    assert any(not p["exact"] for a in analyses(doc, "mcnemar") for p in a["pairs"])
    for a in analyses(doc, "agreement"):
        assert {"measure", "level", "annotators", "value", "observed_agreement", "expected_agreement", "se",
                "ci_low", "ci_high", "interpretation", "n_items"} <= set(a)
        for p in a["pairs"]:
            assert p["value"] is None or p["interpretation"] in ("poor", "slight", "fair", "moderate", "substantial",
                                                                 "almost perfect")
    for a in analyses(doc, "mcnemar"):
        for p in a["pairs"]:
            assert p["pvalue_adjusted"] >= p["pvalue"]
    ids = [a["id"] for a in doc["analyses"]]
    assert len(ids) == len(set(ids))


# -------------------------------------------------------------------------------------------- per-corpus label sets


def test_each_corpus_has_its_own_label_set_against_sklearn(cli, workdir):
    """One predictions file with two data sets shipped in scikit-learn (iris: setosa, versicolor, virginica;
    wine: class_0, class_1, class_2) and three of its classifiers' cross-validated predictions. Each corpus is
    scored on its own labels, so every macro, micro and weighted value equals scikit-learn's on that corpus
    alone (before, every corpus took all six labels: macro recall halved, specificity inflated)."""
    from sklearn.datasets import load_iris, load_wine
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.metrics import multilabel_confusion_matrix, precision_recall_fscore_support
    from sklearn.model_selection import cross_val_predict
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    models = {"knn": KNeighborsClassifier(), "nb": GaussianNB(),
              "tree": DecisionTreeClassifier(random_state=0)}
    rows, truth, predicted = [], {}, {}
    for corpus, data in (("iris", load_iris()), ("wine", load_wine())):
        names = [str(n) for n in data.target_names]
        truth[corpus] = [names[t] for t in data.target]
        for system, model in models.items():
            pred = cross_val_predict(model, data.data, data.target, cv=5)
            predicted[corpus, system] = [names[p] for p in pred]
            rows += [(system, corpus, f"{corpus}{i}", g, p)
                     for i, (g, p) in enumerate(zip(truth[corpus], predicted[corpus, system]))]
    doc = build_files(cli, workdir, """
        title: two data sets in one predictions file
        data:
          predictions: preds.csv
        classification:
          resamples: 99
          test_metrics: [specificity_macro, f1_micro, recall_macro]
        tests:
          pairwise: bootstrap
          resamples: 200
          omnibus: none
        """, {"preds.csv": predictions_csv(rows)})
    records = {a["corpus"]: a for a in analyses(doc, "classification")}
    assert records["iris"]["labels"] == ["setosa", "versicolor", "virginica"]
    assert records["wine"]["labels"] == ["class_0", "class_1", "class_2"]
    descriptives = {(a["metric"], a["corpus"]): {s["system"]: s["mean"] for s in a["systems"]}
                    for a in analyses(doc, "descriptives")}
    for corpus in ("iris", "wine"):
        for s in records[corpus]["systems"]:
            y, p = truth[corpus], predicted[corpus, s["system"]]
            m = s["metrics"]
            for avg in ("macro", "micro", "weighted"):
                # sklearn.metrics.precision_recall_fscore_support(y, p, average=avg), on this corpus alone
                prec, rec, f1, _ = precision_recall_fscore_support(y, p, average=avg, zero_division=0)
                assert m[f"precision_{avg}"]["value"] == pytest.approx(prec, abs=1e-12)
                assert m[f"recall_{avg}"]["value"] == pytest.approx(rec, abs=1e-12)
                assert m[f"f1_{avg}"]["value"] == pytest.approx(f1, abs=1e-12)
            # specificity tn / (tn + fp) per class from sklearn.metrics.multilabel_confusion_matrix(y, p)
            mcm = multilabel_confusion_matrix(y, p)
            tn, fp = mcm[:, 0, 0], mcm[:, 0, 1]
            assert m["specificity_macro"]["value"] == pytest.approx(np.mean(tn / (tn + fp)), abs=1e-12)
            assert m["specificity_micro"]["value"] == pytest.approx(tn.sum() / (tn + fp).sum(), abs=1e-12)
            # the corpus-level test metrics of the pairwise tests: the same values
            got = {name: descriptives[name, corpus][s["system"]]
                   for name in ("specificity_macro", "f1_micro", "recall_macro")}
            assert got["specificity_macro"] == pytest.approx(np.mean(tn / (tn + fp)), abs=1e-12)
            assert got["f1_micro"] == pytest.approx(
                precision_recall_fscore_support(y, p, average="micro")[2], abs=1e-12)
            assert got["recall_macro"] == pytest.approx(
                precision_recall_fscore_support(y, p, average="macro")[1], abs=1e-12)
    assert not [w for a in doc["analyses"] for w in a.get("warnings", []) if "no predictions" in w or "undefined" in w]


def test_a_class_metric_whose_label_is_absent_from_a_corpus_is_refused(cli, workdir):
    rows = [("a", "c1", "i1", "x", "x"), ("a", "c1", "i2", "y", "x"), ("b", "c1", "i1", "x", "y"),
            ("b", "c1", "i2", "y", "y"), ("a", "c2", "j1", "u", "u"), ("a", "c2", "j2", "v", "u"),
            ("b", "c2", "j1", "u", "v"), ("b", "c2", "j2", "v", "v")]
    workdir.write("preds.csv", predictions_csv(rows))
    workdir.write("spec.yaml", """
        title: t
        data:
          predictions: preds.csv
        classification:
          test_metrics: [recall_x]
        tests:
          pairwise: bootstrap
        """)
    r = cli("validate", workdir.path / "spec.yaml")
    assert r.code == 2 and "Traceback" not in r.err
    assert "'recall_x': its label does not occur in corpus 'c2' (labels there: u, v)" in r.err
