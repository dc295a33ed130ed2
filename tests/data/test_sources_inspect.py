"""Inspect AI eval logs (data.scores format inspect), on real logs and on logs Inspect itself wrote.

Real logs: tests/data/files/inspect/real/, copied from Inspect AI's repository (commit and paths in the
README there). Generated logs: configs/data/inspect/ and tests/data/files/inspect/generated/, written by
inspect-ai 0.3.285's own ``eval()`` with its mockllm provider (configs/data/make_inspect.py). The reference
for every mean is the log's own ``results.scores[].metrics`` (Inspect's aggregation: the mean over questions
of each question's mean over epochs, errored samples left out), read here independently with zipfile/json.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from conftest import CONFIGS, TESTS

import sigreport
from sigreport.data import load_data
from sigreport.data.sources import read_source
from sigreport.data.sources.inspect_logs import read_log, value_to_float

REAL = TESTS / "data" / "files" / "inspect" / "real"
GENERATED = TESTS / "data" / "files" / "inspect" / "generated"
READING = CONFIGS / "data" / "inspect"


def spec_of(path, metrics, **extra):
    return {"title": "t", "data": {"scores": {"format": "inspect", "path": str(path), "metrics": metrics, **extra}}}


def headline(path: Path) -> dict[str, float]:
    """The log's own aggregated results: score name -> its first metric (accuracy, mean), read with json."""
    header, _, _ = read_log(path)
    return {s["name"]: next(iter(s["metrics"].values()))["value"] for s in header["results"]["scores"]}


def means(ds):
    return {(m, c, s): float(np.mean(b.scores[:, b.systems.index(s)])) for (m, c), b in ds.blocks.items()
            for s in b.systems}


@pytest.mark.parametrize("name, model, task, scorer, expected", [
    # the values in each log's header.json results (Inspect's own aggregation), also asserted from the file
    ("2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval", "openai/gpt-4o-mini", "popularity",
     "match", 0.8),
    ("2025-05-12T20-28-13-04-00_popularity.json", "openai/gpt-4o-mini", "popularity", "match", 2 / 3),
    ("mmlu-summary-choices.eval", "openai/gpt-4o", "inspect_evals/mmlu_0_shot", "choice", 0.0),
    ("log_read_sample.eval", "ollama/gemma3", "popularity", "match", 1.0),
    ("log_streaming.eval", "azureai/Meta-Llama-3-1-405B-Instruct-jqf", "popularity", "match", 0.75),  # 2 epochs
])
def test_real_logs_give_inspects_own_accuracy(name, model, task, scorer, expected):
    path = REAL / name
    assert headline(path)[scorer] == pytest.approx(expected, abs=1e-15)
    ds = load_data(sigreport.load_spec(spec_of(path, [scorer], epochs="mean")))
    assert ds.systems == (model,) and ds.corpora == (task,)
    assert means(ds)[(scorer, task, model)] == pytest.approx(expected, abs=1e-15)


def test_real_log_values_are_its_samples_letters():
    """Each question's value is its sample's score letter as value_to_float maps it (C 1, I 0), item by item."""
    path = REAL / "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
    with zipfile.ZipFile(path) as z:
        want = {}
        for n in z.namelist():
            if n.startswith("samples/"):
                s = json.loads(z.read(n))
                want[str(s["id"])] = {"C": 1.0, "I": 0.0}[s["scores"]["match"]["value"]]
    block = load_data(sigreport.load_spec(spec_of(path, ["match"]))).blocks[("match", "popularity")]
    assert dict(zip(block.items, block.scores[:, 0])) == want and len(want) == 10


def test_generated_epochs_mean_equals_inspects_results():
    """Three models x 40 questions x 3 epochs (zstd .eval logs written by inspect-ai): each model's mean of
    question means is its log's results accuracy (0.5583, 0.6583, 0.825 in the headers)."""
    ds = load_data(sigreport.load_spec(spec_of(READING, ["match"], epochs="mean")))
    assert ds.systems == ("mockllm/small", "mockllm/medium", "mockllm/large")
    block = ds.blocks[("match", "reading")]
    assert block.scores.shape == (40, 3)
    for path in sorted(READING.glob("*.eval")):
        header, _, _ = read_log(path)
        model = header["eval"]["model"]
        assert block.scores[:, block.systems.index(model)].mean() == pytest.approx(headline(path)["match"], abs=1e-12)
    assert set(np.unique(block.scores)) <= {0, 1 / 3, 2 / 3, 1}


def test_epochs_become_the_sample_column():
    """epochs: sample (the default): one row per question and epoch, the epoch in the sample column, and the
    mean over all rows (equal epochs per question) Inspect's accuracy."""
    spec = spec_of(READING, ["match"], metadata=["passage"])
    spec["data"]["columns"] = {"sample": "sample"}
    table = read_source(sigreport.load_spec(spec)).table
    assert len(table) == 3 * 40 * 3 and "sample" in table.columns and "passage" in table.columns
    rows = {c: np.asarray(table.cells[c].to_pylist() if hasattr(table.cells[c], "to_pylist") else table.cells[c])
            for c in ("system", "item", "sample", "value", "passage")}
    assert sorted(set(rows["sample"])) == ["1", "2", "3"]
    for model in set(rows["system"]):
        mine = rows["system"] == model
        counts = {(i, k) for i, k in zip(rows["item"][mine], rows["sample"][mine])}
        assert len(counts) == 120  # every question answered in every epoch, once
    small = rows["system"] == "mockllm/small"
    assert rows["value"][small].astype(float).mean() == pytest.approx(0.5583333333333333, abs=1e-12)
    passage = dict(zip(rows["item"], rows["passage"]))  # the metadata key, one passage per question
    assert passage["q01"] == "passage01" and passage["q40"] == "passage10" and len(set(passage.values())) == 10


@pytest.mark.parametrize("kind", ["eval", "json"])
def test_dict_scores_and_errored_samples(kind):
    """A dict-valued scorer gives one metric per key (named by the key, as Inspect's results name them); the
    errored question 6 (both epochs) is left out and named; the means equal the results of the log."""
    path = next(GENERATED.glob(f"*.{kind}"))
    expected = headline(path)
    assert expected == {"match": 0.4, "exact": 0.4, "length": 4.0}
    ds = load_data(sigreport.load_spec(spec_of(path, ["match", "exact", "length"], epochs="mean")))
    got = means(ds)
    for metric, value in expected.items():
        assert got[(metric, "mixed", "mockllm/model")] == pytest.approx(value, abs=1e-12)
    assert ds.blocks[("match", "mixed")].items == ("1", "2", "3", "4", "5")
    left = ds.source_info["left_out_samples"]["mockllm/model"]["mixed"]
    assert left["errored"] == 2 and left["unscored"] == 0 and "tool crashed on question 6" in left["first_error"]
    assert any("2 errored" in w and "6 (epoch 1)" in w for w in ds.source_info["warnings"])


def test_a_cancelled_log_is_read_and_named():
    """The real .json log's status is 'cancelled' (its 3 samples finished): read, and said in the notes."""
    ds = load_data(sigreport.load_spec(spec_of(REAL / "2025-05-12T20-28-13-04-00_popularity.json", ["match"])))
    assert ds.source_info["unfinished_logs"] == ["2025-05-12T20-28-13-04-00_popularity.json"]
    assert "status is 'cancelled', not 'success'" in ds.source_info["warnings"][0]


def test_eval_and_json_logs_read_alike():
    one, two = (load_data(sigreport.load_spec(spec_of(next(GENERATED.glob(f"*.{k}")), ["match", "length"],
                                                      epochs="mean")))
                for k in ("eval", "json"))
    for key in one.blocks:
        assert one.blocks[key].items == two.blocks[key].items
        np.testing.assert_array_equal(one.blocks[key].scores, two.blocks[key].scores)


@pytest.mark.parametrize("value, expected", [
    # inspect_ai/scorer/_metric.py value_to_float() (0.3.285): the letters first (case-sensitive), then
    # numbers as floats, then yes/no/true/false in any case and numeric text; anything else: Inspect warns
    # and returns 0, sigreport refuses (None)
    ("C", 1.0), ("I", 0.0), ("P", 0.5), ("N", 0.0), (True, 1.0), (False, 0.0), (1, 1.0), (0, 0.0), (0.25, 0.25),
    (7, 7.0), ("yes", 1.0), ("Yes", 1.0), ("TRUE", 1.0), ("no", 0.0), ("False", 0.0), ("0.75", 0.75), ("-2", -2.0),
    ("c", None), ("maybe", None), ("", None), ([1, 0], None), ({"a": 1}, None), (None, None), ("nan", None),
])
def test_value_to_float_as_inspect(value, expected):
    assert value_to_float(value) == expected


def test_a_folder_with_two_logs_of_one_model_and_task(tmp_path, cli):
    """The two real popularity runs of gpt-4o-mini: refused naming both, not one silently chosen."""
    for name in ("2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval",
                 "2025-05-12T20-28-13-04-00_popularity.json"):
        shutil.copy(REAL / name, tmp_path / name)
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump({**spec_of(".", ["match"]), "metrics": {"match": {"higher_is_better": True}}}))
    r = cli("validate", spec)
    assert r.code == 2 and "a second log of task 'popularity' by model 'openai/gpt-4o-mini'" in r.err
    assert "Traceback" not in r.err


def test_unscored_log_names_the_scores_it_has(tmp_path, cli):
    """The real unscored run (inspect eval --no-score): no score to analyse, one line saying what there is."""
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump(spec_of(REAL / "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval",
                                           ["match"])))
    r = cli("validate", spec)
    assert r.code == 2 and "no score named 'match'" in r.err and "10 sample record(s) hold the scores: none" in r.err
    assert "line" in r.err and len(r.err.strip().splitlines()) == 2  # the error line and the exit summary


def test_bad_logs_every_problem_at_once(tmp_path, cli):
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "broken.eval").write_bytes(b"not a zip")
    with zipfile.ZipFile(logs / "unfinished.eval", "w") as z:  # what an interrupted run leaves: no header.json
        z.writestr("_journal/start.json", "{}")
    log = json.loads((REAL / "2025-05-12T20-28-13-04-00_popularity.json").read_text())
    odd = json.loads(json.dumps(log))
    odd["eval"]["model"] = "other/model"
    odd["samples"][1]["scores"]["match"]["value"] = "maybe"
    (logs / "2025-05-12T20-28-13-04-00_odd.json").write_text(json.dumps(odd))
    (logs / "logs.json").write_text("{}")  # Inspect's log-dir manifest: not a log, not read
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump(spec_of("logs", ["match"])))
    r = cli("validate", spec)
    assert r.code == 2 and "Traceback" not in r.err
    assert "broken.eval" in r.err and "not a zip file" in r.err
    assert "unfinished.eval" in r.err and "no header.json" in r.err
    sid = odd["samples"][1]["id"]
    assert "odd.json" in r.err and f"sample {sid!r} epoch 1: score 'match' is \"maybe\"" in r.err
    assert "logs.json" not in r.err and "(3 problems)" in r.err


def test_metadata_that_a_sample_lacks(tmp_path, cli):
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump(spec_of(REAL / "mmlu-summary-choices.eval", ["choice"], metadata=["passage"])))
    r = cli("validate", spec)
    assert r.code == 2 and "metadata 'passage' is null, not a text or number" in r.err
    spec.write_text(yaml.safe_dump(spec_of(REAL / "mmlu-summary-choices.eval", ["choice"], metadata=["subject"])))
    assert cli("validate", spec).code == 0


def test_tasks_and_missing_paths(tmp_path, cli):
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump(spec_of(REAL, ["match"], tasks=["inspect_evals/mmlu_0_shot"])))
    r = cli("validate", spec)  # only the mmlu log is read: it has no 'match' score
    assert r.code == 2 and "hold the scores: choice" in r.err
    spec.write_text(yaml.safe_dump(spec_of(tmp_path / "nowhere", ["match"])))
    r = cli("validate", spec)
    assert r.code == 2 and "does not exist" in r.err and "line" in r.err


def test_zstd_needs_zstandard(monkeypatch, tmp_path, cli):
    """A zstd .eval without zstandard installed: one line naming the extra, exit 2."""
    import builtins

    real_import = builtins.__import__

    def no_zstandard(name, *args, **kwargs):
        if name == "zstandard":
            raise ImportError("No module named 'zstandard'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_zstandard)
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump(spec_of(next(GENERATED.glob("*.eval")), ["match"])))
    r = cli("validate", spec)
    assert r.code == 2 and "pip install 'sigreport[inspect]'" in r.err and "Traceback" not in r.err


def test_question_means_equal_inspects_reductions():
    """Per question: the mean over its 3 epochs is the value Inspect's mean reducer wrote to reductions.json of
    the log (read here with zipfile and zstandard directly, not through the reader)."""
    import io
    import struct

    zstandard = pytest.importorskip("zstandard")  # a test dependency; the reader names sigreport[inspect]
    ds = load_data(sigreport.load_spec(spec_of(READING, ["match"], epochs="mean")))
    block = ds.blocks[("match", "reading")]
    checked = 0
    for path in sorted(READING.glob("*.eval")):
        with zipfile.ZipFile(path) as z, open(path, "rb") as raw:
            def member(name):
                info = z.getinfo(name)
                raw.seek(info.header_offset)
                head = raw.read(30)
                raw.seek(info.header_offset + 30 + sum(struct.unpack("<HH", head[26:30])))
                data = raw.read(info.compress_size)
                if info.compress_type == zipfile.ZIP_DEFLATED:
                    return z.read(name)
                return zstandard.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True).read()

            model = json.loads(member("header.json"))["eval"]["model"]
            (reduction,) = json.loads(member("reductions.json"))
        assert reduction["scorer"] == "match"
        column = block.systems.index(model)
        for s in reduction["samples"]:
            assert block.scores[block.items.index(str(s["sample_id"])), column] == pytest.approx(s["value"],
                                                                                                 abs=1e-15)
            checked += 1
    assert checked == 120


def test_logs_that_hold_fewer_samples_than_their_results(tmp_path):
    """A log whose results count more samples than it holds (samples not logged): read, and said."""
    log = json.loads((REAL / "2025-05-12T20-28-13-04-00_popularity.json").read_text())
    assert log["results"]["total_samples"] == 3 and len(log["samples"]) == 3
    log["samples"] = log["samples"][:2]
    (tmp_path / "trimmed.json").write_text(json.dumps(log))
    ds = load_data(sigreport.load_spec(spec_of(tmp_path / "trimmed.json", ["match"])))
    assert any("holds 2 sample record(s) of the 3 its results count" in w for w in ds.source_info["warnings"])
    log["samples"] = []
    (tmp_path / "trimmed.json").write_text(json.dumps(log))
    with pytest.raises(sigreport.DataError) as info:
        load_data(sigreport.load_spec(spec_of(tmp_path / "trimmed.json", ["match"])))
    assert "they hold no sample records (logged with --no-log-samples?)" in str(info.value)


def test_real_log_with_epochs():
    """log_streaming.eval (Inspect's repository): questions 1 and 2, epochs 1 and 2: four rows with the epoch
    in the sample column, each its sample's letter; their means per question are the log's reductions."""
    path = REAL / "log_streaming.eval"
    spec = spec_of(path, ["match"])
    spec["data"]["columns"] = {"sample": "sample"}
    table = read_source(sigreport.load_spec(spec)).table
    rows = sorted(zip(*(table.cells[c].to_pylist() for c in ("item", "sample", "value"))))
    with zipfile.ZipFile(path) as z:
        letters = {(str(s["id"]), str(s["epoch"])): s["scores"]["match"]["value"]
                   for s in (json.loads(z.read(n)) for n in z.namelist() if n.startswith("samples/"))}
        (reduction,) = json.loads(z.read("reductions.json"))
    assert rows == sorted((i, k, {"C": 1.0, "I": 0.0}[v]) for (i, k), v in letters.items()) and len(rows) == 4
    block = load_data(sigreport.load_spec(spec_of(path, ["match"], epochs="mean"))).blocks[("match", "popularity")]
    assert {i: v for i, v in zip(block.items, block.scores[:, 0])} == {
        str(s["sample_id"]): s["value"] for s in reduction["samples"]}


def test_real_trimmed_and_sampleless_logs(tmp_path, cli):
    """Two real logs of Inspect's tests: one holding no sample records, one holding 1 of its 4 (unscored)."""
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump(spec_of(REAL / "2025-05-12T20-28-13-04-00_no-samples.json", ["match"])))
    r = cli("validate", spec)
    assert r.code == 2 and "hold no sample records (logged with --no-log-samples?)" in r.err
    spec.write_text(yaml.safe_dump(spec_of(REAL / "log_tool_call_error.json", ["includes"])))
    r = cli("validate", spec)
    assert r.code == 2 and "their 1 sample record(s) hold the scores: none" in r.err


def _paths(value, prefix=()):
    """Every path into a JSON value (mapping keys and list indices), the value's own first."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            yield from _paths(v, (*prefix, i))


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=True) | st.text(max_size=4),
                    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2),
                    max_leaves=4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_corrupted_json_log_is_a_user_error(tmp_path, cli, data):
    """Any value at any place of a real .json log (its header, samples, scores, metadata): the reader reads it or
    refuses it with exit 2, never a traceback."""
    log = json.loads((REAL / "2025-05-12T20-28-13-04-00_popularity.json").read_text())
    for key in ("events", "messages", "output", "attachments", "store", "model_usage"):  # shorten the walk
        for s in log["samples"]:
            s.pop(key, None)
    log.pop("plan", None)
    log.pop("stats", None)
    paths = [p for p in _paths(log) if p]
    path = data.draw(st.sampled_from(paths))
    target = log
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = data.draw(JSON)
    (tmp_path / "log.json").write_text(json.dumps(log))
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump({**spec_of("log.json", ["match"], metadata=["label_confidence"]),
                                    "metrics": {"match": {"higher_is_better": True}}}))
    r = cli("validate", spec)
    assert r.code in (0, 2) and "Traceback" not in r.err, (path, r.err)


def test_a_metadata_key_that_is_a_column_already(tmp_path, cli):
    spec = tmp_path / "s.yaml"
    for key in ("system", "sample"):
        spec.write_text(yaml.safe_dump(spec_of(REAL / "log_streaming.eval", ["match"], metadata=[key])))
        r = cli("validate", spec)
        assert r.code == 2 and f"column {key!r} is in the table already" in r.err and "metadata" in r.err


def test_validate_names_what_the_logs_left_out(tmp_path, cli):
    """validate says what the build's notes say (the errored question 6 of the generated log), and --strict
    fails on it."""
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump({**spec_of(next(GENERATED.glob("*.json")), ["match"], epochs="mean"),
                                    "metrics": {"match": {"higher_is_better": True}}}))
    r = cli("validate", spec)
    assert r.code == 0 and "warning:" in r.err and "2 errored (first: RuntimeError" in r.err
    assert "tool crashed on question 6" in r.err
    r = cli("validate", "--strict", spec)
    assert r.code != 0 and "2 errored" in r.err


def test_tasks_with_their_own_scorers_are_not_unscored(tmp_path):
    """Two real logs of two tasks (popularity: match; mmlu: choice), both metrics asked: each task is analysed on
    its own score, and no sample counts as unscored for the other task's score."""
    for name in ("2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval", "mmlu-summary-choices.eval"):
        shutil.copy(REAL / name, tmp_path / name)
    source = read_source(sigreport.load_spec(spec_of(f"{tmp_path}/*.eval", ["match", "choice"])))
    rows = set(zip(*(source.table.cells[c].to_pylist() for c in ("corpus", "metric"))))
    assert rows == {("popularity", "match"), ("inspect_evals/mmlu_0_shot", "choice")}
    assert "left_out_samples" not in source.info and "warnings" not in source.info


def test_epochs_without_their_column(tmp_path, cli):
    """Several epochs, epochs: sample (the default) and no data.columns.sample: one line saying both ways."""
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump({**spec_of(READING, ["match"]), "metrics": {"match": {"higher_is_better": True}}}))
    r = cli("validate", spec)
    assert r.code == 2 and "the logs hold up to 3 epochs per question" in r.err
    assert "data.columns.sample: sample" in r.err and "epochs: mean" in r.err and "line" in r.err


def test_epochs_as_answers_per_question(tmp_path, cli):
    """With data.columns.sample: sample each question's 3 answers are analysed as its samples: the means are the
    logs' accuracies, and each question's value its mean over epochs (the question means of epochs: mean)."""
    spec = spec_of(READING, ["match"])
    spec["data"]["columns"] = {"sample": "sample"}
    kept = load_data(sigreport.load_spec(spec))
    mean = load_data(sigreport.load_spec(spec_of(READING, ["match"], epochs="mean")))
    a, b = kept.blocks[("match", "reading")], mean.blocks[("match", "reading")]
    assert a.items == b.items and a.systems == b.systems
    np.testing.assert_allclose(a.scores, b.scores, rtol=0, atol=1e-15)
