"""The Python API: the README's and docs/api.md's examples run as written, and the API gives what the command line
gives."""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest
from conftest import CONFIGS, ROOT

import sigreport


def test_readme_own_data_example_runs_as_written(tmp_path, capsys):
    """The README's "Your own data" table and spec, and its Python API lines, as a new user would copy them."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    own = text[text.index("## Your own data"):]
    table, spec = re.findall(r"```(?:yaml)?\n(.*?)```", own, re.S)[:2]
    (tmp_path / "scores.csv").write_text(table, encoding="utf-8")
    (tmp_path / "spec.yaml").write_text(spec, encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text[text.index("## Python API"):], re.S).group(1)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(code, "README.md (Python API)", "exec"), {})
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("0.0237")  # the source's worked example 1: t = 6.379, 2 df, p = 0.02370
    assert (tmp_path / "reports" / "x" / "index.html").exists()


def test_api_page_example_runs(tmp_path, capsys):
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    section = text[text.index("# Python API"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shutil.copytree(CONFIGS, tmp_path / "configs", ignore=shutil.ignore_patterns("reports", ".sigreport-cache"))
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(code, "docs/api.md (Python API)", "exec"), {})
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("A B 0.0237") and "level=0.95" in out[0]
    assert any("alpha" in line and "expected a number" in line for line in out[1:])
    assert (tmp_path / "out" / "summarizers" / "index.html").exists()


def test_analyze_equals_the_built_results_json(cli, tmp_path):
    for name in ("classifiers", "demsar", "cv_5x2"):
        spec = CONFIGS / f"{name}.yaml"
        assert cli("build", spec, "-o", tmp_path / name, "--formats", "json", "--no-cache", "-q").code == 0
        built = json.loads((tmp_path / name / "results.json").read_text())
        assert sigreport.analyze(spec).to_dict() == built, name


def test_errors_are_exceptions_with_problems(tmp_path):
    with pytest.raises(sigreport.SpecError) as info:
        sigreport.load_spec("title: x\nalpha: 2\n")
    assert isinstance(info.value, sigreport.UserError)
    assert any(p.field == "alpha" and p.line == 2 for p in info.value.problems)
    import pandas as pd

    spec = sigreport.load_spec(CONFIGS / "summarizers.yaml")
    frame = pd.read_csv(CONFIGS / "data" / "summarizers.csv")
    with pytest.raises(sigreport.DataError) as info:
        sigreport.analyze(spec, scores=frame.drop(columns=["value"]))
    assert "missing column 'value'" in info.value.problems[0].message
    with pytest.raises(sigreport.DataError) as info:  # a frame stands in for a table the spec does not name
        sigreport.analyze(spec, annotations=frame)
    problem = info.value.problems[0]
    assert "missing columns 'annotator', 'label' in the data frame" in problem.message and problem.line is None


def test_results_round_trip_through_json():
    from sigreport.results import from_json, to_json

    r = sigreport.analyze(CONFIGS / "summarization.yaml")
    back = from_json(to_json(r))
    assert back.to_dict() == r.to_dict()
    assert [x.id for x in back.records] == [x.id for x in r.records]


def test_a_build_leaves_the_garbage_collector_as_it_found_it(tmp_path):
    """speed.collector.long_lived freezes what a build keeps (gc.freeze) where the command line owns the
    process, and unfreezes at the end, also when the build stops with an error: a caller's process is left
    with nothing frozen. A library call (outside speed.owned_process) freezes nothing at all."""
    import gc

    from sigreport.api import pipeline
    from sigreport.api.pipeline import build
    from sigreport.speed import owned_process
    from sigreport.speed.collector import keep, long_lived

    assert gc.get_freeze_count() == 0
    keep()  # outside a build: does nothing
    assert gc.get_freeze_count() == 0
    with owned_process(), long_lived():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    with long_lived():  # a library call: nothing frozen
        keep()
        assert gc.get_freeze_count() == 0
    during = []
    load = pipeline.load_data
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pipeline, "load_data", lambda sf: during.append(gc.get_freeze_count()) or load(sf))
        build(CONFIGS / "demsar.yaml", tmp_path / "lib", formats=["json"])
        with owned_process():
            build(CONFIGS / "demsar.yaml", tmp_path / "out", formats=["json"])
    assert len(during) == 2 and during[0] == 0  # the library call did not freeze
    assert during[1] > 0  # the build did freeze
    assert gc.get_freeze_count() == 0
    (tmp_path / "scores.csv").write_text("system,corpus,item,metric,value\n")  # no rows: stops while reading
    spec = (CONFIGS / "demsar.yaml").read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(re.sub(r"(?m)^(\s*scores:).*$", r"\1 scores.csv", spec, count=1))
    with pytest.raises(sigreport.DataError), owned_process():
        build(bad, tmp_path / "out2", formats=["json"])
    assert gc.get_freeze_count() == 0
    gc.freeze()  # a caller that froze its own objects (a preloading server before it forks) is left alone
    try:
        mine = gc.get_freeze_count()
        with owned_process():
            build(CONFIGS / "demsar.yaml", tmp_path / "out3", formats=["json"])
        assert 0.9 * mine < gc.get_freeze_count() <= mine  # neither unfrozen nor added to (a few freed)
    finally:
        gc.unfreeze()


def test_a_build_reads_only_the_choices_of_its_previous_report(tmp_path):
    """A build into a folder reads the report already there for its test choices (``selection``) only: each
    analysis's header, not every pair typed (seconds for a large report). The methods it carries over are
    the ones the whole document gives, and every other field of its records is empty."""
    from sigreport.analyses import previous_methods
    from sigreport.api.releasing import previous_results
    from sigreport.results import from_json

    out = tmp_path / "out"
    sigreport.build(CONFIGS / "classifiers.yaml", out, formats=["json"])
    whole = from_json((out / "results.json").read_text(encoding="utf-8"))
    light = previous_results(out)
    assert previous_methods(light) == previous_methods(whole) and len(previous_methods(light)) > 5
    assert [r.id for r in light.records] == [r.id for r in whole.records]
    pairwise = next(r for r in light.records if r.kind == "pairwise")
    assert pairwise.pairs == () and pairwise.method == next(r for r in whole.records if r.id == pairwise.id).method
    assert previous_results(tmp_path / "nowhere") is None
