"""Executors and the cache give the same bytes as a plain serial run; a bad cache entry is never trusted."""

from __future__ import annotations

import pytest
from conftest import CONFIGS

from sigreport.analyses import collect_results
from sigreport.pipeline import prepare
from sigreport.execute import Cache, run_plan
from sigreport.execute.pool import ProcessExecutor
from sigreport.results import to_json
from sigreport.version import __version__

SPECS = ("summarization", "classifiers", "demsar")


def _json(p, results) -> str:
    return to_json(collect_results(p.spec_file.spec, p.dataset, results, __version__))


@pytest.fixture(scope="module")
def serial():
    out = {}
    for name in SPECS:
        p = prepare(CONFIGS / f"{name}.yaml")
        out[name] = (p, _json(p, run_plan(p.plan, p.dataset)))
    return out


def test_two_worker_processes_give_the_serial_bytes(serial):
    for name, (p, want) in serial.items():
        assert _json(p, run_plan(p.plan, p.dataset, ProcessExecutor(2))) == want, name


def test_dask_local_cluster_gives_the_serial_bytes(serial):
    pytest.importorskip("dask.distributed")
    from sigreport.execute.dask import DaskExecutor

    p, want = serial["summarization"]
    assert _json(p, run_plan(p.plan, p.dataset, DaskExecutor(jobs=2))) == want


def test_cached_run_gives_the_cold_bytes_and_recomputes_bad_entries(serial, tmp_path):
    p, want = serial["summarization"]
    cold = Cache.open(tmp_path / "cache", __version__)
    assert _json(p, run_plan(p.plan, p.dataset, cache=cold)) == want
    assert cold.hits == 0 and cold.misses == len(p.plan.nodes)
    warm = Cache.open(tmp_path / "cache", __version__)
    assert _json(p, run_plan(p.plan, p.dataset, cache=warm)) == want
    assert warm.hits == len(p.plan.nodes) and warm.misses == 0
    # corrupt one entry, truncate another, replace a third with a foreign (unsigned) pickle
    entries = sorted((tmp_path / "cache").glob("*/*.pkl"))
    entries[0].write_bytes(entries[0].read_bytes()[:-1] + b"x")
    entries[1].write_bytes(entries[1].read_bytes()[:20])
    import pickle

    entries[2].write_bytes(pickle.dumps("not a record"))
    again = Cache.open(tmp_path / "cache", __version__)
    assert _json(p, run_plan(p.plan, p.dataset, cache=again)) == want
    assert again.rejected == 3 and again.misses == 3
    # rewritten: the next run hits everything
    last = Cache.open(tmp_path / "cache", __version__)
    run_plan(p.plan, p.dataset, cache=last)
    assert last.hits == len(p.plan.nodes)


def test_another_version_never_hits(serial, tmp_path):
    p, _ = serial["demsar"]
    run_plan(p.plan, p.dataset, cache=Cache.open(tmp_path / "c", __version__))
    other = Cache.open(tmp_path / "c", "0.0.0-other")
    run_plan(p.plan, p.dataset, cache=other)
    assert other.hits == 0
