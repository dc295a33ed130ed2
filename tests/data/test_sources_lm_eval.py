"""lm-evaluation-harness --log_samples folders (data.scores format lm_eval).

The fixture (configs/data/lm_eval, written by configs/data/make_sources.py) is hand-made in the layout of
lm-eval's EvaluationTracker.save_results_samples and the per-sample dict of evaluator.evaluate; lm-eval
itself is not installed (it would need a model). The values sigreport analyses must be the per-sample
metric values of those files, read here independently with json."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import CONFIGS

import sigreport
from sigreport.data import load_data


def spec_of(metrics, **extra):
    return {"title": "t", "data": {"scores": {"format": "lm_eval", "path": "lm_eval", "metrics": metrics, **extra}}}


@pytest.fixture
def folder(tmp_path):
    shutil.copytree(CONFIGS / "data" / "lm_eval", tmp_path / "lm_eval")
    return tmp_path


def logged(folder, model, task):
    path = next((folder / "lm_eval" / model).glob(f"samples_{task}_*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_values_are_lm_evals_per_sample_metrics(folder):
    ds = load_data(sigreport.load_spec(spec_of(["acc", "acc_norm", "exact_match,strict-match",
                                                "exact_match,flexible-extract"]), base_dir=folder))
    assert ds.systems == ("org__model-base", "org__model-large", "org__model-small")
    assert set(ds.corpora) == {"arc_easy", "gsm8k"}
    assert ("acc", "gsm8k") not in ds.blocks  # each task is analysed on the metrics it logged
    for model in ds.systems:
        for metric in ("acc", "acc_norm"):
            block = ds.blocks[(metric, "arc_easy")]
            want = {str(s["doc_id"]): s[metric] for s in logged(folder, model, "arc_easy")}
            got = dict(zip(block.items, block.scores[:, block.systems.index(model)]))
            assert got == want
        for filt in ("strict-match", "flexible-extract"):  # gsm8k logged two filters: named in the metric
            block = ds.blocks[(f"exact_match,{filt}", "gsm8k")]
            want = {str(s["doc_id"]): s["exact_match"] for s in logged(folder, model, "gsm8k") if s["filter"] == filt}
            assert dict(zip(block.items, block.scores[:, block.systems.index(model)])) == want


def test_a_task_with_several_filters_names_them(folder):
    with pytest.raises(sigreport.DataError) as info:
        sigreport.analyze(sigreport.load_spec(spec_of(["acc", "exact_match"]), base_dir=folder))
    message = info.value.problems[0].message
    assert "metric 'exact_match' is not in" in message and "exact_match,strict-match" in message


def test_bad_lm_eval_folders(folder, cli):
    import yaml

    spec = folder / "lm.yaml"
    spec.write_text(yaml.safe_dump(spec_of(["acc"])))
    (folder / "empty" / "org__m").mkdir(parents=True)
    (folder / "empty" / "org__m" / "results_2026-01-05T10-20-30.json").write_text("{}")
    bad = yaml.safe_load(spec.read_text())
    bad["data"]["scores"]["path"] = "empty"
    spec.write_text(yaml.safe_dump(bad))
    r = cli("validate", spec)
    assert r.code == 2 and "empty" in r.err and "no samples_<task>_<date>.jsonl" in r.err and "--log_samples" in r.err
    assert len(r.err.strip().splitlines()) == 2
    spec.write_text(yaml.safe_dump(spec_of(["acc"])))
    path = next((folder / "lm_eval" / "org__model-base").glob("samples_arc_easy_*.jsonl"))
    lines = path.read_text().splitlines()
    lines[4] = lines[4][:40]
    path.write_text("\n".join(lines) + "\n")
    r = cli("validate", spec)
    assert r.code == 2 and path.name in r.err and "line 5: not valid JSON" in r.err
    lines[4] = json.dumps({**json.loads(lines[5]), "doc_id": 4, "acc": [1, "x"]})
    path.write_text("\n".join(lines) + "\n")
    r = cli("validate", spec)
    assert r.code == 2 and "line 5: metric 'acc' holds [1, \"x\"] per sample, not a number" in r.err


def as_parquet(folder):
    """Each samples file of the fixture as Parquet, the same columns (what datasets' to_parquet writes of an Open
    LLM Leaderboard details config: one row per sample, doc/arguments/resps as nested columns)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    for path in sorted((folder / "lm_eval").glob("*/samples_*.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        pq.write_table(pa.Table.from_pylist(rows), path.with_suffix(".parquet"))
        path.unlink()


def test_parquet_samples_read_as_the_jsonl(folder, tmp_path_factory):
    metrics = ["acc", "acc_norm", "exact_match,strict-match", "exact_match,flexible-extract"]
    jsonl = load_data(sigreport.load_spec(spec_of(metrics), base_dir=folder))
    other = tmp_path_factory.mktemp("pq")
    shutil.copytree(folder / "lm_eval", other / "lm_eval")
    as_parquet(other)
    assert not list((other / "lm_eval").rglob("*.jsonl"))
    parquet = load_data(sigreport.load_spec(spec_of(metrics), base_dir=other))
    assert parquet.blocks.keys() == jsonl.blocks.keys()
    for key, block in jsonl.blocks.items():
        assert parquet.blocks[key].items == block.items
        assert (parquet.blocks[key].scores == block.scores).all()


def test_parquet_without_doc_id(folder, cli):
    import pyarrow.parquet as pq

    as_parquet(folder)
    path = next((folder / "lm_eval" / "org__model-base").glob("samples_arc_easy_*.parquet"))
    pq.write_table(pq.read_table(path).drop(["doc_id"]), path)
    spec = folder / "lm.yaml"
    spec.write_text(yaml_dump(spec_of(["acc"])))
    r = cli("validate", spec)
    assert r.code == 2 and path.name in r.err and "no doc_id column" in r.err
    path.write_bytes(b"PAR1 not really")
    r = cli("validate", spec)
    assert r.code == 2 and "cannot read the Parquet file" in r.err and "Traceback" not in r.err


def yaml_dump(data):
    import yaml

    return yaml.safe_dump(data)


def grouped(folder, date="2026-01-05T10-20-30.123456"):
    """A hand-made MMLU-like run in lm-eval's layout: subjects mmlu_a, mmlu_b (group mmlu_stem) and mmlu_c
    (mmlu_humanities), all under mmlu, and results_<date>.json whose group_subtasks list them as lm-eval 0.4
    writes it (evaluator.simple_evaluate's ``group_subtasks``: each group's direct subtasks, a task mapped to
    []). Its group values are lm-eval's size-weighted means (lm_eval.api.metrics.aggregate_subtask_metrics
    with weight_by_size=True, the mmlu group's aggregate_metric_list): sum(acc_i * n_i) / sum(n_i)."""
    import numpy as np

    rng = np.random.default_rng(11)
    sizes = {"mmlu_a": 7, "mmlu_b": 12, "mmlu_c": 5}
    groups = {"mmlu": ["mmlu_stem", "mmlu_humanities"], "mmlu_stem": ["mmlu_a", "mmlu_b"],
              "mmlu_humanities": ["mmlu_c"], "mmlu_a": [], "mmlu_b": [], "mmlu_c": []}
    out = {}
    for model, skill in (("org__small", 0.4), ("org__large", 0.7)):
        (folder / model).mkdir(parents=True)
        accs = {}
        for task, n in sizes.items():
            values = (rng.random(n) < skill).astype(float)
            accs[task] = values
            with open(folder / model / f"samples_{task}_{date}.jsonl", "w") as f:
                for doc_id, v in enumerate(values):
                    f.write(json.dumps({"doc_id": doc_id, "filter": "none", "metrics": ["acc"], "acc": v}) + "\n")
        weighted = sum(a.sum() for a in accs.values()) / sum(sizes.values())
        results = {t: {"alias": t, "acc,none": float(a.mean())} for t, a in accs.items()}
        results["mmlu"] = {"alias": "mmlu", "acc,none": float(weighted)}
        (folder / model / f"results_{date}.json").write_text(json.dumps({"results": results,
                                                                          "group_subtasks": groups}))
        out[model] = results
    return out


def test_subtask_groups_as_columns_and_corpora(tmp_path):
    results = grouped(tmp_path / "runs")
    spec = {"title": "t", "data": {"scores": {"format": "lm_eval", "path": "runs", "metrics": ["acc"]}}}
    from sigreport.data.sources import read_source

    table = read_source(sigreport.load_spec(spec, base_dir=tmp_path)).table
    task = table.cells["task"].to_pylist()
    group = table.cells["group"].to_pylist()
    assert dict(zip(task, group)) == {"mmlu_a": "mmlu_stem", "mmlu_b": "mmlu_stem", "mmlu_c": "mmlu_humanities"}
    by_task = load_data(sigreport.load_spec(spec, base_dir=tmp_path))
    assert set(by_task.corpora) == {"mmlu_a", "mmlu_b", "mmlu_c"}
    spec["data"]["scores"]["corpus"] = "group"
    ds = load_data(sigreport.load_spec(spec, base_dir=tmp_path))
    assert ds.corpora == ("mmlu",)
    block = ds.blocks[("acc", "mmlu")]
    assert len(block.items) == 7 + 12 + 5 and block.items[0] == "mmlu_a/0"
    for model, res in results.items():  # the mean over the group's items: lm-eval's size-weighted group value
        assert block.scores[:, block.systems.index(model)].mean() == pytest.approx(res["mmlu"]["acc,none"],
                                                                                   abs=1e-15)
        for t in ("mmlu_a", "mmlu_b", "mmlu_c"):
            mine = [i for i, name in enumerate(block.items) if name.startswith(t + "/")]
            assert block.scores[mine, block.systems.index(model)].mean() == pytest.approx(res[t]["acc,none"])


def test_corpus_group_needs_the_results_file(folder, cli):
    spec = folder / "lm.yaml"
    spec.write_text(yaml_dump(spec_of(["acc"], corpus="group")))
    r = cli("validate", spec)
    assert r.code == 2 and "corpus: group needs lm-eval's results_<date>.json with group_subtasks" in r.err
    assert "line" in r.err


def test_a_role_named_like_the_readers_columns(folder, cli):
    """data.columns.corpus: task would be overwritten by the reader's task column: refused, naming data.columns."""
    spec = folder / "lm.yaml"
    data = {**spec_of(["acc"])["data"], "columns": {"corpus": "task"}}
    spec.write_text(yaml_dump({**spec_of(["acc"]), "data": data}))
    r = cli("validate", spec)
    assert r.code == 2 and "column 'task' is in the table already" in r.err and "data.columns" in r.err


def test_samples_parsed_at_once_are_the_samples_parsed_line_by_line(tmp_path):
    """read_samples parses a file's lines as one JSON array when that is the same as parsing each line; a line
    holding two values, or one that is not an object with a doc_id, falls back to the line-by-line errors."""
    import json

    from sigreport.data.sources.lm_eval import read_samples
    from sigreport.errors import DataError

    lines = ['{"doc_id": 0, "acc": 1.0, "x": [1, {"y": NaN}]}', "", '  {"doc_id": "b", "acc": true}  ', '{"doc_id": 2}']
    good = tmp_path / "samples_t_2026.jsonl"
    good.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = [(n, json.loads(line)) for n, line in enumerate(lines, start=1) if line.strip()]
    got = read_samples(good)
    assert [n for n, _ in got] == [1, 3, 4]
    assert json.dumps(got) == json.dumps(expected)
    for bad_line, message in (('{"doc_id": 5}, {"doc_id": 6}', "not valid JSON"), ("1, 2", "not valid JSON"),
                              ('{"acc": 1}', "with a doc_id")):
        bad = tmp_path / "samples_u_2026.jsonl"
        bad.write_text("\n".join([lines[0], bad_line, lines[3]]) + "\n", encoding="utf-8")
        with pytest.raises(DataError) as err:
            read_samples(bad)
        assert [p.line for p in err.value.problems] == [2] and message in err.value.problems[0].message
