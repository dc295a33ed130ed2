"""A clustered spec end to end (data.columns.cluster): exit 0, the report's G, design effect and effective items,
results.json's ``clusters``, the clustered paired t and the cluster bootstrap; bad input exit 2 with its line."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import assert_user_error, build_files
from sigreport.results.io import from_json, to_json
from sigreport.stats import cluster

sm = pytest.importorskip("statsmodels.api")

SPEC = """
title: Clustered questions
seed: 3
data:
  scores: scores.csv
  columns:
    cluster: passage
metrics:
  acc:
    higher_is_better: true
tests:
  resamples: 999
{extra}
"""


def scores_csv(G: int = 25, seed: int = 0, one_cluster: bool = False) -> tuple[str, dict]:
    """0/1 answers of three systems to questions sharing passages (a passage effect: ICC about 0.3)."""
    rng = np.random.default_rng(seed)
    lines = ["system,corpus,item,metric,value,passage"]
    by_system: dict = {"A": [], "B": [], "C": [], "g": []}
    for g in range(G):
        u = rng.normal(0, 1.2)
        for i in range(int(rng.integers(2, 9))):
            by_system["g"].append(g)
            for s, shift in (("A", 0.4), ("B", 0.0), ("C", 0.1)):
                v = int(rng.random() < 1 / (1 + np.exp(-(u + shift))))
                by_system[s].append(v)
                lines.append(f"{s},bench,q{g}_{i},acc,{v},{'p' if one_cluster else f'p{g}'}")
    return "\n".join(lines) + "\n", by_system


def test_clustered_build(cli, workdir):
    csv, data = scores_csv()
    # binary: false: the mean's cluster-robust t interval (the 0/1 default, the proportion interval on the
    # effective n, is test_clustered_binary_interval's)
    spec = SPEC.format(extra="").replace("higher_is_better: true", "higher_is_better: true\n    binary: false")
    doc = build_files(cli, workdir, spec, {"scores.csv": csv}, formats="json,html")
    desc = next(a for a in doc["analyses"] if a["kind"] == "descriptives")
    assert desc["ci_method"] == "cluster_t"
    G = len(set(data["g"]))
    g = np.array(data["g"])
    for row in desc["systems"]:
        y = np.array(data[row["system"]], dtype=float)
        fit = sm.OLS(y, np.ones((len(y), 1))).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)
        lo, hi = fit.conf_int(alpha=0.05)[0]
        assert row["ci_low"] == pytest.approx(lo, rel=1e-10) and row["ci_high"] == pytest.approx(hi, rel=1e-10)
        iid = y.std(ddof=1) / np.sqrt(len(y))
        assert row["clusters"]["G"] == G
        assert row["clusters"]["design_effect"] == pytest.approx((float(fit.bse[0]) / iid) ** 2, rel=1e-10)
        assert row["clusters"]["effective_n"] == pytest.approx(len(y) / row["clusters"]["design_effect"], rel=1e-12)
        assert row["clusters"]["design_effect"] > 1.3  # the passage effect is real
    assert any(f"G = {G} clusters" in w and "design effect" in w for w in desc["warnings"])
    pw = next(a for a in doc["analyses"] if a["kind"] == "pairwise")
    assert pw["method"] == "paired_t"
    for p in pw["pairs"]:
        d = np.array(data[p["a"]], dtype=float) - np.array(data[p["b"]], dtype=float)
        fit = sm.OLS(d, np.ones((len(d), 1))).fit(cov_type="cluster", cov_kwds={"groups": g}, use_t=True)
        assert p["df"] == G - 1 and p["n"] == len(d)
        assert p["statistic"] == pytest.approx(float(fit.tvalues[0]), rel=1e-10)
        assert p["pvalue"] == pytest.approx(float(fit.pvalues[0]), rel=1e-8)
        assert p["clusters"]["G"] == G and p["mde"]["method"] == "noncentral_t_clustered"
        assert p["effect_sizes"] is None  # their intervals would assume independent items
    assert not [a for a in doc["analyses"] if a["kind"] in ("omnibus", "posthoc")]
    assert any("omnibus and post-hoc tests are not run" in w for w in desc["warnings"])
    text = (workdir.path / "out" / "results.json").read_text(encoding="utf-8")
    assert to_json(from_json(text)) == text
    methods = (workdir.path / "out" / "methods.md").read_text(encoding="utf-8")
    assert "cluster-robust (CR1)" in methods and "Liang and Zeger 1986" in methods and "Miller 2024" in methods
    html = (workdir.path / "out" / "index.html").read_text(encoding="utf-8")
    assert f"G = {G} clusters" in html


@pytest.mark.parametrize("method", ["bootstrap", "permutation"])
def test_resampling_tests_draw_whole_clusters(cli, workdir, method):
    """The cluster bootstrap's interval of a difference is about the clustered t interval (both reflect the
    between-cluster spread), wider than the i.i.d. one where the design effect is large; every pair keeps its
    item count."""
    csv, data = scores_csv(G=40, seed=2)
    doc = build_files(cli, workdir, SPEC.format(extra=f"  pairwise: {method}"), {"scores.csv": csv})
    pw = next(a for a in doc["analyses"] if a["kind"] == "pairwise")
    g = np.array(data["g"])
    codes, G = cluster.codes(g)
    for p in pw["pairs"]:
        d = np.array(data[p["a"]], dtype=float) - np.array(data[p["b"]], dtype=float)
        cm = cluster.clustered_means(d[:, None], codes, G)
        assert p["n"] == len(d) and p["clusters"]["G"] == G
        width = p["ci_high"] - p["ci_low"]
        assert width == pytest.approx(2 * 1.96 * float(cm.se[0]), rel=0.25)
        if cm.design_effect[0] > 1.5:  # where the clusters matter, wider than the item-level interval
            assert width > 2 * 1.96 * float(cm.se_iid[0]) * 1.1


def test_bad_clustered_input(cli, workdir):
    csv, _ = scores_csv()
    workdir.write("scores.csv", csv)
    cases = {
        "missing": (SPEC.format(extra="").replace("cluster: passage", "cluster: passages"),
                    ["missing column 'passages'"]),
        "wilcoxon": (SPEC.format(extra="  pairwise: wilcoxon"),
                     ["tests.pairwise", "wilcoxon has no clustered version", "paired_t, bootstrap, permutation"]),
        "omnibus": (SPEC.format(extra="  omnibus: friedman"), ["tests.omnibus", "set tests.omnibus: none"]),
        "cv": (SPEC.format(extra="  design: kfold"), ["data.columns.cluster", "tests.level items"]),
    }
    for name, (spec, fragments) in cases.items():
        path = workdir.write(f"{name}.yaml", spec)
        assert_user_error(cli, path, workdir.path / f"out_{name}", name, fragments)
    lines = csv.splitlines()
    lines[2] = lines[2].rsplit(",", 1)[0] + ",elsewhere"  # system B's row of item q0_0 in another cluster
    workdir.write("two.csv", "\n".join(lines) + "\n")
    path = workdir.write("two.yaml", SPEC.format(extra="").replace("scores.csv", "two.csv"))
    assert_user_error(cli, path, workdir.path / "out_two", "two clusters",
                      ["two.csv", "column 'passage': an item has one cluster", "item 'q0_0'", "lines 2, 3"])
    one, _ = scores_csv(one_cluster=True)
    workdir.write("one.csv", one)
    path = workdir.write("one.yaml", SPEC.format(extra="").replace("scores.csv", "one.csv"))
    assert_user_error(cli, path, workdir.path / "out_one", "one cluster", ["needs at least 2 clusters"])


def test_power_command_uses_the_design_effect(cli, workdir):
    csv, data = scores_csv()
    workdir.write("scores.csv", csv)
    path = workdir.write("spec.yaml", SPEC.format(extra=""))
    r = cli("power", "--difference", "0.1", path)
    assert r.code == 0, r.err
    assert "clustered items" in r.out and "clusters needed" in r.out


STRATA_SPEC = """
title: Stratified benchmark
seed: 3
data:
  scores: scores.csv
  columns:
    stratum: subject
metrics:
  acc:
    higher_is_better: true
    average: macro
tests:
  resamples: 999
{extra}
"""


def strata_csv(seed: int = 1) -> tuple[str, dict]:
    rng = np.random.default_rng(seed)
    lines = ["system,corpus,item,metric,value,subject"]
    data: dict = {"A": [], "B": [], "s": []}
    for subject, n, level in (("math", 60, 0.3), ("law", 6, 0.8), ("bio", 25, 0.5)):
        for i in range(n):
            data["s"].append(subject)
            for system, shift in (("A", 0.1), ("B", 0.0)):
                v = int(rng.random() < level + shift)
                data[system].append(v)
                lines.append(f"{system},bench,{subject}{i},acc,{v},{subject}")
    return "\n".join(lines) + "\n", data


@pytest.mark.parametrize("method", ["paired_t", "bootstrap"])
def test_macro_average_build(cli, workdir, method):
    """metrics.acc.average: macro: each system's mean is the mean of its per-subject means (not the item mean),
    its interval and the pairs' tests respect the strata; results.json carries ``strata``."""
    from sigreport.stats import strata

    csv, data = strata_csv()
    doc = build_files(cli, workdir, STRATA_SPEC.format(extra=f"  pairwise: {method}"), {"scores.csv": csv},
                      formats="json,html")
    desc = next(a for a in doc["analyses"] if a["kind"] == "descriptives")
    s = np.array(data["s"])
    for row in desc["systems"]:
        y = np.array(data[row["system"]], dtype=float)
        want = np.mean([y[s == k].mean() for k in ("math", "law", "bio")])
        assert row["mean"] == pytest.approx(want, rel=1e-12) and row["mean"] != pytest.approx(y.mean())
        assert row["strata"]["S"] == 3 and row["n"] == len(y)
    assert any("macro average over S = 3 strata" in w for w in desc["warnings"])
    pw = next(a for a in doc["analyses"] if a["kind"] == "pairwise")
    codes, S = cluster.codes(s)
    d = np.array(data["A"], dtype=float) - np.array(data["B"], dtype=float)
    mm = strata.macro_means(d[:, None], codes, S)
    p = pw["pairs"][0]
    assert p["estimate"] == pytest.approx(float(mm.mean[0]), rel=1e-9) and p["strata"]["S"] == 3
    if method == "paired_t":
        assert p["df"] == pytest.approx(float(mm.df[0]), rel=1e-12)
        assert p["mde"]["method"] == "noncentral_t_stratified"
    else:
        assert p["ci_high"] - p["ci_low"] == pytest.approx(2 * 1.96 * float(mm.se[0]), rel=0.2)
    methods = (workdir.path / "out" / "methods.md").read_text(encoding="utf-8")
    assert "is a macro average" in methods and "Welch-Satterthwaite" in methods and "Cochran 1977" in methods


def test_bad_macro_input(cli, workdir):
    csv, _ = strata_csv()
    workdir.write("scores.csv", csv)
    cases = {
        "no stratum": (STRATA_SPEC.format(extra="").replace("    stratum: subject\n", "    value: value\n"),
                       ["metrics.acc.average", "data.columns.stratum"]),
        "wilcoxon": (STRATA_SPEC.format(extra="  pairwise: wilcoxon"), ["tests.pairwise", "does not respect the strata"]),
    }
    for name, (spec, fragments) in cases.items():
        path = workdir.write(f"{name.replace(' ', '_')}.yaml", spec)
        assert_user_error(cli, path, workdir.path / f"out_{name.replace(' ', '_')}", name, fragments)
    lines = csv.splitlines()
    lines = [ln for ln in lines if not ln.split(",")[2].startswith("law") or ln.split(",")[2] == "law0"]
    workdir.write("lone.csv", "\n".join(lines) + "\n")
    path = workdir.write("lone.yaml", STRATA_SPEC.format(extra="").replace("scores.csv", "lone.csv"))
    assert_user_error(cli, path, workdir.path / "out_lone", "lone", ["stratum 'law'", "at least 2 items per stratum"])


def test_power_command_for_a_macro_average(cli, workdir):
    """The items needed for the macro average's t: at them the power (noncentral t, df and n_eff grown in
    proportion) reaches the target, one item fewer does not."""
    from sigreport.stats import power, strata

    csv, data = strata_csv()
    workdir.write("scores.csv", csv)
    path = workdir.write("spec.yaml", STRATA_SPEC.format(extra=""))
    r = cli("power", "--difference", "0.1", "--format", "json", path)
    assert r.code == 0, r.err
    import json

    plan = json.loads(r.out)["pairs"][0]
    d = np.array(data["A"], dtype=float) - np.array(data["B"], dtype=float)
    codes, S = cluster.codes(np.array(data["s"]))
    mm = strata.macro_means(d[:, None], codes, S)
    n, deff, df, dz = len(d), float(mm.design_effect[0]), float(mm.df[0]), 0.1 / d.std(ddof=1)
    need = plan["items_needed"]
    assert power.clustered_t_power(dz, need / deff, 1 + df * need / n, 0.05) >= 0.8
    assert power.clustered_t_power(dz, (need - 1) / deff, 1 + df * (need - 1) / n, 0.05) < 0.8
    assert "macro average over 3 strata" in plan["note"]


def test_clustered_binary_interval(cli, workdir):
    """0/1 scores in clusters (binary detected): each system's interval is Wilson's on Korn and Graubard's (1998)
    effective number of items n* = min(p(1 - p)/v, n) (z/t_{G-1})^2, v the CR1 variance of p; reference: statsmodels
    ``proportion_confint(p * n*, n*, alpha=0.05, method="wilson")`` with v from
    ``OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": g})`` and scipy's t and normal quantiles."""
    from scipy import stats
    from statsmodels.stats.proportion import proportion_confint

    csv, data = scores_csv()
    doc = build_files(cli, workdir, SPEC.format(extra=""), {"scores.csv": csv}, formats="json")
    desc = next(a for a in doc["analyses"] if a["kind"] == "descriptives")
    assert desc["ci_method"] == "wilson"
    g = np.array(data["g"])
    G = len(np.unique(g))
    for row in desc["systems"]:
        y = np.array(data[row["system"]], dtype=float)
        fit = sm.OLS(y, np.ones((len(y), 1))).fit(cov_type="cluster", cov_kwds={"groups": g})
        p = y.mean()
        df_factor = (stats.norm.ppf(0.975) / stats.t.ppf(0.975, G - 1)) ** 2
        n_kg = min(p * (1 - p) / float(fit.bse[0]) ** 2, len(y)) * df_factor
        lo, hi = proportion_confint(p * n_kg, n_kg, alpha=0.05, method="wilson")
        assert row["ci_low"] == pytest.approx(lo, rel=1e-9) and row["ci_high"] == pytest.approx(hi, rel=1e-9)
        assert 0 < row["ci_low"] < row["mean"] < row["ci_high"] < 1
    pair = next(a for a in doc["analyses"] if a["kind"] == "pairwise")
    assert pair["ci_method"] is None  # the clustered paired t's own interval, not Newcombe's
    assert any("Newcombe's paired interval assumes independent items" in w for w in pair["warnings"])


def test_settings_rows_name_the_clusters_and_the_proportion_interval(cli, workdir):
    """The report's Settings table: a "Clusters" row (the data.columns.cluster column and G per corpus) and a
    "Proportion interval" row (tests.proportion_ci's interval, on Korn and Graubard's effective items with
    clusters); without clusters the pairs' Newcombe interval is named instead, and no Clusters row."""
    import html as html_lib
    import re

    csv, data = scores_csv()
    G = len(set(data["g"]))
    build_files(cli, workdir, SPEC.format(extra="  proportion_ci: jeffreys"), {"scores.csv": csv}, formats="json,html")
    page = html_lib.unescape((workdir.path / "out" / "index.html").read_text())
    rows = dict(re.findall(r"<tr><td>([^<]+)</td><td>([^<]*)</td></tr>", page))
    assert rows["Clusters"].startswith(f"column passage: G = {G} on ")
    assert rows["Clusters"].endswith("; each analysis states its design effect and effective items")
    assert rows["Proportion interval"] == (
        "Jeffreys interval (tests.proportion_ci: jeffreys) for acc: every score 0 or 1; with clusters on Korn and "
        "Graubard's effective items min((n \u2212 1)/deff, n) \u00d7 (z/t)\u00b2")
    # the methods paragraph names the clustered proportion interval and the clustered MDE
    assert "with clustered items on the effective number of items min((n \u2212 1)/deff, n)" in page
    assert "(Korn and Graubard 1998)" in page
    assert ("The minimum detectable difference of the clustered paired t is the noncentral t's on G \u2212 1 "
            "degrees of freedom") in page
    plain = SPEC.format(extra="").replace("  columns:\n    cluster: passage\n", "")
    build_files(cli, workdir, plain, {"scores.csv": csv}, formats="json,html")
    page = html_lib.unescape((workdir.path / "out" / "index.html").read_text())
    rows = dict(re.findall(r"<tr><td>([^<]+)</td><td>([^<]*)</td></tr>", page))
    assert "Clusters" not in rows and "Korn and Graubard" not in page
    assert rows["Proportion interval"] == (
        "Wilson score interval (tests.proportion_ci: wilson) for acc: every score 0 or 1; pairs: Newcombe's score "
        "interval for paired proportions (method 10) for acc")
