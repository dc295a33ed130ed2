"""Hostile data: OS errors, malformed rows, unprintable names, failing user
aggregates and blocks left with no or one item. Every case: exit 2 (or 0 with null values and a warning),
one line per problem, no traceback, nothing written."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from sigreport.errors import DataError, Problem, UserError, printable
from conftest import aggregate_spec, assert_user_error

HEADER = "system,corpus,item,metric,value\n"
GOOD = HEADER + "A,c1,i1,m,0.9\nB,c1,i1,m,0.8\nA,c1,i2,m,0.7\nB,c1,i2,m,0.6\n"
SPEC = """
title: t
data: {{scores: {name}}}
metrics: {{m: {{higher_is_better: true}}}}
"""


def _spec(workdir, table: str, name: str = "s.csv", extra: str = "") -> Path:
    (workdir.path / name).write_text(table, encoding="utf-8") if not name.endswith("/") else None
    return workdir.write("spec.yaml", SPEC.format(name=name.rstrip("/")) + extra)


def _no_control(text: str) -> None:
    """Nothing that a terminal would act on reached the output."""
    assert "\x1b" not in text and "\x85" not in text and "\x7f" not in text and "\r" not in text


# -------------------------------------------------------------------------------------------- line numbers


@pytest.mark.parametrize("suffix", [".jsonl", ".ndjson"])
def test_json_lines_report_the_file_line(cli, workdir, suffix):
    # line 1 a record, line 2 blank, line 3 the bad value: reported as line 3 for both suffixes
    rows = ['{"system": "A", "corpus": "c", "item": "i", "metric": "m", "value": 0.5}', "",
            '{"system": "B", "corpus": "c", "item": "i", "metric": "m", "value": "x"}']
    spec = _spec(workdir, "\n".join(rows) + "\n", "s" + suffix)
    assert_user_error(cli, spec, workdir.path / "out", suffix, ["non-numeric value in column 'value' at line 3 "])


def test_csv_lines_count_blank_lines_and_quoted_breaks(cli, workdir):
    table = HEADER + 'A,c1,i1,m,0.9\n\nB,c1,i1,m,0.8\nA,"c\n1",i2,m,0.5\nB,c1,i2,m,oops\n'
    spec = _spec(workdir, table)
    assert_user_error(cli, spec, workdir.path / "out", "lines", ["non-numeric value in column 'value' at line 7 ",
                                                                  "column 'corpus' at line 5"])


def test_json_lines_that_are_not_objects(cli, workdir):
    rows = ['{"system": "A", "corpus": "c", "item": "i", "metric": "m", "value": 0.5, "value": 1}', "[1, 2]",
            "{not json"]
    spec = _spec(workdir, "\n".join(rows) + "\n", "s.jsonl")
    assert_user_error(cli, spec, workdir.path / "out", "jsonl", ["line 1: duplicate key 'value'",
                                                                 "line 2 is not a JSON object",
                                                                 "line 3 is not valid JSON"])


# -------------------------------------------------------------------------------------------- OS errors


def test_data_path_is_a_folder(cli, workdir):
    (workdir.path / "s.csv").mkdir()
    spec = _spec(workdir, "", "s.csv/")
    assert_user_error(cli, spec, workdir.path / "out", "folder", ["data.scores", "is a folder, not a table file"])


def test_data_file_missing(cli, workdir):
    spec = workdir.write("spec.yaml", SPEC.format(name="nothere.csv"))
    assert_user_error(cli, spec, workdir.path / "out", "missing", ["data.scores", "file not found", "nothere.csv"])


def test_data_file_unreadable(cli, workdir, monkeypatch):
    # Tests run as root, who may read anything: simulate the operating system's refusal.
    spec = _spec(workdir, GOOD)
    real = Path.read_bytes

    def refuse(self: Path) -> bytes:
        if self.name == "s.csv":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    assert_user_error(cli, spec, workdir.path / "out", "unreadable", ["data.scores", "cannot read",
                                                                      "Permission denied"])


# -------------------------------------------------------------------------------------------- malformed rows


def test_trailing_delimiter_names_the_line(cli, workdir):
    spec = _spec(workdir, GOOD + "A,c1,i3,m,0.9,\n")
    assert_user_error(cli, spec, workdir.path / "out", "trailing",
                      ["line 6 has 6 fields, the header has 5 (a trailing delimiter?)"])


def test_every_row_with_a_trailing_delimiter(cli, workdir):
    spec = _spec(workdir, HEADER + "A,c1,i1,m,0.9,\nB,c1,i1,m,0.8,\n")
    assert_user_error(cli, spec, workdir.path / "out", "all trailing",
                      ["line 2 has 6 fields, the header has 5", "line 3 has 6 fields, the header has 5"])


def test_a_trailing_delimiter_on_every_line_including_the_header_is_an_unnamed_column(cli, workdir):
    table = "".join(line + ",\n" for line in GOOD.splitlines())
    r = cli("validate", _spec(workdir, table))
    assert r.code == 0, r.err


def test_short_row(cli, workdir):
    spec = _spec(workdir, GOOD + "A,c1,i3,m\n")
    assert_user_error(cli, spec, workdir.path / "out", "short", ["line 6 has 4 fields, the header has 5"])


def test_duplicate_column_names(cli, workdir):
    table = "system,corpus,item,metric,value,item\nA,c1,i1,m,0.9,x\nB,c1,i1,m,0.8,y\n"
    spec = _spec(workdir, table)
    assert_user_error(cli, spec, workdir.path / "out", "dup", ["duplicate column name 'item' in the header"])


def test_empty_file(cli, workdir):
    spec = _spec(workdir, "")
    assert_user_error(cli, spec, workdir.path / "out", "empty", ["the file is empty"])


# -------------------------------------------------------------------------------------------- unprintable names


@pytest.mark.parametrize("column, bad, shown", [
    ("system", "A\x1b[31m", r"'A\x1b[31m'"),
    ("corpus", "c\tone", r"'c\tone'"),
    ("metric", "m\x7f", r"'m\x7f'"),
    ("item", "i\x85", r"'i\x85'"),
    ("item", '"i\n1"', r"'i\n1'"),
])
def test_control_characters_in_names_are_rejected(cli, workdir, column, bad, shown):
    row = {"system": "A", "corpus": "c1", "item": "i3", "metric": "m", "value": "0.5"}
    row[column] = bad
    table = GOOD + ",".join(row.values()) + "\n"
    spec = _spec(workdir, table)
    out = workdir.path / "out"
    assert_user_error(cli, spec, out, column, [f"column {column!r} at line 6: {shown} contains a control character"])
    _no_control(cli("validate", spec).err)


def test_control_characters_in_labels_are_rejected(cli, workdir):
    (workdir.path / "p.csv").write_text("system,corpus,item,gold,pred\nA,c,i1,pos,pos\nB,c,i1,pos,ne\x1bg\n"
                                        "A,c,i2,neg,neg\nB,c,i2,neg,neg\n")
    spec = workdir.write("spec.yaml", "title: t\ndata: {predictions: p.csv}\n")
    assert_user_error(cli, spec, workdir.path / "out", "labels",
                      [r"column 'pred' at line 3: 'ne\x1bg' contains a control character"])


def test_problem_render_escapes_control_characters():
    p = Problem("f.csv", 3, "metrics.a\nb", "name 'x\x1b[2J' at line 4\n  forged: problem")
    line = p.render()
    assert "\n" not in line and "\x1b" not in line
    assert line == r"metrics.a\nb (line 3): name 'x\x1b[2J' at line 4\n  forged: problem"
    err = DataError("evil\x1b]0;title\x07.csv", [p, Problem("g", None, "", "ok")]).render()
    assert len(err.splitlines()) == 3 and "\x1b" not in err and "\x07" not in err
    assert printable("a\u2028b\x9bc\td") == r"a\u2028b\x9bc\td"
    assert printable("plain ünïcode") == "plain ünïcode"


def test_progress_escapes_names(monkeypatch):
    import io

    from sigreport.cli import Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Tty()
    monkeypatch.setattr(sys, "stderr", err)
    p = Progress(True)
    p.start -= 10  # shown at once
    p(1, 2, "metric m\x1b[2J\non corpus c")
    written = err.getvalue()
    assert "\x1b[2J" not in written and "\n" not in written and r"m\x1b[2J\non" in written


# -------------------------------------------------------------------------------------------- user aggregates


@pytest.mark.parametrize("kind, source, fragment", [
    ("syntax", "def precision(totals, n_items)\n    return 1\n", "SyntaxError"),
    ("raises", "raise RuntimeError('no licence file found')\n", "RuntimeError: no licence file found"),
    ("imports", "import sigreport_no_such_package\n", "No module named 'sigreport_no_such_package'"),
    ("exits", "import sys\nsys.exit(3)\n", "SystemExit"),
    ("not callable", "precision = 3\n", "is not a function"),
])
def test_user_aggregate_module_that_fails_to_import(cli, workdir, kind, source, fragment):
    module = f"agg_import_{kind.replace(' ', '_')}"
    spec = aggregate_spec(workdir, module, source)
    assert_user_error(cli, spec, workdir.path / "out", kind, ["metrics.p.aggregate", f"{module}:precision",
                                                              "metric 'p'", fragment])


def test_user_aggregate_that_raises_when_called(cli, workdir):
    spec = aggregate_spec(workdir, "agg_call_raises",
                           "def precision(totals, n_items):\n    raise ZeroDivisionError('empty class')\n")
    r = cli("build", "-q", "-o", workdir.path / "out", spec)  # -q: no progress lines before the error
    assert r.code == 2 and "Traceback" not in r.err, r
    assert "metrics.p.aggregate" in r.err and "'agg_call_raises'" in r.err and "metric 'p'" in r.err
    assert "ZeroDivisionError: empty class" in r.err
    assert all(line.startswith(("error: ", "  ")) for line in r.err.rstrip("\n").splitlines())
    assert not (workdir.path / "out").exists()


def test_user_error_from_an_aggregate_is_a_user_error():
    assert issubclass(DataError, UserError)


# -------------------------------------------------------------------------------------------- empty blocks


def _dropped_spec(workdir, n_items: int, pairwise: str, omnibus: str) -> Path:
    # three systems; items i0..i{n-1} scored by all, plus one item per system that the others lack
    rows = [HEADER.strip()]
    for j, s in enumerate("ABC"):
        rows += [f"{s},c,i{i},m,{0.1 * (j + 1) + 0.01 * i:.2f}" for i in range(n_items)]
        rows.append(f"{s},c,only{s},m,0.5")
    (workdir.path / "s.csv").write_text("\n".join(rows) + "\n")
    return workdir.write("spec.yaml", f"""
        title: t
        data: {{scores: s.csv, missing: drop_items}}
        metrics: {{m: {{higher_is_better: true}}}}
        tests: {{pairwise: {pairwise}, omnibus: {omnibus}, resamples: 99}}
        """)


CASES = [(p, "auto") for p in ("auto", "paired_t", "wilcoxon", "sign", "bootstrap", "permutation")] + \
        [("auto", o) for o in ("rm_anova", "friedman")]


@pytest.mark.parametrize("n_items", [0, 1])
@pytest.mark.parametrize("pairwise, omnibus", CASES)
def test_blocks_with_no_or_one_item_give_warnings_not_crashes(cli, workdir, n_items, pairwise, omnibus):
    spec = _dropped_spec(workdir, n_items, pairwise, omnibus)
    r = cli("build", "-q", "--formats", "json,html,latex", "-o", workdir.path / "out", spec)
    assert r.code == 0 and "Traceback" not in r.err, r
    doc = json.loads((workdir.path / "out" / "results.json").read_text())
    kinds = {a["kind"]: a for a in doc["analyses"]}
    assert kinds["descriptives"]["n_items"] == n_items and kinds["descriptives"]["warnings"]
    pw = kinds["pairwise"]
    for p in pw["pairs"]:
        assert p["warnings"], p
        if n_items == 0:
            assert p["pvalue"] is None and p["estimate"] is None, p
    om = kinds["omnibus"]
    assert om["statistic"] is None and om["pvalue"] is None and om["warnings"], om
    assert "posthoc" not in kinds or kinds["posthoc"]["method"] == "paired_t"


def test_automatic_choices_record_that_no_item_is_left():
    import numpy as np

    from sigreport.stats.select import choose_omnibus, choose_pairwise

    with pytest.raises(ValueError):  # the strict contract stays for callers that do not expect empty blocks
        choose_pairwise(np.zeros((0, 2)))
    pw = choose_pairwise(np.zeros((0, 2)), empty_ok=True)
    om = choose_omnibus(np.zeros((0, 3)), empty_ok=True)
    assert pw.method == "wilcoxon" and om.method == "friedman"
    for sel in (pw, om):
        assert sel.steps[-1].check == "items left to check" and sel.steps[-1].outcome.startswith("undefined")
        assert "no items" in sel.reason


@pytest.mark.parametrize("pyarrow_path", [True, False])
@pytest.mark.parametrize("blank", ["", "\n", "\r\n"])
def test_every_csv_path_gives_the_same_line_numbers(cli, workdir, monkeypatch, pyarrow_path, blank):
    # pyarrow's reader (line numbers from the row order, or from the numpy layout when there are blank
    # lines) and the csv module (small files, quoted files, no pyarrow) must agree
    from sigreport.data import tables

    if pyarrow_path:
        monkeypatch.setattr(tables, "SMALL_TABLE_BYTES", 0)
    else:
        monkeypatch.setattr(tables, "_read_with_pyarrow", lambda raw, sep, path, digest: None)
    table = HEADER + "A,c1,i1,m,0.9\n" + blank + "B,c1,i1,m,x\nA,c1,i2,m,0.7,\n"
    expected = 3 if not blank else 4
    spec = _spec(workdir, table)
    assert_user_error(cli, spec, workdir.path / "out", "paths", [f"line {expected + 1} has 6 fields"])
    spec = _spec(workdir, table.replace("0.7,\n", "0.7\n"))
    assert_user_error(cli, spec, workdir.path / "out", "paths", [f"column 'value' at line {expected} "])


def test_editing_a_user_aggregate_recomputes_its_cached_analyses(workdir, tmp_path):
    """The analyses' cache key holds the user module's bytes: after the function changes, a rebuild with the
    cache gives what a build without the cache gives, not the old results."""
    import json
    import subprocess
    import sys

    precision = "def precision(totals, n_items):\n    return totals[..., 0] / (totals[..., 0] + totals[..., 1])\n"
    spec = aggregate_spec(workdir, "agg_edited", precision)
    cache = tmp_path / "cache"

    def build(out: str, *extra: str) -> dict:
        subprocess.run([sys.executable, "-m", "sigreport.cli", "build", "-q", "--formats", "json", str(spec),
                        "-o", str(workdir.path / out), *extra], check=True, capture_output=True)
        doc = json.loads((workdir.path / out / "results.json").read_text(encoding="utf-8"))
        return [a for a in doc["analyses"] if a.get("kind") == "pairwise"]

    first = build("first", "--cache", str(cache))
    (workdir.path / "agg_edited.py").write_text(precision.replace("/ (totals[..., 0] + totals[..., 1])",
                                                                  "/ (totals[..., 0] + 2 * totals[..., 1])"))
    again = build("again", "--cache", str(cache))
    fresh = build("fresh", "--no-cache")
    assert again == fresh and again != first


def test_a_user_aggregate_edited_between_two_api_builds_is_reloaded(workdir):
    """In one Python process (a notebook), the second build runs the edited function: the module is
    reloaded when its file changed since this process imported it."""
    import sigreport

    precision = "def precision(totals, n_items):\n    return totals[..., 0] / (totals[..., 0] + totals[..., 1])\n"
    spec = aggregate_spec(workdir, "agg_api_edited", precision)

    def estimates(out: str) -> list:
        report = sigreport.build(spec, workdir.path / out, formats=["json"])
        doc = json.loads((report.path / "results.json").read_text(encoding="utf-8"))
        return [p["estimate"] for a in doc["analyses"] if a.get("kind") == "pairwise" for p in a["pairs"]]

    first = estimates("first")
    (workdir.path / "agg_api_edited.py").write_text(precision.replace("+ totals[..., 1])", "+ 2 * totals[..., 1])"))
    assert estimates("second") != first
