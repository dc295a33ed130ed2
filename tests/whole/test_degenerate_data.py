"""Degenerate data through the whole pipeline: warnings in the report, never a crash or a silent NaN."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import yaml

from conftest import build_results


def _write(tmp_path, scores: np.ndarray, suffix: str = ".csv"):
    n, k = scores.shape
    rows = [(f"S{j}", "c", f"i{i}", "m", repr(float(scores[i, j]))) for j in range(k) for i in range(n)]
    path = tmp_path / f"s{suffix}"
    if suffix == ".jsonl":
        path.write_text("".join(json.dumps(dict(zip(["system", "corpus", "item", "metric", "value"], r))) + "\n"
                                for r in rows))
    else:
        with path.open("w", newline="") as fh:
            w = csv.writer(fh, delimiter="\t" if suffix == ".tsv" else ",")
            w.writerow(["system", "corpus", "item", "metric", "value"])
            w.writerows(rows)
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump({
        "title": "degenerate", "data": {"scores": path.name},
        "metrics": {"m": {"higher_is_better": True}}}))
    return tmp_path / "spec.yaml"


def _build(cli, spec, tmp_path):
    doc = build_results(cli, spec, tmp_path / "out", formats="json,html,latex")
    return doc, (tmp_path / "out" / "index.html").read_text()


def test_24_systems_100_items_singular_covariance(cli, tmp_path):
    # The source's SPSS case (seed 000): 24 summarizers x 100 texts with W ~ 0 and no finite chi-square.
    # Low-rank scores make the contrast covariance (near) singular.
    rng = np.random.default_rng(24)
    scores = rng.normal(size=(100, 3)) @ rng.normal(size=(3, 24)) * 0.05 + 0.4
    doc, html = _build(cli, _write(tmp_path, scores), tmp_path)
    om = next(a for a in doc["analyses"] if a["kind"] == "omnibus")
    assert om["sphericity"]["chi2"] is None and om["sphericity"]["pvalue"] is None
    assert om["sphericity"]["mauchly_w"] == pytest.approx(0.0, abs=1e-12)
    assert om["correction_applied"] in ("greenhouse_geisser", "huynh_feldt")
    assert om["warnings"] and "Mauchly" in html
    assert len(next(a for a in doc["analyses"] if a["kind"] == "pairwise")["pairs"]) == 276


def test_more_systems_than_items(cli, tmp_path):
    scores = np.array([[0.1, 0.2, 0.3, 0.5, 0.4], [0.2, 0.2, 0.4, 0.45, 0.3], [0.15, 0.3, 0.35, 0.5, 0.2]])
    doc, html = _build(cli, _write(tmp_path, scores), tmp_path)
    om = next(a for a in doc["analyses"] if a["kind"] == "omnibus")
    assert om["statistic"] is not None and om["sphericity"]["mauchly_w"] is None
    assert any("k - 1" in w or "k-1" in w or "items" in w for w in om["warnings"])


@pytest.mark.parametrize("suffix", [".tsv", ".jsonl"])
def test_identical_systems_and_one_item(cli, tmp_path, suffix):
    scores = np.array([[0.5, 0.5, 0.7]])
    doc, html = _build(cli, _write(tmp_path, scores, suffix), tmp_path)
    pw = next(a for a in doc["analyses"] if a["kind"] == "pairwise")
    for p in pw["pairs"]:
        assert p["pvalue"] is None or p["pvalue"] == 1.0
        assert p["warnings"]
    assert "Warnings" in html


def test_zero_variance_differences(cli, tmp_path):
    scores = np.array([[0.5, 0.4], [0.6, 0.5], [0.7, 0.6]])
    doc, html = _build(cli, _write(tmp_path, scores), tmp_path)
    p = next(a for a in doc["analyses"] if a["kind"] == "pairwise")["pairs"][0]
    assert p["statistic"] is None and p["pvalue"] is None
    assert "zero variance" in html


def test_parquet_scores(cli, tmp_path):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    spec = _write(tmp_path, np.array([[0.5, 0.4], [0.6, 0.45], [0.7, 0.62]]))
    df = pd.read_csv(tmp_path / "s.csv")
    df.to_parquet(tmp_path / "s.parquet")
    spec.write_text(spec.read_text().replace("s.csv", "s.parquet"))
    doc, _ = _build(cli, spec, tmp_path)
    assert next(a for a in doc["analyses"] if a["kind"] == "pairwise")["pairs"][0]["n"] == 3
