"""TREC runs and qrels (data.scores format trec): per-query values from ir_measures (pytrec_eval), checked
against ir_measures' and ranx's own aggregate values on the same runs, and bad native input."""

from __future__ import annotations

import shutil

import pytest
from conftest import CONFIGS

import sigreport
from sigreport.data import load_data

ir_measures = pytest.importorskip("ir_measures")
MEASURES = ["nDCG@10", "RR", "AP"]


@pytest.fixture
def collection(tmp_path):
    shutil.copytree(CONFIGS / "data" / "trec", tmp_path / "trec")
    return tmp_path


def spec_of(**extra):
    return {"title": "t", "data": {"scores": {"format": "trec", "runs": "trec/runs/*.run", "qrels": "trec/qrels.txt",
                                              "measures": MEASURES, **extra}}}


def means(folder, **extra):
    ds = load_data(sigreport.load_spec(spec_of(**extra), base_dir=folder))
    corpus = ds.corpora[0]
    return ds, {m: dict(zip(ds.blocks[(m, corpus)].systems, ds.blocks[(m, corpus)].scores.mean(axis=0)))
                for m in MEASURES}


def test_means_equal_ir_measures_and_ranx_aggregates(collection):
    ds, got = means(collection)
    assert ds.corpora == ("qrels",) and len(ds.blocks[("AP", "qrels")].items) == 30
    qrels = list(ir_measures.read_trec_qrels(str(collection / "trec" / "qrels.txt")))
    for system in ("bm25", "dense", "rerank"):
        path = str(collection / "trec" / "runs" / f"{system}.run")
        agg = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in MEASURES], qrels,
                                         list(ir_measures.read_trec_run(path)))
        for m in MEASURES:
            assert got[m][system] == pytest.approx(agg[ir_measures.parse_measure(m)], rel=1e-12)


@pytest.mark.slow  # ranx compiles its measures with numba on first use (about a minute)
def test_means_equal_ranx(collection):
    ranx = pytest.importorskip("ranx")
    _, got = means(collection)
    rq = ranx.Qrels.from_file(str(collection / "trec" / "qrels.txt"), kind="trec")
    for system in ("bm25", "dense", "rerank"):
        run = ranx.Run.from_file(str(collection / "trec" / "runs" / f"{system}.run"), kind="trec")
        # ranx's names of the same measures: ndcg@10 (trec_eval's gain: linear), mrr, map
        found = ranx.evaluate(rq, run, ["ndcg@10", "mrr", "map"])
        for m, r in zip(MEASURES, ("ndcg@10", "mrr", "map")):
            assert got[m][system] == pytest.approx(found[r], rel=1e-9), (system, m)


def test_a_query_a_run_misses_scores_zero_or_is_dropped(collection):
    run = collection / "trec" / "runs" / "dense.run"
    run.write_text("".join(line for line in run.read_text().splitlines(keepends=True) if not line.startswith("q7 ")))
    ds, got = means(collection)
    block = ds.blocks[("AP", "qrels")]
    assert block.scores[block.items.index("q7"), block.systems.index("dense")] == 0.0
    qrels = list(ir_measures.read_trec_qrels(str(collection / "trec" / "qrels.txt")))
    agg = ir_measures.calc_aggregate([ir_measures.AP], qrels, list(ir_measures.read_trec_run(str(run))))
    assert got["AP"]["dense"] == pytest.approx(agg[ir_measures.AP], rel=1e-12)  # ir_measures counts it as 0 too
    dropped, _ = means(collection, missing="drop")
    assert "q7" not in dropped.blocks[("AP", "qrels")].items and len(dropped.blocks[("AP", "qrels")].items) == 29


def test_bad_runs_and_qrels(collection, cli):
    spec = collection / "ir.yaml"
    import yaml

    spec.write_text(yaml.safe_dump(spec_of()))
    run = collection / "trec" / "runs" / "bm25.run"
    lines = run.read_text().splitlines()
    lines[2] = "q1 Q0 d5 3 0.5"  # five fields
    run.write_text("\n".join(lines) + "\n")
    r = cli("validate", spec)
    assert r.code == 2 and "bm25.run" in r.err and "line 3: a run line has 6 fields" in r.err and "has 5" in r.err
    lines[2] = "q1 Q0 d5 3 high bm25"
    run.write_text("\n".join(lines) + "\n")
    r = cli("validate", spec)
    assert r.code == 2 and "line 3: the score (field 5) is not a number: 'high'" in r.err
    shutil.copy(CONFIGS / "data" / "trec" / "runs" / "bm25.run", run)
    (collection / "trec" / "qrels.txt").write_text("".join(f"other{q} 0 d1 1\n" for q in range(3)))
    r = cli("validate", spec)
    assert r.code == 2 and "qrels.txt" in r.err and "judges none of the 30 queries" in r.err
    assert len(r.err.strip().splitlines()) == 2  # the heading and one line
    (collection / "trec" / "qrels.txt").write_text("q1 0 d1\n")
    r = cli("validate", spec)
    assert r.code == 2 and "line 1: a qrels line has 4 fields" in r.err
    bad = yaml.safe_load(spec.read_text())
    bad["data"]["scores"]["measures"] = ["nDCG@ten"]
    spec.write_text(yaml.safe_dump(bad))
    r = cli("validate", spec)
    assert r.code == 2 and "data.scores.measures" in r.err and "not an ir_measures measure" in r.err
