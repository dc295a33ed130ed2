"""Score tables as people have them: wide (rows x systems, or metric x system headers), one metric or corpus
without its column, booleans, several files by a glob with names from the file names, and data frames
given to the Python API without any data path. Each must give the analyses the long table gives."""

from __future__ import annotations

import pandas as pd
import pytest
from conftest import CONFIGS

import sigreport

DEMSAR = {"title": "t", "seed": 2006, "metrics": {"auc": {"higher_is_better": True, "decimals": 3, "precision": 3}},
          "systems": ["C4.5", "C4.5m", "C4.5cf", "C4.5cf,m"],
          "tests": {"level": "corpora", "pairwise": "wilcoxon", "omnibus": "friedman", "posthoc": "nemenyi"}}


def analyses(spec: dict, base_dir=None, **frames) -> list:
    return sigreport.analyze(sigreport.load_spec(spec, base_dir=base_dir), **frames).to_dict()["analyses"]


@pytest.fixture(scope="module")
def long_demsar() -> pd.DataFrame:
    return pd.read_csv(CONFIGS / "data" / "demsar_auc.csv")


@pytest.fixture(scope="module")
def expected(long_demsar) -> list:
    return analyses(DEMSAR, scores=long_demsar)


def test_a_wide_data_frame_needs_no_data_path(long_demsar, expected):
    """What groupby().unstack() gives (data sets x systems) goes in as it is: no metric column, no path."""
    wide = long_demsar.groupby(["corpus", "system"], sort=False)["value"].first().unstack()
    spec = {**DEMSAR, "data": {"scores": {"layout": "wide", "rows": "corpus"}}}
    assert analyses(spec, scores=wide) == expected
    assert analyses(spec, scores=wide.reset_index()) == expected  # the row names in the first column


def test_a_wide_file_and_two_header_rows(tmp_path, long_demsar, expected):
    corpora = list(dict.fromkeys(long_demsar["corpus"]))  # pivot sorts the rows: keep the long table's order
    wide = long_demsar.pivot(index="corpus", columns="system", values="value").loc[corpora]
    wide.to_csv(tmp_path / "wide.csv")
    spec = {**DEMSAR, "data": {"scores": {"path": "wide.csv", "layout": "wide", "rows": "corpus"}}}
    assert analyses(spec, tmp_path) == expected
    two = long_demsar.pivot(index="corpus", columns=["metric", "system"], values="value").loc[corpora]
    two.to_csv(tmp_path / "two.csv")  # pandas writes metric, system and the index title on three lines
    spec = {**DEMSAR, "data": {"scores": {"path": "two.csv", "layout": "wide", "rows": "corpus",
                                          "header": ["metric", "system"]}}}
    assert analyses(spec, tmp_path) == expected
    assert analyses({**spec, "data": {"scores": {k: v for k, v in spec["data"]["scores"].items() if k != "path"}}},
                    scores=two) == expected


def test_one_metric_and_one_corpus_need_no_column(tmp_path):
    long = pd.read_csv(CONFIGS / "data" / "summarizers.csv")
    spec = sigreport.load_spec(CONFIGS / "summarizers.yaml")
    want = sigreport.analyze(spec).to_dict()["analyses"]
    bare = long.drop(columns=["metric", "corpus"])
    with pytest.raises(sigreport.DataError) as info:  # no corpus named in the spec: the column is needed
        sigreport.analyze(spec, scores=bare)
    message = info.value.problems[0].message
    assert "missing column 'corpus' in the data frame" in message and "name exactly one corpus" in message
    assert info.value.problems[0].line is None and "'item'" in message  # present columns only
    one = sigreport.load_spec({**spec.spec.model_dump(exclude_unset=True), "corpora": ["texts"]},
                              base_dir=CONFIGS)
    assert sigreport.analyze(one, scores=bare).to_dict()["analyses"] == want


def test_a_frame_without_its_columns_says_column_not_line():
    """Before: "line 1: missing columns 'system', 'corpus', 'metric', 'value'; present: ..., 'item'" for a
    frame with no item column, in level corpora."""
    frame = pd.DataFrame({"dataset": ["a", "b"], "A": [0.1, 0.2], "B": [0.3, 0.4]})
    with pytest.raises(sigreport.DataError) as info:
        analyses({**DEMSAR, "systems": None, "metrics": {"auc": {"higher_is_better": True}}}, scores=frame)
    p = info.value.problems[0]
    assert p.line is None and "line" not in p.render()
    assert p.message.startswith("missing columns 'system', 'corpus', 'value' in the data frame; present: "
                                "'dataset', 'A', 'B'")
    twice = pd.DataFrame([["A", "c", "m", 1.0, 2.0]], columns=["system", "corpus", "metric", "value", "value"])
    with pytest.raises(sigreport.DataError) as info:
        analyses({**DEMSAR, "systems": None, "metrics": {"m": {"higher_is_better": True}}}, scores=twice)
    p = info.value.problems[0]
    assert p.line is None and "duplicate column name 'value'" in p.message


def test_booleans_are_scores_of_one_and_zero():
    """pred == gold per item, as True/False (a data frame's bool column, or the text true/false)."""
    rows = [("A", f"i{i}", v) for i, v in enumerate([True, True, False, True, True, False, True, True])]
    rows += [("B", f"i{i}", v) for i, v in enumerate([False, True, False, False, True, False, False, True])]
    frame = pd.DataFrame(rows, columns=["system", "item", "value"])
    spec = {"title": "t", "corpora": ["c"], "metrics": {"correct": {"higher_is_better": True}}}
    got = sigreport.analyze(sigreport.load_spec(spec), scores=frame)
    means = {s.system: s.mean for s in got["correct/c/descriptives"].systems}
    assert means == {"A": 6 / 8, "B": 3 / 8}
    text = frame.assign(value=frame["value"].map({True: "true", False: "FALSE"}))
    assert analyses(spec, scores=text) == got.to_dict()["analyses"]


def test_several_files_by_glob_with_names_from_file_names(tmp_path, long_demsar, expected):
    (tmp_path / "runs").mkdir()
    for system, part in long_demsar.groupby("system", sort=False):
        part.drop(columns=["system"]).to_csv(tmp_path / "runs" / f"{system}.csv", index=False)
    spec = {**DEMSAR, "data": {"scores": {"path": "runs/*.csv", "from_name": "{system}.csv"}}}
    assert analyses(spec, tmp_path) == expected
    # a bad cell is reported with the file and its line
    bad = tmp_path / "runs" / "C4.5m.csv"
    bad.write_text(bad.read_text().replace("0.768", "n/a", 1))
    with pytest.raises(sigreport.DataError) as info:
        analyses(spec, tmp_path)
    assert "C4.5m.csv line 2" in info.value.problems[0].message


def test_table_source_mistakes(tmp_path, long_demsar):
    spec = {**DEMSAR, "data": {"scores": {"path": "none/*.csv", "from_name": "{system}.csv"}}}
    with pytest.raises(sigreport.DataError, match=r"no file matches 'none/\*.csv'"):
        analyses(spec, tmp_path)
    long_demsar.to_csv(tmp_path / "x.csv", index=False)
    spec = {**DEMSAR, "data": {"scores": {"path": "x.csv", "from_name": "{system}.csv"}}}
    with pytest.raises(sigreport.DataError, match="column 'system' is in the file and in data.scores.from_name"):
        analyses(spec, tmp_path)
    with pytest.raises(sigreport.SpecError, match=r"from_name needs one or more of \{system\}"):
        sigreport.load_spec({**DEMSAR, "data": {"scores": {"path": "x.csv", "from_name": "{model}.csv"}}})
    with pytest.raises(sigreport.SpecError) as info:
        sigreport.load_spec("title: t\ndata:\n  scores:\n    path: x.csv\n    layout: tall\nmetrics:\n"
                            "  m: {higher_is_better: true}\n")
    p = info.value.problems[0]
    assert (p.field, p.line) == ("data.scores.layout", 5) and "'tall' is not allowed" in p.message
    with pytest.raises(sigreport.SpecError, match="unknown key 'sheet'; allowed: format, from_name, header, layout"):
        sigreport.load_spec({**DEMSAR, "data": {"scores": {"path": "x.csv", "sheet": 1}}})
    with pytest.raises(sigreport.SpecError, match="metrics are read from data.scores, which is missing"):
        analyses(DEMSAR)  # no data section and no data frame


def test_the_wide_example_is_the_uci_example():
    """configs/wide.yaml reads data/uci_wide.csv (uci_accuracy.csv reshaped): the same analyses as uci.yaml."""
    wide = sigreport.analyze(CONFIGS / "wide.yaml").to_dict()["analyses"]
    assert wide == sigreport.analyze(CONFIGS / "uci.yaml").to_dict()["analyses"]
