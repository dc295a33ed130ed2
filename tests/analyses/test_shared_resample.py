"""Resamples shared across the metrics of a corpus: the seed contract and what it guarantees.

Contract (``sigreport.analyses.common.RESAMPLE_CONTRACT``): the bootstrap counts or permutation swaps of a
corpus come from a seed derived from (spec seed, corpus, kind, B, n) only. So a metric's results are the
same bytes whether the spec has other metrics or not, in any order; rebuilds and ``--jobs 2`` give the same
bytes; the replicates are drawn once per corpus (not once per metric); and changing one metric's data
recomputes only that metric's analyses.
"""

from __future__ import annotations

import gc
import json

import numpy as np
import pytest

from sigreport.analyses import collect_results
from sigreport.analyses import common
from sigreport.api.pipeline import prepare
from sigreport.execute import Cache, run_plan
from sigreport.execute.pool import ProcessExecutor
from sigreport.results import to_json
from sigreport.results.records import jsonable
from sigreport.stats import resampling
from sigreport.version import __version__

SYSTEMS = ("A", "B", "C", "D")
CORPORA = {"c1": 60, "c2": 40}
METRICS = {
    "acc": "{higher_is_better: true}",
    "len": "{higher_is_better: false}",
    "p": "{higher_is_better: true, aggregate: ratio, statistics: [hits, tokens]}",
}


def _table(path, shift_len: float = 0.0) -> None:
    """Scores of four systems that differ a little (so p-values are neither all 1 nor all minimal)."""
    rng = np.random.default_rng(5)
    rows = ["system,corpus,item,metric,value"]
    for corpus, n in CORPORA.items():
        item = rng.standard_normal(n)
        for j, s in enumerate(SYSTEMS):
            acc = 0.5 + 0.1 * item + 0.1 * rng.standard_normal(n) + 0.02 * j
            length = 1.0 + 0.2 * rng.standard_normal(n) + shift_len
            tokens = rng.integers(5, 30, n)
            hits = rng.binomial(tokens, 0.5 + 0.03 * j)
            for i in range(n):
                rows += [f"{s},{corpus},i{i},acc,{acc[i]:.6f}", f"{s},{corpus},i{i},len,{length[i]:.6f}",
                         f"{s},{corpus},i{i},hits,{hits[i]}", f"{s},{corpus},i{i},tokens,{tokens[i]}"]
    path.write_text("\n".join(rows) + "\n")


def _spec(folder, name: str, metrics: list[str], method: str, ci_method: str = "percentile"):
    lines = "\n".join(f"  {m}: {METRICS[m]}" for m in metrics)
    path = folder / f"{name}.yaml"
    path.write_text(f"title: t\nseed: 17\ndata: {{scores: scores.csv}}\nmetrics:\n{lines}\n"
                    f"tests: {{pairwise: {method}, resamples: 999, ci_method: {ci_method}, omnibus: friedman}}\n")
    return path


def _records(spec_path, executor=None, cache=None) -> dict[str, str]:
    p = prepare(spec_path)
    results = collect_results(p.spec_file.spec, p.dataset, run_plan(p.plan, p.dataset, executor, cache=cache),
                              __version__)
    return {r.id: json.dumps(jsonable(r), sort_keys=True) for r in results.records}


@pytest.fixture
def folder(tmp_path):
    _table(tmp_path / "scores.csv")
    return tmp_path


CASES = [("bootstrap", "percentile", ["acc", "len", "p"]), ("bootstrap", "bca", ["p", "acc"]),
         ("bootstrap_t", "percentile", ["acc", "len"]), ("permutation", "percentile", ["len", "p", "acc"])]


@pytest.mark.parametrize("method, ci_method, metrics", CASES)
def test_a_metric_gets_the_same_bytes_alone_and_with_other_metrics(folder, method, ci_method, metrics):
    together = _records(_spec(folder, "all", metrics, method, ci_method))
    reordered = _records(_spec(folder, "reordered", metrics[::-1], method, ci_method))
    assert together == reordered
    for metric in metrics:
        alone = _records(_spec(folder, metric, [metric], method, ci_method))
        mine = {k: v for k, v in together.items() if k.startswith(f"{metric}/")}
        assert alone == mine, metric
    # the comparison is not vacuous: resampled p-values that are neither 1 nor the smallest possible
    pairwise = [json.loads(v) for k, v in together.items() if k.endswith("/pairwise")]
    assert {r["method"] for r in pairwise} == {method}
    pvalues = [row["pvalue"] for r in pairwise for row in r["pairs"]]
    assert any(1 / 1000 < p < 1 for p in pvalues), pvalues


def test_rebuilds_and_two_worker_processes_give_the_same_bytes(folder):
    spec = _spec(folder, "all", ["acc", "len", "p"], "bootstrap")
    p = prepare(spec)
    first = to_json(collect_results(p.spec_file.spec, p.dataset, run_plan(p.plan, p.dataset), __version__))
    again = to_json(collect_results(p.spec_file.spec, p.dataset, run_plan(p.plan, p.dataset), __version__))
    common.SHARED_RESAMPLES.clear()
    fresh = prepare(spec)
    cold = to_json(collect_results(fresh.spec_file.spec, fresh.dataset, run_plan(fresh.plan, fresh.dataset),
                                   __version__))
    jobs = to_json(collect_results(p.spec_file.spec, p.dataset, run_plan(p.plan, p.dataset, ProcessExecutor(2)),
                                   __version__))
    assert first == again == cold == jobs


def test_the_replicates_are_drawn_once_per_corpus(folder, monkeypatch):
    calls = []
    real = resampling.draw_resample

    def counting(kind, n_rows, n, seed):
        calls.append((kind, n_rows, n))
        return real(kind, n_rows, n, seed)

    monkeypatch.setattr(resampling, "draw_resample", counting)
    common.SHARED_RESAMPLES.clear()
    p = prepare(_spec(folder, "all", ["acc", "len", "p"], "bootstrap"))
    run_plan(p.plan, p.dataset)
    # three metrics (two mean, one ratio with its descriptive bootstrap CIs) on two corpora: two draws
    assert sorted(calls) == [("bootstrap", 999, 40), ("bootstrap", 999, 60)]


@pytest.mark.parametrize("method", ["bootstrap", "bootstrap_t", "permutation"])
def test_two_metrics_with_the_same_scores_get_the_same_replicates(folder, method):
    """Under per-analysis seeds they would differ (another stream per metric); sharing makes them equal."""
    text = (folder / "scores.csv").read_text().splitlines()
    copies = [line.replace(",acc,", ",twin,") for line in text if ",acc," in line]
    (folder / "scores.csv").write_text("\n".join(text + copies) + "\n")
    METRICS["twin"] = METRICS["acc"]
    try:
        recs = _records(_spec(folder, "twins", ["acc", "twin"], method))
    finally:
        del METRICS["twin"]
    for corpus in CORPORA:
        acc, twin = (json.loads(recs[f"{m}/{corpus}/pairwise"]) for m in ("acc", "twin"))
        assert twin.pop("metric") == "twin" and twin.pop("id") == f"twin/{corpus}/pairwise"
        acc.pop("metric"), acc.pop("id")
        assert acc == twin


def test_resample_seed_names_no_metric_and_separates_its_inputs():
    base = common.resample_seed(17, "c1", "bootstrap", 999, 60)
    assert base == common.resample_seed(17, "c1", "bootstrap", 999, 60)
    variants = [(18, "c1", "bootstrap", 999, 60), (17, "c2", "bootstrap", 999, 60), (17, "c1", "permutation", 999, 60),
                (17, "c1", "bootstrap", 1000, 60), (17, "c1", "bootstrap", 999, 61), (17, None, "bootstrap", 999, 60)]
    others = {common.resample_seed(*args) for args in variants}
    assert len(others) == 6 and base not in others


def test_changing_one_metrics_data_recomputes_only_its_analyses(folder):
    spec = _spec(folder, "all", ["acc", "len", "p"], "bootstrap")
    cache_dir = folder / "cache"
    before = _records(spec, cache=Cache.open(cache_dir, __version__))
    _table(folder / "scores.csv", shift_len=0.5)  # only the len metric's values change
    p = prepare(spec)
    cache = Cache.open(cache_dir, __version__)
    after = _records(spec, cache=cache)
    len_nodes = [n.id for n in p.plan.nodes if n.metric == "len"]
    assert cache.misses == len(len_nodes) and cache.hits == len(p.plan.nodes) - len(len_nodes)
    assert {k: v for k, v in before.items() if not k.startswith("len/")} == \
        {k: v for k, v in after.items() if not k.startswith("len/")}
    assert _records(spec) == after  # and the partly cached build equals a cold one


class _User:
    """Stands in for a data block (weakly referenced)."""


def test_shared_resamples_live_while_their_data_does_and_within_budget():
    shared = common.SharedResamples(budget=1 << 20)
    one, two = _User(), _User()
    first = shared.get("bootstrap", 99, 50, 3, one)
    assert shared.get("bootstrap", 99, 50, 3, two) is first and shared.draws == 1
    del one
    gc.collect()
    assert shared.get("bootstrap", 99, 50, 3, two) is first and shared.draws == 1  # two still holds it
    del two
    gc.collect()
    keeper = _User()
    redrawn = shared.get("bootstrap", 99, 50, 3, keeper)
    assert redrawn is not first and shared.draws == 2 and np.array_equal(redrawn.weights, first.weights)
    small = common.SharedResamples(budget=100)  # too small to keep anything: drawn each time, same rows
    a, b = small.get("permutation", 99, 50, 3, keeper), small.get("permutation", 99, 50, 3, keeper)
    assert a is not b and small.draws == 2 and np.array_equal(a.weights, b.weights)
    # an object() cannot be weakly referenced: its resample is drawn, never kept
    c, d = shared.get("permutation", 99, 50, 4, object()), shared.get("permutation", 99, 50, 4, object())
    assert c is not d and np.array_equal(c.weights, d.weights)
