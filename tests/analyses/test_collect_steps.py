"""collect_results is a sequence of named steps (analyses.COLLECT_STEPS), each run once, in order, on the
records of the step before it; their result is the Results the build writes."""

from __future__ import annotations

import pytest
from conftest import CONFIGS

import sigreport.analyses as analyses
from sigreport.api.pipeline import collect, prepare
from sigreport.api.running import RunOptions, run_analyses


@pytest.fixture(scope="module")
def run():
    p = prepare(CONFIGS / "summarization.yaml")
    return p, run_analyses(p.plan, p.dataset, RunOptions(), None, None)


def test_the_steps_are_named_and_ordered():
    assert [name for name, _ in analyses.COLLECT_STEPS] == [
        "family corrections", "power", "Bayesian links", "equivalence", "figure notes", "source notes"]


def test_each_step_runs_once_in_order_on_the_records_before_it(run, monkeypatch):
    p, results = run
    want = collect(p, results)
    seen: list[tuple[str, tuple[str, ...]]] = []

    def recording(name, step):
        def wrapped(records, spec, dataset):
            seen.append((name, tuple(r.id for r in records)))
            out = step(records, spec, dataset)
            assert isinstance(out, tuple) and len(out) == len(records)
            return out
        return wrapped

    monkeypatch.setattr(analyses, "COLLECT_STEPS", tuple((n, recording(n, s)) for n, s in analyses.COLLECT_STEPS))
    got = collect(p, results)
    assert [name for name, _ in seen] == [name for name, _ in analyses.COLLECT_STEPS]
    assert all(ids == tuple(results) for _, ids in seen)  # every step sees every record, in plan order
    assert got == want


def test_leaving_a_step_out_changes_the_results(monkeypatch):
    """The steps are what collect_results does: without the equivalence step the pairs of a metric with a
    margin (release_gate.yaml: metrics.M.margin) carry no equivalence result."""
    p = prepare(CONFIGS / "release_gate.yaml")
    results = run_analyses(p.plan, p.dataset, RunOptions(), None, None)
    want = collect(p, results)
    monkeypatch.setattr(analyses, "COLLECT_STEPS", tuple(s for s in analyses.COLLECT_STEPS if s[0] != "equivalence"))
    got = collect(p, results)
    assert got != want and len(got.records) == len(want.records)


def test_with_step_replaces_the_named_step_only_and_refuses_an_unknown_name():
    """The Dask path swaps the power step (computed where the blocks are) through :func:`with_step`, not a
    special case inside :func:`collect_results`."""
    from sigreport.analyses import COLLECT_STEPS, with_step

    def mine(records, spec, dataset):
        return records

    steps = with_step("power", mine)
    assert [n for n, _ in steps] == [n for n, _ in COLLECT_STEPS]
    assert [s is mine for _, s in steps] == [n == "power" for n, _ in COLLECT_STEPS]
    with pytest.raises(KeyError, match="no collect step 'powr'"):
        with_step("powr", mine)
