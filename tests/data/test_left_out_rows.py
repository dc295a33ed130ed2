"""Systems, corpora and metrics of the score table that the spec does not list are named with their rows: a
warning in validate and the build (exit 2 with --strict, nothing written), the report's settings and
results.json's ``data.left_out``; never dropped in silence."""

from __future__ import annotations

import json

from conftest import GOOD_DATA, GOOD_SPEC

# 4 systems x 3 corpora x 2 metrics x 5 items = 120 rows; the spec lists systems A, B, corpora x, y, metric m
ROWS = ["system,corpus,item,metric,value"] + [
    f"{s},{c},i{i},{m},{0.1 * k + 0.01 * ((3 * i + len(c) + len(m)) % 7):.3f}"
    for k, s in enumerate("ABCD") for c in ("x", "y", "z") for m in ("m", "old") for i in range(5)]
SPEC = """\
title: t
data: {scores: s.csv}
systems: [A, B]
corpora: [x, y]
metrics:
  m: {higher_is_better: true}
"""
# rows left out along each axis, counted from ROWS: systems C, D: 2 x 3 x 2 x 5 = 60; corpus z: 4 x 2 x 5 = 40;
# metric old: 4 x 3 x 5 = 60; analysed: A, B on x, y of m: 2 x 2 x 5 = 20
WARNINGS = ["systems (line 3): systems C, D of s.csv are not listed: 60 of 120 score rows left out",
            "corpora (line 4): corpus z of s.csv is not listed: 40 of 120 score rows left out",
            "metrics (line 5): metric old of s.csv is not listed: 60 of 120 score rows left out"]


def _write(workdir, spec: str = SPEC, rows: list[str] = ROWS):
    workdir.write("s.csv", "\n".join(rows) + "\n")
    return workdir.write("spec.yaml", spec)


def test_validate_names_every_axis_left_out_with_its_rows(cli, workdir):
    r = cli("validate", _write(workdir))
    assert r.code == 0, r.err
    assert r.err.splitlines() == [f"warning: {w}" for w in WARNINGS]
    assert "20 of 120 score rows" in r.out


def test_validate_strict_fails_on_rows_left_out(cli, workdir):
    r = cli("validate", "--strict", _write(workdir))
    assert r.code == 2 and "Traceback" not in r.err
    assert r.err.splitlines() == ["error: 3 warnings with --strict"] + [f"  {w}" for w in WARNINGS]
    assert r.out == ""


def test_build_warns_and_the_report_and_results_name_what_was_left_out(cli, workdir):
    spec = _write(workdir)
    out = workdir.path / "out"
    r = cli("build", "--no-cache", "-o", out, "--formats", "json,html", spec)
    assert r.code == 0, r.err
    assert [line for line in r.err.splitlines() if line.startswith("warning: ")] == [f"warning: {w}" for w in WARNINGS]
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    analysed = sum(len(a.get("warnings", [])) + sum(len(p.get("warnings", [])) for p in a.get("pairs", []))
                   for a in doc["analyses"])
    assert f"{3 + analysed} warnings" in r.out  # the build's count holds the three
    data = doc["data"]
    assert data["rows"] == 20 and data["table_rows"] == 120
    assert data["left_out"] == [{"table": "scores", "field": "systems", "names": ["C", "D"], "rows": 60, "of": 120},
                                {"table": "scores", "field": "corpora", "names": ["z"], "rows": 40, "of": 120},
                                {"table": "scores", "field": "metrics", "names": ["old"], "rows": 60, "of": 120}]
    html = (out / "index.html").read_text(encoding="utf-8")
    assert ("systems C, D (not in the spec&#39;s systems): 60 of 120 score rows; corpora z (not in the spec&#39;s "
            "corpora): 40 of 120 score rows; metrics old (not in the spec&#39;s metrics): 60 of 120 score rows; "
            "not analysed") in html


def test_build_strict_fails_before_any_analysis_and_writes_nothing(cli, workdir):
    out = workdir.path / "out"
    r = cli("build", "-q", "--strict", "--no-cache", "-o", out, _write(workdir))
    assert r.code == 2 and "Traceback" not in r.err
    assert r.err.splitlines()[0] == "error: 3 warnings with --strict"
    assert not out.exists()


def test_build_quiet_prints_no_warning(cli, workdir):
    r = cli("build", "-q", "--no-cache", "-o", workdir.path / "out", "--formats", "json", _write(workdir))
    assert r.code == 0 and r.err == "" and r.out == ""


def test_many_names_are_listed_first_five_then_counted(cli, workdir):
    rows = ["system,corpus,item,metric,value"] + [f"S{k},c,i{i},m,{0.1 * k + 0.02 * i:.2f}"
                                                  for k in range(9) for i in range(3)]
    spec = _write(workdir, GOOD_SPEC.replace("scores.csv", "s.csv") + "systems: [S0, S1]\n", rows)
    r = cli("validate", spec)
    assert r.code == 0, r.err
    # 7 systems left out (S2..S8), 3 rows each: 21 of 27
    assert r.err == ("warning: systems (line 7): systems S2, S3, S4, S5, S6 and 2 more of s.csv are not listed: "
                     "21 of 27 score rows left out\n")


def test_nothing_left_out_says_nothing(cli, workdir):
    workdir.write("scores.csv", GOOD_DATA)
    spec = workdir.write("spec.yaml", GOOD_SPEC + "systems: [B, A]\n")  # every system listed, in another order
    r = cli("validate", "--strict", spec)
    assert r.code == 0 and r.err == ""
    assert "6 score rows" in r.out and " of " not in r.out.split(":", 2)[2]


# Label tables too: predictions of three systems on two corpora, the spec lists systems A, B and corpus c
PREDS = ["system,corpus,item,gold,pred"] + [f"{s},{c},t{i},{g},{p}" for s in "ABC" for c in ("c", "d")
                                            for i, (g, p) in enumerate([("pos", "pos"), ("neg", "pos"), ("neg", "neg"),
                                                                        ("pos", "neg")])]
PRED_SPEC = """\
title: t
data: {predictions: preds.csv}
systems: [A, B]
corpora: [c]
classification: {resamples: 99}
"""
# counted from PREDS: system C: 2 corpora x 4 items = 8 of 24 rows; corpus d: 3 systems x 4 items = 12 of 24
PRED_WARNINGS = ["systems (line 3): system C of preds.csv is not listed: 8 of 24 prediction rows left out",
                 "corpora (line 4): corpus d of preds.csv is not listed: 12 of 24 prediction rows left out"]
# outcomes (long): systems x, y, z on corpora k, l; the spec lists x, y and k
OUTCOMES = ["system,corpus,item,value"] + [f"{s},{c},p{i},{(i + len(s)) % 2}" for s in "xyz" for c in "kl"
                                           for i in range(6)]
OUTCOME_SPEC = """\
title: t
data: {outcomes: out.csv}
systems: [x, y]
corpora: [k]
outcomes: {mcnemar: auto}
"""
# system z: 2 corpora x 6 items = 12 of 36 rows; corpus l: 3 systems x 6 items = 18 of 36
OUTCOME_WARNINGS = ["systems (line 3): system z of out.csv is not listed: 12 of 36 outcome rows left out",
                    "corpora (line 4): corpus l of out.csv is not listed: 18 of 36 outcome rows left out"]


def test_prediction_rows_left_out_are_named_in_validate_build_report_and_results(cli, workdir):
    workdir.write("preds.csv", "\n".join(PREDS) + "\n")
    spec = workdir.write("spec.yaml", PRED_SPEC)
    r = cli("validate", spec)
    assert r.code == 0, r.err
    assert r.err.splitlines() == [f"warning: {w}" for w in PRED_WARNINGS]
    assert cli("validate", "--strict", spec).code == 2
    out = workdir.path / "out"
    r = cli("build", "--no-cache", "-o", out, "--formats", "json,html", spec)
    assert r.code == 0, r.err
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert doc["data"]["left_out"] == [
        {"table": "predictions", "field": "systems", "names": ["C"], "rows": 8, "of": 24},
        {"table": "predictions", "field": "corpora", "names": ["d"], "rows": 12, "of": 24}]
    assert "table_rows" not in doc["data"]  # that is the score table's count; there is none
    html = (out / "index.html").read_text(encoding="utf-8")
    assert ("systems C (not in the spec&#39;s systems): 8 of 24 prediction rows; corpora d (not in the spec&#39;s "
            "corpora): 12 of 24 prediction rows; not analysed") in html


def test_outcome_rows_left_out_are_named(cli, workdir):
    workdir.write("out.csv", "\n".join(OUTCOMES) + "\n")
    r = cli("validate", workdir.write("spec.yaml", OUTCOME_SPEC))
    assert r.code == 0, r.err
    assert r.err.splitlines() == [f"warning: {w}" for w in OUTCOME_WARNINGS]


def test_annotation_rows_of_corpora_not_listed_are_named(cli, workdir):
    rows = ["corpus,item,annotator,label"] + [f"{c},t{i},{a},{(i * len(a)) % 3}" for c in ("c", "d")
                                              for a in ("x", "yy") for i in range(5)]
    workdir.write("anns.csv", "\n".join(rows) + "\n")
    r = cli("validate", workdir.write("spec.yaml", "title: t\ndata: {annotations: anns.csv}\ncorpora: [c]\n"))
    assert r.code == 0, r.err
    # corpus d: 2 annotators x 5 items = 10 of 20 rows
    assert r.err.splitlines() == ["warning: corpora (line 3): corpus d of anns.csv is not listed: 10 of 20 "
                                  "annotation rows left out"]
