"""HELM run folders (data.scores format helm), on runs HELM itself wrote.

tests/data/files/helm/runs/trials/ holds the run folders of ``helm-run --run-entries
simple_mcqa:model=simple/model1 simple_classification:model=simple/model1 --suite trials -t 3
--max-eval-instances 12`` (crfm-helm 0.5.16, its offline test model simple/model1; the folders' ':' written
as '_' so that any checkout can hold them, the files byte for byte). The reference for every mean is
HELM's own ``stats.json`` of the run: per metric name and split, the mean over train trials of each trial's
mean over instances (helm/benchmark/metrics/metric.py ``Metric.evaluate``), read here with json.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from conftest import TESTS

import sigreport
from sigreport.data import load_data
from sigreport.data.sources import read_source

SUITE = TESTS / "data" / "files" / "helm" / "runs" / "trials"
METRICS = ["exact_match", "quasi_exact_match", "num_prompt_tokens", "num_bytes", "logprob", "inference_runtime"]


def spec_of(path, metrics, **extra):
    return {"title": "t", "data": {"scores": {"format": "helm", "path": str(path), "metrics": metrics, **extra}}}


def helm_stat(run, name, split="test"):
    """stats.json's value of ``name`` on ``split`` without perturbation, and its count (the trials)."""
    for stat in json.loads((SUITE / run / "stats.json").read_text()):
        n = stat["name"]
        if n["name"] == name and n.get("split") == split and not n.get("perturbation") and not n.get("sub_split"):
            return stat["mean"], stat["count"]
    raise KeyError(name)


@pytest.mark.parametrize("run, corpus", [("simple_mcqa_model=simple_model1", "simple_mcqa"),
                                         ("simple_classification_model=simple_model1", "simple_classification")])
def test_means_equal_helms_stats_json(run, corpus):
    """trials: mean gives each instance's mean over its 3 trials; their mean over instances is HELM's stats.json
    value (equal instances in every trial). HELM's test model scores exact_match 0 everywhere (stats.json: 0.0)
    and its tokenizer gives one prompt length; inference_runtime (measured) differs by instance and trial, the
    value that can tell a wrong aggregation."""
    ds = load_data(sigreport.load_spec(spec_of(SUITE, METRICS, trials="mean")))
    assert ds.systems == ("simple/model1",) and set(ds.corpora) == {"simple_mcqa", "simple_classification"}
    for metric in METRICS:
        expected, trials = helm_stat(run, metric)
        assert trials == 3
        block = ds.blocks[(metric, corpus)]
        assert block.scores.shape == (12, 1)
        assert block.scores.mean() == pytest.approx(expected, rel=1e-12, abs=1e-15), metric
    assert ds.blocks[("inference_runtime", corpus)].scores.std() > 0  # a metric that can fail the comparison


def test_trials_become_the_sample_column():
    """trials: sample (the default): one row per instance and trial, the trial (0, 1, 2) in the sample column,
    each the instance's per-instance stat sum / count as per_instance_stats.json holds it."""
    spec = spec_of(SUITE, ["num_prompt_tokens"])
    spec["data"]["columns"] = {"sample": "sample"}
    table = read_source(sigreport.load_spec(spec)).table
    assert len(table) == 2 * 12 * 3
    rows = {c: table.cells[c].to_pylist() for c in ("corpus", "item", "sample", "value")}
    assert sorted(set(rows["sample"])) == ["0", "1", "2"]
    entries = json.loads((SUITE / "simple_mcqa_model=simple_model1" / "per_instance_stats.json").read_text())
    want = {(e["instance_id"], str(e["train_trial_index"])): s["sum"] / s["count"] for e in entries
            for s in e["stats"] if s["name"] == {"name": "num_prompt_tokens", "split": "test"}}
    got = {(i, k): v for c, i, k, v in zip(*rows.values()) if c == "simple_mcqa"}
    assert got == want and len(want) == 36


def test_one_run_folder_and_a_glob():
    one = load_data(sigreport.load_spec(spec_of(SUITE / "simple_mcqa_model=simple_model1", ["num_bytes"],
                                                trials="mean")))
    assert one.corpora == ("simple_mcqa",)
    both = load_data(sigreport.load_spec(spec_of(f"{SUITE}/simple_*", ["num_bytes"], trials="mean")))
    assert set(both.corpora) == {"simple_mcqa", "simple_classification"}
    np.testing.assert_array_equal(one.blocks[("num_bytes", "simple_mcqa")].scores,
                                  both.blocks[("num_bytes", "simple_mcqa")].scores)


def test_bad_runs_every_problem_at_once(tmp_path, cli):
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    mcqa, cls = suite / "simple_mcqa_model=simple_model1", suite / "simple_classification_model=simple_model1"
    (cls / "per_instance_stats.json").unlink()  # an unfinished run
    entries = json.loads((mcqa / "per_instance_stats.json").read_text())
    entries[4]["stats"][0] = {"name": {"name": "num_bytes", "split": "test"}, "count": 0, "sum": 3}
    del entries[7]["instance_id"]
    (mcqa / "per_instance_stats.json").write_text(json.dumps(entries))
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump(spec_of("suite", ["num_bytes"])))
    r = cli("validate", spec)
    assert r.code == 2 and "Traceback" not in r.err
    assert "no per_instance_stats.json in the run folder" in r.err
    assert "entry 5 (instance " in r.err and "has count 0 and sum 3" in r.err
    assert "entry 8: not a PerInstanceStats" in r.err
    assert "(3 problems)" in r.err


def test_a_stat_no_run_has(tmp_path, cli):
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump(spec_of(SUITE, ["accuracy"])))
    r = cli("validate", spec)
    assert r.code == 2 and "no per-instance stat named 'accuracy' of split 'test'" in r.err
    assert "exact_match" in r.err and "line" in r.err
    spec.write_text(yaml.safe_dump(spec_of(SUITE, ["exact_match"], split="valid")))
    r = cli("validate", spec)
    assert r.code == 2 and "of split 'valid'" in r.err


def test_two_runs_of_one_model_and_scenario(tmp_path, cli):
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    shutil.copytree(suite / "simple_mcqa_model=simple_model1", suite / "simple_mcqa_again")
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump(spec_of("suite", ["num_bytes"])))
    r = cli("validate", spec)
    assert r.code == 2 and "a second run of 'simple_mcqa' by model 'simple/model1'" in r.err


def test_perturbed_instances(tmp_path):
    """An instance HELM also scored under a perturbation: its unperturbed stats are read, the perturbed entry
    counted in the notes; perturbations: refuse stops on it."""
    suite = tmp_path / "suite"
    shutil.copytree(SUITE / "simple_mcqa_model=simple_model1", suite / "run")
    entries = json.loads((suite / "run" / "per_instance_stats.json").read_text())
    twin = json.loads(json.dumps(entries[0]))
    twin["perturbation"] = {"name": "typo", "robustness": True, "fairness": False, "computed_on": "perturbed"}
    for s in twin["stats"]:
        s["name"]["perturbation"] = twin["perturbation"]
    (suite / "run" / "per_instance_stats.json").write_text(json.dumps([*entries, twin]))
    ds = load_data(sigreport.load_spec(spec_of(suite / "run", ["num_bytes"], trials="mean")))
    assert ds.source_info["perturbed_instances"] == {"simple_mcqa": 1}
    assert ds.blocks[("num_bytes", "simple_mcqa")].scores.shape == (12, 1)
    with pytest.raises(sigreport.DataError) as info:
        load_data(sigreport.load_spec(spec_of(suite / "run", ["num_bytes"], perturbations="refuse")))
    assert "is perturbed (typo); perturbations: refuse" in str(info.value)


def test_sub_splits_and_other_splits(tmp_path):
    """An instance with a sub_split (HELM adds the instance's sub_split to each of its stats) is read; an instance
    of another split is not, and is counted in data.source.other_splits."""
    shutil.copytree(SUITE / "simple_mcqa_model=simple_model1", tmp_path / "run")
    path = tmp_path / "run" / "per_instance_stats.json"
    entries = json.loads(path.read_text())
    for s in entries[0]["stats"]:
        s["name"]["sub_split"] = "toxic"
    for s in entries[1]["stats"]:
        s["name"]["split"] = "valid"
    path.write_text(json.dumps(entries))
    ds = load_data(sigreport.load_spec(spec_of(tmp_path / "run", ["num_bytes"], trials="mean")))
    block = ds.blocks[("num_bytes", "simple_mcqa")]
    assert entries[0]["instance_id"] in block.items
    assert ds.source_info["other_splits"] == {"simple_mcqa": {"valid": 1}}


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=True) | st.text(max_size=4),
                    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
                    max_leaves=4)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:2]):
            yield from _paths(v, (*prefix, i))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_corrupted_run_is_a_user_error(tmp_path_factory, cli, data):
    """Any value at any place of a run's run_spec.json or (the first entries of) per_instance_stats.json: read or
    refused with exit 2, never a traceback."""
    folder = tmp_path_factory.mktemp("run")
    run = folder / "run"
    shutil.copytree(SUITE / "simple_mcqa_model=simple_model1", run)
    name = data.draw(st.sampled_from(["run_spec.json", "per_instance_stats.json"]))
    doc = json.loads((run / name).read_text())
    if name == "per_instance_stats.json":
        doc = doc[:3]
    paths = [p for p in _paths(doc) if p]
    path = data.draw(st.sampled_from(paths))
    target = doc
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = data.draw(JSON)
    (run / name).write_text(json.dumps(doc))
    spec = folder / "s.yaml"
    spec.write_text(yaml.safe_dump({**spec_of("run", ["num_bytes"], trials="mean"),
                                    "metrics": {"num_bytes": {"higher_is_better": True}}}))
    r = cli("validate", spec)
    assert r.code in (0, 2) and "Traceback" not in r.err, (name, path, r.err)


def test_corpus_group_and_the_scenario_column(tmp_path):
    """corpus: group joins the runs of one group (here both runs' groups set to 'simple'): one corpus of 2 x 12
    instances named <run entry>/<instance>, the scenario column naming each one's run entry; the mean over it
    is the instance-weighted mean of the two runs' stats.json values."""
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    for run in suite.iterdir():
        spec = json.loads((run / "run_spec.json").read_text())
        (run / "run_spec.json").write_text(json.dumps({**spec, "groups": ["simple"]}))
    sf = sigreport.load_spec(spec_of(suite, ["inference_runtime"], trials="mean", corpus="group"))
    ds = load_data(sf)
    assert ds.corpora == ("simple",) and ds.source_info["corpus"] == "group"
    block = ds.blocks[("inference_runtime", "simple")]
    assert len(block.items) == 24 and {i.split("/")[0] for i in block.items} == {"simple_mcqa",
                                                                                  "simple_classification"}
    expected = np.mean([helm_stat(run, "inference_runtime")[0] for run in ("simple_mcqa_model=simple_model1",
                                                                          "simple_classification_model=simple_model1")])
    assert block.scores.mean() == pytest.approx(expected, rel=1e-12)  # 12 instances each: equal weights
    table = read_source(sf).table
    scenario, item = table.cells["scenario"].to_pylist(), table.cells["item"].to_pylist()
    assert all(i.startswith(s + "/") for s, i in zip(scenario, item)) and len(set(scenario)) == 2


def test_an_instance_without_a_stat_its_run_has(tmp_path):
    """An instance of the split lacking a stat the spec analyses (and other instances of its run have): counted
    and named; a stat that a whole run lacks (each scenario its own metrics) is not counted against it."""
    shutil.copytree(SUITE, tmp_path / "suite")
    path = tmp_path / "suite" / "simple_mcqa_model=simple_model1" / "per_instance_stats.json"
    entries = json.loads(path.read_text())
    entries[0]["stats"] = [s for s in entries[0]["stats"] if s["name"]["name"] != "num_bytes"]
    path.write_text(json.dumps(entries))
    ds = load_data(sigreport.load_spec(spec_of(tmp_path / "suite", ["num_bytes", "exact_match@5"], trials="mean")))
    assert ds.source_info["instances_without_stat"] == {"simple/model1 on simple_mcqa": {"num_bytes": 1}}
    assert ("exact_match@5", "simple_mcqa") in ds.blocks and ("exact_match@5", "simple_classification") not in ds.blocks


def test_trials_without_their_column(tmp_path, cli):
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump({**spec_of(SUITE, ["num_bytes"]), "metrics": {"num_bytes": {"higher_is_better": True}}}))
    r = cli("validate", spec)
    assert r.code == 2 and "the runs hold 3 train trials per instance" in r.err and "trials: mean" in r.err
    with_column = yaml.safe_load(spec.read_text())
    with_column["data"]["columns"] = {"sample": "sample"}
    spec.write_text(yaml.safe_dump(with_column))
    assert cli("validate", spec).code == 0
