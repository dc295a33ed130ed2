"""Several answers per question (data.columns.sample) and pass@k metrics (metrics.M.pass_at_k) in a build.

Expected values: each question's mean over its answers computed here with numpy; the variance parts from
:func:`sigreport.stats.samples.variance_components` (tested in tests/stats/test_samples.py against the ANOVA
moments); pass@k per question from Chen et al.'s (2021) human-eval numpy estimator, written out below; the
paired t test of the question means with scipy.stats.ttest_rel.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from conftest import build_files
from sigreport.results import from_json
from sigreport.results.io import to_json


def chen_estimator(n: int, c: int, k: int) -> float:
    """human-eval/evaluation.py (Chen et al. 2021)."""
    if n - c < k:
        return 1.0
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def answers(seed: int = 0, questions: int = 30, k: int = 5, short: int | None = 3) -> dict[str, list[list[int]]]:
    """System -> per question its 0/1 answers (question ``short`` has one answer fewer)."""
    rng = np.random.default_rng(seed)
    out: dict[str, list[list[int]]] = {}
    for s, p in (("A", 0.6), ("B", 0.45)):
        out[s] = []
        for q in range(questions):
            pq = float(np.clip(p + rng.normal(0, 0.25), 0, 1))
            out[s].append([int(rng.random() < pq) for _ in range(k - (q == short))])
    return out


def table(data: dict[str, list[list[int]]]) -> str:
    lines = ["system,corpus,item,metric,sample,value"]
    for s, qs in data.items():
        for q, row in enumerate(qs):
            lines += [f"{s},c,q{q:02d},acc,{j},{v}" for j, v in enumerate(row)]
    return "\n".join(lines) + "\n"


def spec(metric: str = ", pass_at_k: [1, 3]") -> str:
    return f"""
        title: t
        alpha: 0.05
        seed: 1
        data: {{scores: s.csv, columns: {{sample: sample}}}}
        metrics: {{acc: {{higher_is_better: true{metric}}}}}
        tests:
          omnibus: none
        """


def by_id(doc: dict, rid: str) -> dict:
    return next(a for a in doc["analyses"] if a["id"] == rid)


def test_question_means_variance_parts_and_pass_at_k(cli, workdir):
    data = answers()
    doc = build_files(cli, workdir, spec(), {"s.csv": table(data)}, formats="json,html")
    assert list(doc["metrics"]) == ["acc", "acc_pass@1", "acc_pass@3"]
    assert doc["metrics"]["acc_pass@3"]["label"] == "acc pass@3"
    means = {s: np.array([np.mean(r) for r in qs]) for s, qs in data.items()}
    desc = by_id(doc, "acc/c/descriptives")
    for row in desc["systems"]:
        assert row["n"] == 30 and row["mean"] == pytest.approx(means[row["system"]].mean())
    assert desc["ci_method"] == "t"  # question means are not 0/1: no proportion interval
    parts = {a["system"]: a for a in desc["answers"]}
    for s, m in means.items():
        a = parts[s]
        assert (a["questions"], a["answers_min"], a["answers_max"]) == (30, 4, 5)
        assert a["se"] == pytest.approx(np.std(m, ddof=1) / np.sqrt(30))
        assert a["se_infinite_answers"] <= a["se_double_answers"] <= a["se"] * 1.0001
        w = np.mean([np.var(r, ddof=1) for r in data[s]])
        assert a["sigma_w2"] == pytest.approx(w)
    assert any("fewer answers" in w and "q03" in w for w in desc["warnings"])
    pair = by_id(doc, "acc/c/pairwise")["pairs"][0]
    ref = stats.ttest_rel(means["A"], means["B"])
    assert pair["pvalue"] == pytest.approx(ref.pvalue, rel=1e-10)
    # pass@1 is the question mean; pass@3 Chen et al.'s estimator per question
    p1 = by_id(doc, "acc_pass@1/c/descriptives")
    assert [r["mean"] for r in p1["systems"]] == pytest.approx([means["A"].mean(), means["B"].mean()])
    p3 = by_id(doc, "acc_pass@3/c/descriptives")
    for row in p3["systems"]:
        want = np.mean([chen_estimator(len(r), sum(r), 3) for r in data[row["system"]]])
        assert row["mean"] == pytest.approx(want, rel=1e-12)
    pw3 = by_id(doc, "acc_pass@3/c/pairwise")["pairs"][0]
    ea = np.array([chen_estimator(len(r), sum(r), 3) for r in data["A"]])
    eb = np.array([chen_estimator(len(r), sum(r), 3) for r in data["B"]])
    assert pw3["pvalue"] == pytest.approx(stats.ttest_rel(ea, eb).pvalue, rel=1e-10)
    html = (workdir.path / "out" / "index.html").read_text(encoding="utf-8")
    assert "Between-question" in html and "Miller 2024" in html and "Chen et al. 2021" in html
    text = (workdir.path / "out" / "results.json").read_text(encoding="utf-8")
    assert to_json(from_json(text)) == text  # the new fields read back into their records


def test_k_above_the_answers_is_refused_with_its_line(cli, workdir):
    workdir.write("spec.yaml", spec(", pass_at_k: [1, 5]"))
    workdir.write("s.csv", table(answers()))
    r = cli("validate", workdir.path / "spec.yaml")
    assert r.code == 2 and "Traceback" not in r.err
    assert "metrics.acc.pass_at_k[1]" in r.err and "pass@5" in r.err and "has 4" in r.err and "line" in r.err


def test_pass_at_k_needs_the_sample_column_and_0_1_answers(cli, workdir):
    workdir.write("spec.yaml", spec().replace(", columns: {sample: sample}", ""))
    workdir.write("s.csv", "system,corpus,item,metric,value\nA,c,q1,acc,1\nB,c,q1,acc,0\n")
    r = cli("validate", workdir.path / "spec.yaml")
    assert r.code == 2 and "data.columns.sample" in r.err
    lines = table(answers()).splitlines()
    lines[1] = lines[1].rsplit(",", 1)[0] + ",0.5"  # A's first answer to q00
    text = "\n".join(lines) + "\n"
    workdir.write("spec.yaml", spec())
    workdir.write("s.csv", text)
    r = cli("validate", workdir.path / "spec.yaml")
    assert r.code == 2 and "0 or 1" in r.err


def test_sample_and_run_together_are_refused(cli, workdir):
    workdir.write("spec.yaml", spec(""))
    workdir.write("s.csv", "system,corpus,item,metric,sample,run,value\nA,c,q1,acc,0,r1,1\nB,c,q1,acc,0,r1,0\n")
    r = cli("validate", workdir.path / "spec.yaml")
    assert r.code == 2 and "data.columns.sample" in r.err and "run" in r.err


def test_duplicate_answers_are_refused(cli, workdir):
    workdir.write("spec.yaml", spec(""))
    workdir.write("s.csv", "system,corpus,item,metric,sample,value\nA,c,q1,acc,0,1\nA,c,q1,acc,0,0\n"
                  "B,c,q1,acc,0,0\n")
    r = cli("validate", workdir.path / "spec.yaml")
    assert r.code == 2 and "duplicate" in r.err
