"""Corpus-level metrics: the automatic test is approximate randomization with the bootstrap's interval, an
explicit bootstrap below 100 items warns, and a per-item test is refused naming tests.pairwise
(docs/calibration_corpus.md gives the rejection rates behind these rules)."""

from __future__ import annotations

import numpy as np

SPEC = """
title: corpus-level
data:
  scores: scores.csv
metrics:
  f1:
    higher_is_better: true
    aggregate: f_beta
    statistics: [tp, fp, fn]
tests:
  resamples: 499
{tests}
"""


def write(workdir, n: int, tests: str) -> None:
    rng = np.random.default_rng(3)
    rows = ["system,corpus,item,metric,value"]
    for system in ("A", "B", "C"):
        for i in range(n):
            for stat, value in zip(("tp", "fp", "fn"), (rng.integers(0, 5), rng.integers(0, 3), rng.integers(0, 3))):
                rows.append(f"{system},c,i{i},{stat},{value}")
    workdir.write("scores.csv", "\n".join(rows) + "\n")
    workdir.write("spec.yaml", SPEC.format(tests=tests))


def pairwise(doc: dict) -> dict:
    return next(a for a in doc["analyses"] if a["kind"] == "pairwise")


def test_auto_is_randomization_with_the_bootstraps_interval(cli, workdir):
    write(workdir, 30, "  pairwise: auto")
    assert cli("build", "-q", "--formats", "json", "-o", workdir.path / "auto", workdir.path / "spec.yaml").code == 0
    auto = pairwise(workdir.results("auto"))
    assert auto["method"] == "permutation" and "calibration_corpus" in auto["selection"]["steps"][0]["outcome"]
    write(workdir, 30, "  pairwise: bootstrap")
    assert cli("build", "-q", "--formats", "json", "-o", workdir.path / "boot", workdir.path / "spec.yaml").code == 0
    boot = pairwise(workdir.results("boot"))
    for p, b in zip(auto["pairs"], boot["pairs"]):
        assert p["ci_from"] == "bootstrap" and p["ci_method"] == "percentile"
        assert (p["ci_low"], p["ci_high"]) == (b["ci_low"], b["ci_high"])  # the same replicates: the same interval
        assert p["null"] == "sign-flip" and p["pvalue"] != b["pvalue"]  # the p-value is the randomization test's
    assert any("liberal" in w for w in boot["warnings"])  # 30 items: the bootstrap warns


def test_explicit_bootstrap_warns_below_100_items_only(cli, workdir):
    for n, warned in ((60, True), (100, False)):
        write(workdir, n, "  pairwise: bootstrap")
        out = workdir.path / f"n{n}"
        assert cli("build", "-q", "--formats", "json", "-o", out, workdir.path / "spec.yaml").code == 0
        warnings = pairwise(workdir.results(f"n{n}"))["warnings"]
        assert any("liberal at small n" in w and "calibration_corpus" in w for w in warnings) is warned, (n, warnings)


def test_a_per_item_test_is_refused_at_tests_pairwise(cli, workdir):
    write(workdir, 20, "  pairwise: wilcoxon")
    r = cli("validate", workdir.path / "spec.yaml")
    assert r.code == 2 and "Traceback" not in r.err
    assert "tests.pairwise (line" in r.err and "only resampling tests apply, not wilcoxon" in r.err


def test_without_tests_pairwise_the_default_is_randomization(cli, workdir):
    write(workdir, 30, "")  # tests.pairwise left out: paired t cannot apply to f_beta, so the default is auto
    assert cli("build", "-q", "--formats", "json", "-o", workdir.path / "default", workdir.path / "spec.yaml").code == 0
    doc = workdir.results("default")
    family = pairwise(doc)
    assert doc["tests"]["pairwise"] == "auto" and family["method"] == "permutation"
    assert "calibration_corpus" in family["selection"]["steps"][0]["outcome"]
    write(workdir, 30, "  pairwise: auto")
    assert cli("build", "-q", "--formats", "json", "-o", workdir.path / "auto", workdir.path / "spec.yaml").code == 0
    assert pairwise(workdir.results("auto"))["pairs"] == family["pairs"]  # the same test as auto written out


def test_the_default_is_auto_only_with_a_corpus_level_metric():
    import sigreport

    mean = {"title": "t", "data": {"scores": "scores.csv"}, "metrics": {"acc": {"higher_is_better": True}}}
    assert sigreport.load_spec(mean).spec.tests.pairwise == "paired_t"
    mixed = {**mean, "metrics": {**mean["metrics"], "f1": {"higher_is_better": True, "aggregate": "f_beta",
                                                           "statistics": ["tp", "fp", "fn"]}}}
    assert sigreport.load_spec(mixed).spec.tests.pairwise == "auto"
    assert sigreport.load_spec({**mixed, "tests": {"pairwise": "bootstrap"}}).spec.tests.pairwise == "bootstrap"
