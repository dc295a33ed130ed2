"""A rebuild where nothing changed leaves the report as it is (:mod:`sigreport.speed.unchanged`).

Each case builds configs/summarizers.yaml (copied with its data) through the command line, with the cache
beside the spec, and compares every file of the report folder (hidden ones too) by name, bytes and
modification time in ns before and after the next build.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import CONFIGS, cli_build


UP_TO_DATE = "is up to date"


def wrote(text: str) -> bool:
    """Whether the build's output says it wrote the report."""
    return any(line.startswith("wrote ") for line in text.splitlines())


def copied(tmp_path: Path, pairwise: str | None = None) -> Path:
    (tmp_path / "data").mkdir()
    shutil.copy(CONFIGS / "data" / "summarizers.csv", tmp_path / "data")
    text = (CONFIGS / "summarizers.yaml").read_text(encoding="utf-8")
    if pairwise is not None:
        assert "pairwise: paired_t" in text
        text = text.replace("pairwise: paired_t", f"pairwise: {pairwise}")
    spec = tmp_path / "summarizers.yaml"
    spec.write_text(text, encoding="utf-8")
    return spec


def state(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and its mtime in ns."""
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def build(spec: Path, out: Path, *extra: str) -> str:
    return cli_build(spec, out, *extra, formats="html,json", quiet=False).out


def test_a_second_build_leaves_every_file_as_it_was_and_says_so(tmp_path, capsys):
    spec = copied(tmp_path)
    out = tmp_path / "report"
    first = build(spec, out)
    assert wrote(first) and UP_TO_DATE not in first
    before = state(out)
    assert "results.json" in before and ".sigreport-report" in before
    second = build(spec, out)
    assert UP_TO_DATE in second and not wrote(second)
    assert state(out) == before  # bytes and mtimes of every file, the marker too
    assert build(spec, out, "-q") == ""  # quiet says nothing, and still leaves it
    assert state(out) == before


def test_a_changed_data_file_rebuilds(tmp_path, capsys):
    spec = copied(tmp_path)
    out = tmp_path / "report"
    build(spec, out)
    before = state(out)
    data = tmp_path / "data" / "summarizers.csv"
    lines = data.read_text(encoding="utf-8").splitlines(keepends=True)
    head, first = lines[0], lines[1].rstrip("\n").split(",")
    first[-1] = str(float(first[-1]) + 0.001)
    data.write_text(head + ",".join(first) + "\n" + "".join(lines[2:]), encoding="utf-8")
    again = build(spec, out)
    assert wrote(again) and UP_TO_DATE not in again
    assert state(out)["results.json"][0] != before["results.json"][0]
    assert UP_TO_DATE in build(spec, out)  # and the rebuilt report is left as it is by the next build


@pytest.mark.parametrize("change", ["edit a report file", "delete a report file", "other formats", "no cache",
                                    "spec", "plain"])
def test_anything_else_that_changed_rebuilds(tmp_path, capsys, monkeypatch, change):
    spec = copied(tmp_path)
    out = tmp_path / "report"
    build(spec, out)
    extra: tuple[str, ...] = ()
    if change == "edit a report file":
        (out / "index.html").write_text("edited", encoding="utf-8")
    elif change == "delete a report file":
        (out / "index.html").unlink()
    elif change == "other formats":
        assert wrote(cli_build(spec, out, formats="json", quiet=False).out)
        return
    elif change == "no cache":
        extra = ("--no-cache",)
    elif change == "spec":
        spec.write_text(spec.read_text(encoding="utf-8").replace("correction: holm", "correction: bonferroni"),
                        encoding="utf-8")
    elif change == "plain":
        monkeypatch.setenv("SIGREPORT_PLAIN", "1")
    again = build(spec, out, *extra)
    assert wrote(again) and UP_TO_DATE not in again
    assert (out / "index.html").read_text(encoding="utf-8").startswith("<!")


def test_a_report_whose_automatic_choices_had_no_previous_report_is_built_once_more(tmp_path, capsys):
    """With ``pairwise: auto`` the second build records the first one's choice (``selection.previous_method``
    in results.json), so it is a different report; the third build would write the second's bytes again."""
    spec = copied(tmp_path, "auto")
    out = tmp_path / "report"
    build(spec, out)
    first = state(out)
    assert "previous_method" not in first["results.json"][0].decode()
    second = build(spec, out)
    assert wrote(second)
    written = state(out)
    assert "previous_method" in written["results.json"][0].decode()
    third = build(spec, out)
    assert UP_TO_DATE in third
    assert state(out) == written
    # what the third build would have written had it run: the second's results, read as its previous report
    shutil.copytree(out, tmp_path / "fourth")
    cli_build(spec, tmp_path / "fourth", "--no-cache", formats="html,json", quiet=False)
    assert state(tmp_path / "fourth")["results.json"][0] == written["results.json"][0]
