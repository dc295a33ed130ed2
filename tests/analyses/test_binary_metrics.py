"""0/1 metrics in a build: each system's interval is tests.proportion_ci's (Wilson by default), each pair's
Newcombe's paired method 10, stated in results.json (``ci_method``), the table notes and the methods paragraph;
``metrics.M.binary`` turns the detection off, or requires 0/1 data (exit 2 naming the metric and a bad line).

Expected values: statsmodels ``proportion_confint(count, n, method=...)`` for the systems' intervals (itself
checked against R in tests/stats/test_proportion.py) and :func:`sigreport.stats.proportion.newcombe_paired_counts`
for the pairs' (checked there against Newcombe 1998's Table II)."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from conftest import build_files
from sigreport.results import from_json
from sigreport.results.io import to_json
from sigreport.stats import proportion

# three systems on 30 items: A right on 27, B on 18, C on none (0%: Wald would give "+- 0")
RNG = np.random.default_rng(30)
A = np.array([1] * 27 + [0] * 3)
B = np.array([1] * 18 + [0] * 12)
RNG.shuffle(B)
C = np.zeros(30, dtype=int)


def scores_csv(columns: dict[str, np.ndarray]) -> str:
    lines = ["system,corpus,item,metric,value"]
    for s, col in columns.items():
        lines += [f"{s},c,i{i:03d},acc,{int(v)}" for i, v in enumerate(col)]
    return "\n".join(lines) + "\n"


def spec(tests: str = "", metric: str = "") -> str:
    return f"""
        title: t
        alpha: 0.05
        seed: 1
        data: {{scores: s.csv}}
        metrics: {{acc: {{higher_is_better: true{metric}}}}}
        tests:
          omnibus: none{tests}
        """


def record(doc: dict, kind: str) -> dict:
    return next(a for a in doc["analyses"] if a["kind"] == kind)


@pytest.mark.parametrize("method", [None, *proportion.NAMES])
def test_systems_get_the_chosen_proportion_interval(cli, workdir, method):
    opt = f"\n          proportion_ci: {method}" if method else ""
    doc = build_files(cli, workdir, spec(opt), {"s.csv": scores_csv({"A": A, "B": B, "C": C})})
    desc = record(doc, "descriptives")
    chosen = method or "wilson"
    assert desc["ci_method"] == chosen
    sm = {"wilson": "wilson", "clopper_pearson": "beta", "jeffreys": "jeffreys", "wald": "normal"}[chosen]
    for s, col in zip(desc["systems"], (A, B, C)):
        low, high = proportion_confint(int(col.sum()), 30, alpha=0.05, method=sm)
        if chosen == "jeffreys" and col.sum() == 0:
            low = 0.0  # Brown, Cai and DasGupta's boundary modification (statsmodels has none)
        assert s["ci_low"] == pytest.approx(low, abs=1e-12) and s["ci_high"] == pytest.approx(high, abs=1e-12)
    zero_width = [w for w in desc["warnings"] if "zero width" in w]
    assert bool(zero_width) == (chosen == "wald")
    c = desc["systems"][2]
    assert c["mean"] == 0 and (c["ci_high"] > 0) == (chosen != "wald")


def test_pairs_get_newcombe_and_the_tests_p(cli, workdir):
    doc = build_files(cli, workdir, spec(), {"s.csv": scores_csv({"A": A, "B": B, "C": C})}, formats="json,html")
    pw = record(doc, "pairwise")
    assert pw["ci_method"] == "newcombe_paired" and pw["method"] == "paired_t"
    cols = {"A": A, "B": B, "C": C}
    for p in pw["pairs"]:
        a, b = cols[p["a"]], cols[p["b"]]
        ref = proportion.newcombe_paired_counts(np.sum(a * b), np.sum(a * (1 - b)), np.sum((1 - a) * b),
                                                np.sum((1 - a) * (1 - b)), 0.95)
        assert p["estimate"] == pytest.approx(float(ref.estimate), abs=1e-12)
        assert p["ci_low"] == pytest.approx(float(ref.low), abs=1e-12)
        assert p["ci_high"] == pytest.approx(float(ref.high), abs=1e-12)
        assert p["df"] == 29  # the paired t test's own statistic and p stay
    html = (workdir.path / "out" / "index.html").read_text(encoding="utf-8")
    assert "Newcombe" in html and "Wilson score interval" in html and "Wilson 1927" in html
    assert "Newcombe 1998" in html
    text = (workdir.path / "out" / "results.json").read_text(encoding="utf-8")
    assert to_json(from_json(text)) == text  # ci_method reads back into the records


def test_rank_tests_keep_their_own_interval(cli, workdir):
    """The sign test estimates the median difference, not the difference of proportions: its interval stays,
    and a warning says why."""
    doc = build_files(cli, workdir, spec("\n          pairwise: sign"), {"s.csv": scores_csv({"A": A, "B": B})})
    pw = record(doc, "pairwise")
    assert pw["ci_method"] is None
    assert any("Newcombe" in w for w in pw["warnings"])


def test_binary_false_keeps_the_t_interval(cli, workdir):
    doc = build_files(cli, workdir, spec(metric=", binary: false"), {"s.csv": scores_csv({"A": A, "B": B})})
    desc, pw = record(doc, "descriptives"), record(doc, "pairwise")
    assert desc["ci_method"] == "t" and pw["ci_method"] is None
    # the t interval of the mean with the sample SD; 2.045229642132703 = scipy.stats.t.ppf(0.975, 29)
    s = desc["systems"][0]
    assert s["ci_high"] - s["ci_low"] == pytest.approx(2 * 2.045229642132703 * np.std(A, ddof=1) / np.sqrt(30))


def test_non_binary_data_stays_a_mean(cli, workdir):
    text = scores_csv({"A": A, "B": B}).replace("A,c,i000,acc,1", "A,c,i000,acc,0.5")
    doc = build_files(cli, workdir, spec(), {"s.csv": text})
    assert record(doc, "descriptives")["ci_method"] == "t"


def test_binary_true_on_non_binary_data_is_refused(cli, workdir):
    text = scores_csv({"A": A, "B": B}).replace("A,c,i003,acc,1", "A,c,i003,acc,0.75")
    workdir.write("spec.yaml", spec(metric=", binary: true"))
    workdir.write("s.csv", text)
    r = cli("validate", workdir.path / "spec.yaml")
    assert r.code == 2
    assert "acc" in r.err and "binary" in r.err and "0.75" in r.err and "line 5" in r.err
    assert "Traceback" not in r.err


def test_binary_true_needs_a_mean_metric(cli, workdir):
    workdir.write("spec.yaml", spec(metric=", binary: true, aggregate: ratio, statistics: [x, y]"))
    workdir.write("s.csv", scores_csv({"A": A}))
    r = cli("validate", workdir.path / "spec.yaml")
    assert r.code == 2 and "binary" in r.err and "Traceback" not in r.err


def test_unknown_proportion_ci_is_refused(cli, workdir):
    workdir.write("spec.yaml", spec("\n          proportion_ci: agresti_coull"))
    workdir.write("s.csv", scores_csv({"A": A}))
    r = cli("validate", workdir.path / "spec.yaml")
    assert r.code == 2 and "proportion_ci" in r.err and "wilson" in r.err
