"""TREC runs and qrels (data.scores format trec): per-query values from ir_measures (pytrec_eval), checked
against ir_measures' and ranx's own aggregate values on the same runs, trec_eval's rules (run tags, tie order,
-c, duplicate judgements, its measure names), and bad native input."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
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


def test_means_equal_ir_measures_aggregates(collection):
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
def test_means_equal_ranx_without_ties(collection):
    """Only where ties cannot matter: ranx orders tied documents by its own rule, not trec_eval's. bm25 ties a
    relevant document with an unjudged one (q9: d122, d102 at 1.0667), so it is left out; dense's one tie is of
    two unjudged documents (q25), rerank has none."""
    ranx = pytest.importorskip("ranx")
    _, got = means(collection)
    rq = ranx.Qrels.from_file(str(collection / "trec" / "qrels.txt"), kind="trec")
    for system in ("dense", "rerank"):
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
    assert len(r.err.strip().splitlines()) == 4  # the heading and one line a run
    (collection / "trec" / "qrels.txt").write_text("q1 0 d1\n")
    r = cli("validate", spec)
    assert r.code == 2 and "line 1: a qrels line has 4 fields" in r.err
    bad = yaml.safe_load(spec.read_text())
    bad["data"]["scores"]["measures"] = ["nDCG@ten"]
    spec.write_text(yaml.safe_dump(bad))
    r = cli("validate", spec)
    assert r.code == 2 and "data.scores.measures" in r.err and "not an ir_measures measure" in r.err


def write_spec(folder, **extra):
    spec = folder / "ir.yaml"
    spec.write_text(yaml.safe_dump(spec_of(**extra)))
    return spec


def test_runs_are_named_by_their_tag(collection, cli):
    """TREC distributes runs as input.<tag>: each is named by its tag (the 6th field), as trec_eval reports it."""
    runs = collection / "trec" / "runs"
    for system in ("bm25", "dense", "rerank"):
        (runs / f"{system}.run").rename(runs / f"input.{system}")
    ds, got = means(collection, runs="trec/runs/input.*")
    assert ds.systems == ("bm25", "dense", "rerank")
    r = cli("validate", write_spec(collection, runs="trec/runs/input.*"))
    assert r.code == 0 and "3 systems" in r.out
    r = cli("validate", write_spec(collection, runs="trec/runs/input.*", system_name="stem"))
    assert r.code == 2 and "input.dense" in r.err and "input.bm25" in r.err and "one name, 'input'" in r.err
    assert len([line for line in r.err.splitlines() if "input.bm25" in line]) == 2  # each clash: one line, both files


def test_two_runs_of_one_name_are_refused(collection, cli):
    runs = collection / "trec" / "runs"
    shutil.copy(runs / "bm25.run", runs / "bm25.txt")  # bm25.txt replaced bm25.run's values before
    r = cli("validate", write_spec(collection, runs="trec/runs/*", system_name="stem"))
    assert r.code == 2 and "one name, 'bm25'" in r.err
    clash = next(line for line in r.err.splitlines() if "one name" in line)
    assert "bm25.run" in clash and "bm25.txt" in clash
    (runs / "bm25.txt").write_text((runs / "dense.run").read_text())  # another file, the tag dense
    r = cli("validate", write_spec(collection, runs="trec/runs/*"))
    clash = next(line for line in r.err.splitlines() if "one name" in line)
    assert r.code == 2 and "dense.run" in clash and "bm25.txt" in clash and "'dense' (their run tag)" in clash


def test_a_run_file_of_two_tags_is_refused(collection, cli):
    run = collection / "trec" / "runs" / "bm25.run"
    lines = run.read_text().splitlines()
    lines[3] = lines[3].replace(" bm25", " bm25b")
    run.write_text("\n".join(lines) + "\n")
    r = cli("validate", write_spec(collection))
    assert r.code == 2 and "line 4: run tag 'bm25b' differs from 'bm25' of line 1" in r.err
    ds, _ = means(collection, system_name="stem")  # named by file, the tags are not read
    assert ds.systems == ("bm25", "dense", "rerank")


def test_every_bad_file_is_reported_at_once(collection, cli):
    runs = collection / "trec" / "runs"
    for system in ("bm25", "rerank"):
        lines = (runs / f"{system}.run").read_text().splitlines()
        lines[1] = lines[1].rsplit(" ", 2)[0]  # five fields... four: no score, no tag
        (runs / f"{system}.run").write_text("\n".join(lines) + "\n")
    qrels = collection / "trec" / "qrels.txt"
    qrels.write_text(qrels.read_text().replace("q1 0 d59 2", "q1 0 d59 two"))
    r = cli("validate", write_spec(collection))
    assert r.code == 2 and "(3 problems)" in r.err
    assert "bm25.run (line 2): a run line has 6 fields" in r.err and "rerank.run (line 2): a run line" in r.err
    assert "qrels.txt (line 2): the relevance (field 4) is not a whole number: 'two'" in r.err


def test_a_document_judged_twice_is_refused(collection, cli):
    """trec_eval stops on a document judged twice for a query ("duplicate docs", form_res_rels.c), grades equal or
    not; so does sigreport, naming both lines, as it refuses a document ranked twice in a run."""
    qrels = collection / "trec" / "qrels.txt"
    original = qrels.read_text()
    qrels.write_text(original + "q1 0 d59 0\n")  # line 2 judges it 2
    r = cli("validate", write_spec(collection))
    assert r.code == 2 and "qrels.txt" in r.err
    assert "line 361: document 'd59' of query 'q1' is judged twice, on lines 2 and 361 (2 on line 2, 0 here)" in r.err
    qrels.write_text(original + "q1 0 d59 2\n")
    r = cli("validate", write_spec(collection))
    assert r.code == 2 and "is judged twice, on lines 2 and 361 (both 2)" in r.err


def test_an_unanswered_query_is_an_empty_ranking_as_trec_eval_c(collection, cli):
    """trec_eval -c scores a qrels query a run misses on an empty ranking (trec_eval.c, bogus_ranking): every
    measure of the ranking 0, but num_rel the query's judged relevant count (form_res_rels.c counts it from the
    qrels). The run's unanswered queries are counted in results.json's data.source."""
    run = collection / "trec" / "runs" / "dense.run"
    run.write_text("".join(line for line in run.read_text().splitlines(keepends=True) if not line.startswith("q7 ")))
    measures = ["AP", "NumRel", "R@100"]
    spec = spec_of(measures=measures)
    ds = load_data(sigreport.load_spec(spec, base_dir=collection))
    judged = sum(1 for line in (collection / "trec" / "qrels.txt").read_text().splitlines()
                 if line.split()[0] == "q7" and int(line.split()[3]) >= 1)
    assert judged == 6
    numrel = ds.blocks[("NumRel", "qrels")]
    q7 = numrel.items.index("q7")
    assert numrel.scores[q7, numrel.systems.index("dense")] == judged == numrel.scores[q7, numrel.systems.index("bm25")]
    for m in ("AP", "R@100"):
        assert ds.blocks[(m, "qrels")].scores[q7, numrel.systems.index("dense")] == 0.0
    assert ds.source_info["unanswered_queries"] == {"dense": 1}
    dropped = load_data(sigreport.load_spec(spec_of(measures=measures, missing="drop"), base_dir=collection))
    assert dropped.source_info["unanswered_queries"] == {"dense": 1} and dropped.source_info["missing_queries"] == \
        "dropped"
    spec_path = collection / "ir.yaml"
    spec_path.write_text(yaml.safe_dump({**spec, "tests": {"pairwise": "paired_t"}, "outputs": {"figures": []}}))
    r = cli("build", "-q", "-o", collection / "out", "--formats", "json,html", spec_path)
    assert r.code == 0, r.err
    results = json.loads((collection / "out" / "results.json").read_text())
    assert results["data"]["source"]["unanswered_queries"] == {"dense": 1}
    assert "Unanswered queries" in (collection / "out" / "index.html").read_text()


def test_trec_eval_measure_names(collection, cli):
    """trec_eval's names (its -m names: map, P_5, ndcg_cut_10, recip_rank, recall_100; trec_eval 8's R-prec) are
    the ir_measures measures ir_measures.parse_trec_measure gives for them, and give the same values."""
    native = ["AP", "P@5", "nDCG@10", "Rprec", "RR", "R@100"]
    trec = ["map", "P_5", "ndcg_cut_10", "R-prec", "recip_rank", "recall_100"]
    a = load_data(sigreport.load_spec(spec_of(measures=native), base_dir=collection))
    b = load_data(sigreport.load_spec(spec_of(measures=trec), base_dir=collection))
    for n, t in zip(native, trec):
        assert (a.blocks[(n, "qrels")].scores == b.blocks[(t, "qrels")].scores).all(), (n, t)
    assert b.source_info["measures"] == dict(zip(trec, native))
    r = cli("validate", write_spec(collection, measures=["P", "ndcg@10", "map", "AP", "Judged@10"]))
    assert r.code == 2 and "(4 problems)" in r.err
    assert "'P' is trec_eval's family of 9 measures (P@5, P@10, P@15, ...): name each one" in r.err
    assert "did you mean nDCG@10?" in r.err
    assert "'AP' is AP, as 'map' is: name each measure once" in r.err
    assert "'Judged@10' (Judged@10) is not computed by pytrec_eval" in r.err


def test_fields_after_the_tag_are_ignored_as_trec_eval_does(collection):
    """get_trec_results.c: "Any field following run_id is ignored"."""
    _, before = means(collection)
    run = collection / "trec" / "runs" / "bm25.run"
    run.write_text("".join(f"{line} 0.5 extra note\n" for line in run.read_text().splitlines()))
    _, after = means(collection)
    assert after == before


def test_tied_scores_are_ordered_as_trec_eval_orders_them(tmp_path):
    """trec_eval ranks by score, descending, and a tie by document id, descending (strcmp(p2, p1) in
    comp_sim_docno, form_res_rels.c); the rank field is ignored (get_trec_results.c). Expected values by hand:
    q1: d4 (2.0), then the tied d3, d2, d1: the relevant d1 is 4th, AP = RR = 1/4 (by the rank field or by
    ascending id it would be 2nd: 1/2). q2: the tied d9, d8, d7: the relevant d8, d7 at 2 and 3,
    AP = (1/2 + 2/3) / 2 = 7/12, RR = 1/2."""
    (tmp_path / "trec" / "runs").mkdir(parents=True)
    (tmp_path / "trec" / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d7 1\nq2 0 d8 1\nq2 0 d9 0\n")
    (tmp_path / "trec" / "runs" / "tied.run").write_text(
        "q1 Q0 d4 1 2.0 tied\nq1 Q0 d1 2 1.0 tied\nq1 Q0 d2 3 1.0 tied\nq1 Q0 d3 4 1.0 tied\n"
        "q2 Q0 d7 1 0.5 tied\nq2 Q0 d8 2 0.5 tied\nq2 Q0 d9 3 0.5 tied\n")
    ds = load_data(sigreport.load_spec(spec_of(measures=["AP", "RR"]), base_dir=tmp_path))
    ap, rr = ds.blocks[("AP", "qrels")], ds.blocks[("RR", "qrels")]
    assert ap.items == ("q1", "q2") and ap.systems == ("tied",)
    assert ap.scores[:, 0] == pytest.approx([1 / 4, 7 / 12], rel=1e-12)
    assert rr.scores[:, 0] == pytest.approx([1 / 4, 1 / 2], rel=1e-12)


def test_interpolated_precision_is_trec_eval_9s(tmp_path):
    """pytrec_eval embeds trec_eval 9's code, whose iprec_at_recall cutoff is (long)(p * num_rel + 0.9); trec_eval
    10.0 rounds it, lround(p * num_rel) (m_iprec_at_recall.c, its comment on the change). By hand, 3 relevant
    documents at ranks 2, 7 and 8 of 8: IPrec@0.4's cutoff is 2 relevant in trec_eval 9 (1.2 + 0.9 -> 2), the
    best precision at ranks >= 7, max(2/7, 3/8) = 0.375; in 10.0 it is 1 (lround(1.2)), max(1/2, 2/7, 3/8) = 0.5.
    docs/data-sources.md says which of the two this is."""
    (tmp_path / "trec" / "runs").mkdir(parents=True)
    (tmp_path / "trec" / "qrels.txt").write_text("q 0 d2 1\nq 0 d7 1\nq 0 d8 1\n")
    (tmp_path / "trec" / "runs" / "r.run").write_text("".join(f"q Q0 d{i} {i} {10 - i} r\n" for i in range(1, 9)))
    ds = load_data(sigreport.load_spec(spec_of(measures=["IPrec@0.4"]), base_dir=tmp_path))
    assert ds.blocks[("IPrec@0.4", "qrels")].scores[0, 0] == pytest.approx(0.375, rel=1e-12)
