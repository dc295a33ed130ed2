"""The minimum detectable difference in reports: results.json ``mde`` of every item-level pair, at the level
the correction asks of a pair, and the Conclusions' sentence for the pairs not shown to differ."""

from __future__ import annotations

import math

import pytest

from conftest import CONFIGS, build_files, build_results
from sigreport.analyses.power import comparison_level
from sigreport.stats.power import paired_t_mde


def build_json(cli, tmp_path, name: str, formats: str = "json") -> dict:
    return build_results(cli, CONFIGS / f"{name}.yaml", tmp_path / name, "--no-cache", formats=formats)


def test_comparison_level():
    assert comparison_level(0.05, "none", 10) == 0.05
    assert comparison_level(0.05, "holm", 10) == pytest.approx(0.005)
    assert comparison_level(0.05, "bonferroni", 1) == 0.05
    assert comparison_level(0.05, "fdr_by", 3) == pytest.approx(0.05 / (3 * (1 + 1 / 2 + 1 / 3)))


def test_seed_example_mde_against_r(cli, tmp_path):
    """The source's worked example (digest 1): A = 0.59, 0.58, 0.57; B = 0.39, 0.44, 0.45, one pair.
    R: d <- c(0.59, 0.58, 0.57) - c(0.39, 0.44, 0.45);
       power.t.test(n = 3, sd = sd(d), sig.level = 0.05, power = 0.8, type = "paired", strict = TRUE,
                    tol = 1e-12)$delta = 0.13589296956361"""
    doc = build_json(cli, tmp_path, "summarizers")
    pair = next(a for a in doc["analyses"] if a["kind"] == "pairwise")["pairs"][0]
    assert pair["mde"]["value"] == pytest.approx(0.13589296956361, rel=1e-9)
    assert pair["mde"]["power"] == 0.8 and pair["mde"]["alpha"] == 0.05 and pair["mde"]["method"] == "noncentral_t"


def test_level_follows_the_family(cli, tmp_path):
    """summarization: paired t, Holm over the 10 pairs of each metric and corpus: each pair at 0.05 / 10,
    with the SD of its own differences."""
    doc = build_json(cli, tmp_path, "summarization")
    rec = next(a for a in doc["analyses"] if a["kind"] == "pairwise")
    assert rec["family_size"] == 10
    for p in rec["pairs"]:
        want = paired_t_mde(p["differences"]["sd"], p["n"], 0.005)
        assert p["mde"]["alpha"] == pytest.approx(0.005) and p["mde"]["value"] == pytest.approx(want.mde, rel=1e-12)


def test_rank_tests_are_simulated_and_seeded(cli, tmp_path):
    first = build_json(cli, tmp_path, "demsar")
    again = build_json(cli, tmp_path / "again", "demsar")
    rec = next(a for a in first["analyses"] if a["kind"] == "pairwise")
    assert rec["method"] == "wilcoxon" and all(p["mde"]["method"] == "simulation" for p in rec["pairs"])
    rec2 = next(a for a in again["analyses"] if a["kind"] == "pairwise")
    assert [p["mde"] for p in rec["pairs"]] == [p["mde"] for p in rec2["pairs"]]
    assert all(p["mde"]["value"] > 0 and math.isfinite(p["mde"]["value"]) for p in rec["pairs"])


def test_conclusions_name_what_could_go_unseen(cli, tmp_path):
    build_json(cli, tmp_path, "summarization", "json,html")
    html = (tmp_path / "summarization" / "index.html").read_text(encoding="utf-8")
    assert "pairs not shown to differ, the test had 80% power only for true differences of" in html


def test_power_null_computes_nothing(cli, workdir):
    from conftest import GOOD_DATA, GOOD_SPEC
    workdir.write("scores.csv", GOOD_DATA)
    workdir.write("spec.yaml", GOOD_SPEC + "tests:\n  power: null\n")
    assert cli("build", "-q", "--formats", "json", "-o", workdir.path / "out", workdir.path / "spec.yaml").code == 0
    pair = next(a for a in workdir.results()["analyses"] if a["kind"] == "pairwise")["pairs"][0]
    assert pair["mde"] is None


def test_pair_sds_are_numpys_std_of_each_pairs_differences():
    """All pairs' SDs at once give exactly ``np.std(x[:, a] - x[:, b], ddof=1)`` of each pair (the loop they
    replace), at every size; under two items there is none."""
    import numpy as np

    from sigreport.analyses.power import pair_sds

    rng = np.random.default_rng(3)
    for n in (2, 3, 17, 1000, 4099):
        x = rng.normal(size=(n, 7)) * rng.uniform(0.1, 10, size=7)
        a, b = zip(*[(i, j) for i in range(7) for j in range(i + 1, 7)])
        assert pair_sds(x, list(a), list(b)) == [float(np.std(x[:, i] - x[:, j], ddof=1)) for i, j in zip(a, b)]
    assert pair_sds(np.ones((1, 3)), [0], [1]) == [None]


def synthetic_scores(n_items: int, systems: int, seed: int) -> str:
    """A long score table of ``systems`` systems on ``n_items`` items of one corpus (0/1 scores, as GSM8K's
    exact match, plus a little noise so every pair's differences vary)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    rows = ["system,corpus,item,metric,value"]
    for s in range(systems):
        values = (rng.random(n_items) < 0.5 + 0.03 * s) + rng.normal(0, 0.01, n_items)
        rows += [f"S{s},c,i{i},m,{v:.6f}" for i, v in enumerate(values)]
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize("n_items,pairwise", [(1319, "paired_t"), (2145, "paired_t"), (1319, "bootstrap")])
def test_gsm8k_sized_build_gets_finite_mdes(cli, workdir, n_items, pairwise):
    """1,319 items (GSM8K's test set) and 2,145 items, 5 systems, Holm over the 10 pairs: each pair at
    0.005, where scipy's noncentral t gave NaN inside the MDE search and the build exited 1."""
    spec = ("title: t\ndata:\n  scores: scores.csv\nmetrics:\n  m:\n    higher_is_better: true\n"
            f"tests:\n  pairwise: {pairwise}\n  resamples: 199\n  correction: holm\n")
    doc = build_files(cli, workdir, spec, {"scores.csv": synthetic_scores(n_items, 5, 28)})
    rec = next(a for a in doc["analyses"] if a["kind"] == "pairwise")
    assert rec["family_size"] == 10 and len(rec["pairs"]) == 10
    for p in rec["pairs"]:
        want = paired_t_mde(p["differences"]["sd"], n_items, 0.005)
        assert p["mde"]["alpha"] == pytest.approx(0.005) and math.isfinite(p["mde"]["value"]) and p["mde"]["value"] > 0
        assert p["mde"]["value"] == pytest.approx(want.mde, rel=1e-12)


def test_rank_tests_beyond_the_simulation_budget_get_finite_mdes():
    """Wilcoxon and sign tests above SIMULATION_BUDGET pair-items use the closed form over the efficiency:
    at 1,319 items and Holm's 0.005 it crashed as the paired t did."""
    from sigreport.analyses.power import EFFICIENCY, closed_form
    for method, are in EFFICIENCY.items():
        m = closed_form(0.4, 1319, 0.005, 0.8, "two-sided", "noncentral_t_are", are)
        assert m.mde == pytest.approx(paired_t_mde(0.4, 1319, 0.005).mde / math.sqrt(are), rel=1e-12), method


def test_a_pair_equal_up_to_rounding_gets_no_mde(cli, workdir):
    """B is A - 0.2 on every item in decimal (floats: an SD near 1e-17): its MDE is null with the reason, not a
    difference of 1e-16 computed from rounding error; the other pair keeps its MDE."""
    import numpy as np
    a = np.round(np.random.default_rng(5).uniform(0.3, 0.9, 12), 2)
    rows = ["system,corpus,item,metric,value"]
    for name, v in (("A", a), ("B", np.round(a - 0.2, 2)), ("C", np.round(a[::-1], 2))):
        rows += [f"{name},c,i{i},m,{float(x)!r}" for i, x in enumerate(v)]
    spec = "title: t\ndata:\n  scores: scores.csv\nmetrics:\n  m:\n    higher_is_better: true\n"
    doc = build_files(cli, workdir, spec, {"scores.csv": "\n".join(rows) + "\n"})
    pairs = {(p["a"], p["b"]): p for p in next(a for a in doc["analyses"] if a["kind"] == "pairwise")["pairs"]}
    assert pairs[("A", "B")]["mde"]["value"] is None
    assert pairs[("A", "B")]["mde"]["warnings"] == ["no minimum detectable difference: the differences do not vary"]
    assert pairs[("A", "C")]["mde"]["value"] > 0
