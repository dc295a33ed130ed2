"""Broken specs and data: every problem reported at once, with file, line and field; exit code 2."""

from __future__ import annotations

import pytest

from conftest import GOOD_DATA, GOOD_SPEC, assert_user_error



# (name, spec text, data text, fragments that must appear in stderr, in order of appearance per line)
CASES = [
    ("unknown top-level key", GOOD_SPEC + "colour: red\n", GOOD_DATA,
     ["spec.yaml is invalid (1 problem)", "colour (line 7): unknown key 'colour'; allowed: agreement, alpha, baseline"]),
    ("unknown method", GOOD_SPEC + "tests:\n  pairwise: ttest\n", GOOD_DATA,
     ["tests.pairwise (line 8): 'ttest' is not allowed (did you mean 'paired_t'?); allowed: 'auto', 'paired_t'"]),
    ("misspelt method", GOOD_SPEC + "tests:\n  correction: holms\n", GOOD_DATA,
     ["tests.correction (line 8): 'holms' is not allowed (did you mean 'holm'?); allowed: 'holm'"]),
    ("misspelt key", GOOD_SPEC + "tests:\n  pairwse: paired_t\n", GOOD_DATA,
     ["tests.pairwse (line 8): unknown key 'pairwse' (did you mean 'pairwise'?); allowed: alternative"]),
    ("no close key", GOOD_SPEC + "colour: red\n", GOOD_DATA, ["unknown key 'colour'; allowed: agreement"]),
    ("alpha out of range", "alpha: 1.5\n" + GOOD_SPEC, GOOD_DATA,
     ["alpha (line 1): alpha must be between 0 and 1 (exclusive); given 1.5"]),
    ("alpha as a percentage", "alpha: 5\n" + GOOD_SPEC, GOOD_DATA,
     ["alpha (line 1): alpha must be between 0 and 1 (exclusive); given 5"]),
    ("resamples below the range", GOOD_SPEC + "tests:\n  resamples: 0\n", GOOD_DATA,
     ["tests.resamples (line 8): resamples must be between 99 and 10,000,000 (inclusive); given 0"]),
    ("misspelt system", GOOD_SPEC.replace("title: t\n", "title: t\nsystems: [A, b]\n"), GOOD_DATA,
     ["systems[1] (line 2): system 'b' is not in", "(did you mean 'B'?); present: A, B"]),
    ("direction missing", GOOD_SPEC.replace("    higher_is_better: true\n", "    label: M\n"), GOOD_DATA,
     ["metrics.m.higher_is_better (line 5): required but missing"]),
    ("two problems at once", GOOD_SPEC.replace("title: t\n", "") + "tests:\n  correction: sidak\n", GOOD_DATA,
     ["(2 problems)", "title: required but missing", "tests.correction (line 7): 'sidak' is not allowed"]),
    ("duplicate yaml key", GOOD_SPEC + "title: again\n", GOOD_DATA, ["title (line 7): key 'title' appears more than once"]),
    ("yaml syntax", "title: [unclosed\n", GOOD_DATA, ["line 2: not valid YAML"]),
    ("not a mapping", "- a\n- b\n", GOOD_DATA, ["the spec must be a YAML mapping"]),
    ("baseline not a system", GOOD_SPEC + "systems: [A, B]\nbaseline: C\n", GOOD_DATA,
     ["baseline 'C' is not one of the systems: A, B"]),
    ("baseline misspelt", GOOD_SPEC + "systems: [A, B]\nbaseline: b\n", GOOD_DATA,
     ["baseline 'b' is not one of the systems (did you mean 'B'?): A, B"]),
    ("metric not in data", GOOD_SPEC + "  rouge2:\n    higher_is_better: true\n", GOOD_DATA,
     ["metrics.rouge2 (line 7): metric 'rouge2' is not in", "present: m"]),
    ("system not in data", GOOD_SPEC + "systems: [A, Z]\n", GOOD_DATA,
     ["systems[1] (line 7): system 'Z' is not in", "present: A, B"]),
    ("data file missing", GOOD_SPEC.replace("scores.csv", "nope.csv"), None, ["data.scores: file not found"]),
    ("unknown format", GOOD_SPEC.replace("scores.csv", "scores.xlsx"), GOOD_DATA, ["unknown table format '.xlsx'"]),
    ("missing column", GOOD_SPEC, GOOD_DATA.replace("value", "score"),
     ["missing column 'value'; present: 'system', 'corpus', 'item', 'metric', 'score'"]),
    ("non-numeric", GOOD_SPEC, GOOD_DATA.replace("0.58", "abc"), ["non-numeric value in column 'value' at line 3 (first: 'abc')"]),
    ("nan", GOOD_SPEC, GOOD_DATA.replace("0.58", "nan").replace("0.44", "inf"),
     ["NaN or infinite values in column 'value' at lines 3, 6"]),
    ("duplicate rows", GOOD_SPEC, GOOD_DATA + "A,c,t1,m,0.60\n",
     ["duplicate (system, corpus, item, metric) rows at lines 2, 8 (first: A, c, t1, m)"]),
    ("system lacks an item", GOOD_SPEC, GOOD_DATA.replace("B,c,t3,m,0.45\n", ""),
     ["metric 'm', corpus 'c': B lacks item 't3' that another system has", "data.missing: drop_items"]),
    ("empty key", GOOD_SPEC, GOOD_DATA.replace("A,c,t2", "A,,t2"), ["empty 'corpus' at line 3"]),
    ("mapped column missing", GOOD_SPEC.replace("  scores: scores.csv\n", "  scores: scores.csv\n  columns:\n    value: score\n"),
     GOOD_DATA, ["missing column 'score'", "(mapped in data.columns)"]),
    # a family no machine has (it was left out of the figures' fonts and DejaVu Sans drawn, silently)
    ("unknown figure font", GOOD_SPEC + "outputs:\n  figure_style: {font: Qqzx Nonexistent Family}\n", GOOD_DATA,
     ["outputs.figure_style.font (line 8): not a font family matplotlib knows on this machine", "closest: ",
      "or one of serif, sans, sans-serif, monospace (given: 'Qqzx Nonexistent Family')"]),
    # DejaVu Sans ships inside matplotlib: on every machine the closest name is the right-cased one
    ("figure font in another case", GOOD_SPEC + "outputs:\n  figure_style: {font: dejavu sans}\n", GOOD_DATA,
     ["outputs.figure_style.font (line 8): not a font family", "closest: DejaVu Sans;"]),
]


@pytest.mark.parametrize("name,spec,data,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input(cli, workdir, name, spec, data, fragments):
    workdir.write("spec.yaml", spec)
    if data is not None:
        workdir.write(spec.split("scores: ")[1].split("\n")[0] if "scores: " in spec else "scores.csv", data)
    assert_user_error(cli, workdir.path / "spec.yaml", workdir.path / "out", name, fragments)


def test_spec_file_missing(cli, tmp_path):
    r = cli("build", tmp_path / "nope.yaml")
    assert r.code == 2 and "file not found" in r.err


def test_drop_items_reports_the_count(cli, workdir):
    workdir.write("spec.yaml", GOOD_SPEC.replace("  scores: scores.csv\n", "  scores: scores.csv\n  missing: drop_items\n"))
    workdir.write("scores.csv", GOOD_DATA.replace("B,c,t3,m,0.45\n", "") + "A,c,t4,m,0.5\nB,c,t4,m,0.4\n")
    r = cli("build", "-o", workdir.path / "out", "--formats", "json,html", workdir.path / "spec.yaml")
    assert r.code == 0, r.err
    desc = workdir.results()["analyses"][0]
    assert desc["dropped_items"] == 1 and desc["n_items"] == 3
    assert "1 item(s) dropped" in (workdir.path / "out" / "index.html").read_text()


def test_failed_build_keeps_previous_report(cli, workdir):
    workdir.write("spec.yaml", GOOD_SPEC)
    workdir.write("scores.csv", GOOD_DATA)
    out = workdir.path / "out"
    assert cli("build", "-o", out, "--formats", "json", workdir.path / "spec.yaml").code == 0
    before = (out / "results.json").read_bytes()
    workdir.write("scores.csv", GOOD_DATA.replace("0.58", "oops"))
    assert cli("build", "-o", out, "--formats", "json", workdir.path / "spec.yaml").code == 2
    assert (out / "results.json").read_bytes() == before
    left = sorted(p.name for p in workdir.path.iterdir() if p.name != ".sigreport-cache")  # the result cache stays
    assert left == ["out", "scores.csv", "spec.yaml"], "no temp folders left"


def test_refuses_to_replace_a_folder_that_is_not_a_report(cli, workdir):
    workdir.write("spec.yaml", GOOD_SPEC)
    workdir.write("scores.csv", GOOD_DATA)
    keep = workdir.write("mine/thesis.tex", "precious")
    r = cli("build", "-o", workdir.path / "mine", workdir.path / "spec.yaml")
    assert r.code == 2 and "not a sigreport report" in r.err
    assert keep.read_text() == "precious"


def test_strict_turns_warnings_into_failure(cli, workdir):
    workdir.write("spec.yaml", GOOD_SPEC)
    workdir.write("scores.csv", GOOD_DATA.replace("0.39", "0.59").replace("0.44", "0.58").replace("0.45", "0.57"))
    out = workdir.path / "out"
    ok = cli("build", "-o", out, "--formats", "json", workdir.path / "spec.yaml")
    assert ok.code == 0 and "warning" in ok.out
    r = cli("build", "-o", workdir.path / "out2", "--strict", workdir.path / "spec.yaml")
    assert r.code == 2 and "identical scores" in r.err and not (workdir.path / "out2").exists()


@pytest.mark.parametrize("font", ["DejaVu Sans", "serif", "sans", "sans-serif", "monospace"])
def test_installed_and_generic_figure_fonts_are_valid(cli, workdir, font):
    """DejaVu Sans ships inside matplotlib (installed everywhere); the generic names stand for a family."""
    workdir.write("scores.csv", GOOD_DATA)
    spec = workdir.write("spec.yaml", GOOD_SPEC + f"outputs:\n  figure_style: {{font: {font}}}\n")
    r = cli("validate", spec)
    assert r.code == 0, r.err


def test_bad_format_option(cli, workdir, capsys):
    workdir.write("spec.yaml", GOOD_SPEC)
    with pytest.raises(SystemExit) as exc:
        cli("build", "--formats", "docx", workdir.path / "spec.yaml")
    assert exc.value.code == 2
