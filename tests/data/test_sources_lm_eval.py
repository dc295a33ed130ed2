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
