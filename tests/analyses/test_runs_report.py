"""Several training runs per system (a ``run`` column): the tests over items read the run-averaged scores, the
runs analysis gives each system's per-run values, the two-level bootstrap and almost stochastic order, and the
Conclusions and the main table speak of the runs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from conftest import build_results

SPEC = """
title: runs
data:
  scores: scores.csv
metrics:
  acc:
    higher_is_better: true
    decimals: 3
tests:
  resamples: 1000
{extra}
"""


def write(workdir, systems: dict[str, tuple[float, int, float]], n: int = 60, seed: int = 2, item_sd: float = 0.05,
          extra: str = "", drop: tuple[str, str, str] | None = None) -> dict[str, np.ndarray]:
    """systems: name -> (shift, runs, run-effect SD). Returns name -> (items, runs) scores as written."""
    rng = np.random.default_rng(seed)
    item = rng.normal(0.6, 0.1, n)
    rows, out = ["system,corpus,item,run,metric,value"], {}
    for s, (shift, runs, run_sd) in systems.items():
        x = item[:, None] + shift + rng.normal(0, run_sd, (1, runs)) + rng.normal(0, item_sd, (n, runs))
        x = np.round(x, 5)
        out[s] = x
        for r in range(runs):
            for i in range(n):
                if drop != (s, f"t{i}", f"seed{r}"):
                    rows.append(f"{s},dev,t{i},seed{r},acc,{x[i, r]:.5f}")
    workdir.write("scores.csv", "\n".join(rows) + "\n")
    workdir.write("spec.yaml", SPEC.format(extra=extra))
    return out


def build(cli, workdir, formats: str = "json,html") -> dict:
    return build_results(cli, workdir.path / "spec.yaml", workdir.path / "out", "--no-cache", formats=formats)


def kind(doc: dict, k: str) -> dict:
    return next(a for a in doc["analyses"] if a["kind"] == k)


def test_tests_over_items_read_the_run_averaged_scores(cli, workdir):
    x = write(workdir, {"A": (0.03, 5, 0.01), "B": (0.0, 5, 0.01), "C": (0.01, 3, 0.01)})
    doc = build(cli, workdir, "json")
    means = {s: v.mean(axis=1) for s, v in x.items()}
    desc = {s["system"]: s["mean"] for s in kind(doc, "descriptives")["systems"]}
    assert desc == pytest.approx({s: m.mean() for s, m in means.items()}, rel=1e-9)
    pair = next(p for p in kind(doc, "pairwise")["pairs"] if (p["a"], p["b"]) == ("A", "B"))
    # scipy.stats.ttest_rel on each system's scores averaged over its runs
    assert pair["pvalue"] == pytest.approx(stats.ttest_rel(means["A"], means["B"]).pvalue, rel=1e-9)


def test_the_runs_analysis(cli, workdir):
    x = write(workdir, {"A": (0.03, 5, 0.01), "B": (0.0, 5, 0.01), "C": (0.002, 6, 0.01)})
    doc = build(cli, workdir, "json")
    runs = kind(doc, "runs")
    per_run = {s["system"]: s for s in runs["systems"]}
    for s, v in x.items():
        assert per_run[s]["values"] == pytest.approx(list(v.mean(axis=0)), rel=1e-12)
        assert per_run[s]["sd"] == pytest.approx(float(v.mean(axis=0).std(ddof=1)), rel=1e-9)
        assert per_run[s]["runs"] == [f"seed{r}" for r in range(v.shape[1])]
    assert runs["aso_confidence"] == pytest.approx(1 - 0.05 / 3)  # Bonferroni over the three pairs
    ab = next(p for p in runs["pairs"] if (p["a"], p["b"]) == ("A", "B"))
    assert ab["estimate"] == pytest.approx(x["A"].mean() - x["B"].mean(), rel=1e-9)
    assert ab["ci_low"] < ab["estimate"] < ab["ci_high"] and ab["decision"] == "a_better"
    # deepsig 1.2.8 on the same per-run values, its own draws (seed 1): the same eps_min within Monte Carlo error
    # (a bootstrap of 1,000 replicates moves eps_min by about 0.01 here)
    from deepsig import aso
    bc = next(p for p in runs["pairs"] if (p["a"], p["b"]) == ("B", "C"))
    want = aso(list(x["B"].mean(axis=0)), list(x["C"].mean(axis=0)), confidence_level=1 - 0.05 / 3,
               num_bootstrap_iterations=1000, seed=1, num_jobs=1, show_progress=False)
    assert bc["eps_min_ab"] == pytest.approx(float(want), abs=0.05)


def test_conclusions_and_main_table_speak_of_the_runs(cli, workdir):
    """Many items and a large spread between runs: the paired t test over items separates A and B, the runs do
    not (their difference is below one system's run SD); the Conclusions say both."""
    write(workdir, {"A": (0.01, 5, 0.03), "B": (0.0, 5, 0.03)}, n=400, item_sd=0.02, seed=5,
          extra="outputs:\n  main_table: {cell: value_sd}")
    doc = build(cli, workdir)
    html = (workdir.path / "out" / "index.html").read_text(encoding="utf-8")
    pair = kind(doc, "pairwise")["pairs"][0]
    runs = kind(doc, "runs")
    assert pair["significant"] is True and runs["pairs"][0]["decision"] == "undecided"
    assert "smaller than the spread between one system&#39;s training runs" in html
    assert "stochastic order over the training runs (Dror et al. 2019), also shown below, finds neither A nor B " \
           "better" in html
    sd_a = f"{runs['systems'][0]['sd']:.3f}"
    assert f"\u00b1 {sd_a}" in html and "standard deviation over each system&#39;s training runs" in html


def test_an_item_missing_from_one_run_is_a_hole(cli, workdir):
    write(workdir, {"A": (0.03, 3, 0.01), "B": (0.0, 3, 0.01)}, drop=("A", "t7", "seed1"))
    r = cli("validate", workdir.path / "spec.yaml")
    assert r.code == 2 and "A lacks item 't7'" in r.err and "Traceback" not in r.err
    workdir.write("spec.yaml", SPEC.format(extra="").replace("  scores: scores.csv", "  scores: scores.csv\n  missing: drop_items"))
    doc = build(cli, workdir, "json")
    assert kind(doc, "descriptives")["dropped_items"] == 1 and kind(doc, "runs")["n_items"] == 59


def test_a_duplicate_row_names_the_run(cli, workdir):
    write(workdir, {"A": (0.03, 2, 0.01), "B": (0.0, 2, 0.01)}, n=5)
    text = (workdir.path / "scores.csv").read_text()
    workdir.write("scores.csv", text + text.splitlines()[1] + "\n")
    r = cli("validate", workdir.path / "spec.yaml")
    assert r.code == 2 and "duplicate (system, corpus, item, metric, run) rows" in r.err
