"""A leaderboard's build: the pairs side file of a large results.json (results-pairs.jsonl.zst) read back by
``sigreport.results.read``, and a 60-system family's pair statistics (whole-matrix algebra) against the per-pair
reference ``scipy.stats.ttest_rel`` (called here), the same bytes with ``SIGREPORT_PLAIN=1``."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from conftest import cli_build
from scipy import stats as sps

from sigreport import results as results_pkg
from sigreport.archive.documents import read_results_document
from sigreport.results import io


def _scores(path: Path, k: int, n: int, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.round(0.5 + 0.002 * np.arange(k)[None, :] + 0.1 * rng.standard_normal((n, 1))
                 + 0.1 * rng.standard_normal((n, k)), 4)
    lines = ["system,corpus,item,value"] + [f"S{s},c,i{i},{float(x[i, s])!r}" for s in range(k) for i in range(n)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return x


def _spec(folder: Path, tests: str) -> Path:
    spec = folder / "spec.yaml"
    spec.write_text("title: leaderboard\nseed: 1\ndata: {scores: scores.csv}\n"
                    "metrics:\n  m: {higher_is_better: true, decimals: 3}\n"
                    f"tests: {tests}\noutputs: {{formats: [json]}}\n", encoding="utf-8")
    return spec


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> tuple[Path, np.ndarray]:
    folder = tmp_path_factory.mktemp("board")
    x = _scores(folder / "scores.csv", 60, 200)
    return _spec(folder, "{pairwise: paired_t, correction: holm, omnibus: none}"), x


def test_sixty_systems_match_ttest_rel_and_holm(cli, board, tmp_path) -> None:
    spec, x = board
    cli_build(spec, tmp_path / "out", "--no-cache", "--jobs", "1", formats=None, cli=cli)
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    rec = next(a for a in doc["analyses"] if a["kind"] == "pairwise")
    assert len(rec["pairs"]) == 60 * 59 // 2
    raw = []
    for p in rec["pairs"]:
        i, j = int(p["a"][1:]), int(p["b"][1:])
        ref = sps.ttest_rel(x[:, i], x[:, j])
        assert abs(p["statistic"] - ref.statistic) <= 1e-10 * max(1, abs(ref.statistic))
        assert abs(p["pvalue"] - ref.pvalue) <= 1e-10
        raw.append(ref.pvalue)
    # Holm (R's p.adjust "holm"): min(1, running max of (m - i + 1) p_(i)) in ascending order, written out here
    order = np.argsort(raw, kind="stable")
    m = len(raw)
    holm = np.empty(m)
    holm[order] = np.minimum(1, np.maximum.accumulate((m - np.arange(m)) * np.asarray(raw)[order]))
    assert max(abs(p["pvalue_adjusted"] - h) for p, h in zip(rec["pairs"], holm)) <= 1e-9
    assert any("Shapiro-Wilk of the pairs' differences not run" in w for w in rec["warnings"])


def test_sixty_systems_same_bytes_on_the_plain_path(cli, board, tmp_path, monkeypatch) -> None:
    spec, _ = board
    cli_build(spec, tmp_path / "fast", "--no-cache", "--jobs", "1", formats=None, cli=cli)
    monkeypatch.setenv("SIGREPORT_PLAIN", "1")
    cli_build(spec, tmp_path / "plain", "--no-cache", "--jobs", "1", formats=None, cli=cli)
    assert (tmp_path / "fast" / "results.json").read_bytes() == (tmp_path / "plain" / "results.json").read_bytes()


def test_pairs_side_file_round_trip(cli, tmp_path, monkeypatch) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    _scores(folder / "scores.csv", 48, 40)
    spec = _spec(folder, "{pairwise: bootstrap, resamples: 199, correction: holm, omnibus: none}")
    cli_build(spec, tmp_path / "whole", "--no-cache", "--jobs", "1", formats=None, cli=cli)
    whole = (tmp_path / "whole" / "results.json").read_text(encoding="utf-8")
    assert not (tmp_path / "whole" / io.PAIRS_FILE).exists()
    monkeypatch.setattr(io, "PAIRS_LIMIT", 1000)  # as if results.json were over 100 MB
    cli_build(spec, tmp_path / "split", "--no-cache", "--jobs", "1", formats=None, cli=cli)
    text = (tmp_path / "split" / "results.json").read_text(encoding="utf-8")
    side = (tmp_path / "split" / io.PAIRS_FILE).read_bytes()
    doc = json.loads(text)
    info = doc["pairs_file"]
    assert info["path"] == io.PAIRS_FILE and info["sha256"] == hashlib.sha256(side).hexdigest()
    rec = next(a for a in doc["analyses"] if a["kind"] == "pairwise")
    assert rec["pairs"] == [] and info["analyses"] == {rec["id"]: 48 * 47 // 2}
    assert len(text) < len(whole) / 5
    back = results_pkg.read(tmp_path / "split")
    assert io.to_json(back) == whole  # every pair back, the same bytes as the single-file results.json
    assert io.to_json_files(back) == (text, side)  # and written again, the same two files
    with pytest.raises(ValueError, match="sigreport.results.read"):
        io.from_json(text)
    archived = read_results_document(tmp_path / "split" / "results.json")  # diff, releases, gate read this
    assert archived["analyses"] == json.loads(whole)["analyses"]
    (tmp_path / "split" / io.PAIRS_FILE).write_bytes(side[:-1] + bytes([side[-1] ^ 1]))
    with pytest.raises(ValueError, match="sha256"):
        results_pkg.read(tmp_path / "split" / "results.json")
