"""Output formats are one list: their names (and the order users see them in) in ``sigreport.defaults.FORMATS``,
their writers in ``sigreport.api.outputs.WRITERS`` keyed by the same names; the spec, the JSON Schema, the command
line, the API's checks and the build's dispatch are made from these two and list the formats nowhere else."""

from __future__ import annotations

import ast
import typing

import pytest
from conftest import CONFIGS, ROOT

from sigreport import cli, defaults, spec
from sigreport.api import outputs
from sigreport.api.pipeline import check_build_options
from sigreport.api.running import RunError

# the two places that may name the formats: the names (low, read by the spec) and the writers (high)
LISTS = {"sigreport/defaults.py", "sigreport/api/outputs.py"}


def test_every_format_has_one_writer_and_every_writer_a_format():
    assert set(outputs.WRITERS) == set(defaults.FORMATS)
    assert len(defaults.FORMATS) == len(set(defaults.FORMATS))


def test_the_spec_and_the_command_line_take_the_formats_from_the_one_list():
    assert typing.get_args(spec.Format) == defaults.FORMATS
    assert cli.FORMATS is defaults.FORMATS
    assert spec.OutputsSpec().formats == list(defaults.FORMATS)


def test_the_api_refuses_an_unknown_format_naming_the_known_ones():
    with pytest.raises(RunError) as info:
        check_build_options(["docx"], 0)
    assert str(info.value).endswith("unknown format 'docx'; known: " + ", ".join(defaults.FORMATS))


def format_lists(source: str) -> list[int]:
    """Lines of the literal tuples, lists, sets and dict keys (and so ``Literal[...]``) that name three or more
    of the output formats (two are other things too: the diff's and the trend's formats, the cell targets)."""
    names = set(defaults.FORMATS)
    out = []
    for node in ast.walk(ast.parse(source)):
        items = (node.keys if isinstance(node, ast.Dict)
                 else node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else ())
        found = {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}
        if len(found & names) >= 3:
            out.append(node.lineno)
    return sorted(out)


def test_no_other_module_lists_the_formats():
    found = {}
    for path in sorted((ROOT / "sigreport").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        lines = format_lists(path.read_text(encoding="utf-8"))
        if lines and rel not in LISTS:
            found[rel] = lines
    assert not found, f"derive these from sigreport.defaults.FORMATS or sigreport.api.outputs.WRITERS: {found}"
    sample = 'X = Literal["html", "json", "pdf"]\nY = ("html", "json")\nZ = {"latex": 1, "pdf": 2, "json": 3}\n'
    assert format_lists(sample) == [1, 3]


def test_a_build_writes_each_asked_format_through_its_writer(cli, tmp_path, monkeypatch):
    called = []

    def spy(name):
        write = outputs.WRITERS[name]
        return lambda writing: (called.append(name), write(writing))[1]

    for name in list(outputs.WRITERS):
        monkeypatch.setitem(outputs.WRITERS, name, spy(name))
    r = cli("build", "-q", "--no-cache", "--jobs", "1", "-o", tmp_path / "out", "--formats", "latex,json",
            CONFIGS / "wide.yaml")
    assert r.code == 0, r.err
    assert called == ["json", "latex"]
    assert (tmp_path / "out" / "results.json").is_file() and (tmp_path / "out" / "tables" / "README.txt").is_file()
    assert not (tmp_path / "out" / "index.html").exists() and not (tmp_path / "out" / "report.pdf").exists()


def test_architecture_page_fits_one_page_and_says_how_a_format_is_added():
    """docs/architecture.md is one printed page (about 60 lines) and its "An output format" paragraph names the
    two lists and the writer's arguments as the code has them (``defaults.FORMATS``, ``api/outputs.WRITERS``,
    the fields of ``Writing``): a writer of the results, not only of the model."""
    import dataclasses
    import re

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 70
    section = text[text.index("**An output format**"):]
    assert "`defaults.FORMATS`" in section and "`api/outputs.WRITERS`" in section
    assert set(outputs.WRITERS) == set(defaults.FORMATS)
    fields = {f.name for f in dataclasses.fields(outputs.Writing)}
    named = {"model": "ReportModel", "results": "results", "dest": "folder", "templates": "templates"}
    assert set(named) <= fields and all(word in section for word in named.values())
    assert not re.search(r"never the records", section)  # the json writer writes the records themselves
