"""The release notes, ``sigreport diff`` and ``sigreport trend`` give the same bytes as before archive/ read typed
records (issue 29, item 7): every format of each, on the release scenario (tests/archive/release_scenario.py) built
three times (v3 is v1 again, so v2 -> v3 reverses every change), compared with the files under
``tests/archive/expected/``, written by the code before the change (commit 1762037, by :func:`outputs`), and
written again on purpose for issue 32 (items 10, 11: the notes lead with the conclusions, collapse the rest,
leave out systems whose data did not change, and pair from the archive's item-scores store). The HTML
trend page (matplotlib's SVG) is left out: the golden files pin the figures.

And the refactor stays done: archive/ reads results.json documents through
:func:`sigreport.results.reading.read_document`, so its modules hold no ``.get("...")`` reads or ``Any``-typed
parameters of a results document (:func:`test_archive_reads_records_not_dictionaries`).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from sigreport.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent))
import release_scenario as scenario  # noqa: E402

EXPECTED = Path(__file__).resolve().parent / "expected"
DIFFS = (("v1", "v2"), ("v2", "v3"), ("v1", "v3"))


def cli_output(argv: list[str]) -> str:
    """What the command printed, then its exit code."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(argv)
    return f"{buf.getvalue()}[exit {code}]\n"


def outputs(root: Path) -> dict[str, str]:
    """Build the three releases in ``root`` and return every output by file name (links relative to ``root``)."""
    for n, data in ((1, 1), (2, 2), (3, 1)):
        spec = scenario.write(root, data)
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["build", str(spec), "--release", f"v{n}", "--no-cache"]) == 0
    here = Path.cwd()
    os.chdir(root)  # the HTML diff links to the reports relative to the working directory
    try:
        out = {}
        for old, new in DIFFS:
            for fmt in ("text", "markdown", "json", "html"):
                out[f"diff_{old}_{new}.{fmt}"] = cli_output(["diff", old, new, "--archive", "reports", "--format", fmt])
        out["diff_folders_v1_v2.any.text"] = cli_output(["diff", "reports/v1", "reports/v2", "--fail-on", "any"])
        for fmt in ("markdown", "csv", "json"):
            out[f"trend.{fmt}"] = cli_output(["trend", "reports", "--format", fmt])
            out[f"trend_m1.{fmt}"] = cli_output(["trend", "reports", "--format", fmt, "--metric", "Fluency"])
    finally:
        os.chdir(here)
    for name in ("v2", "v3"):  # the release notes each release build wrote
        out[f"release_notes_{name}.html"] = (root / "reports" / name / "diff.html").read_text(encoding="utf-8")
    return out


def test_diff_trend_and_release_notes_give_the_bytes_they_gave(tmp_path: Path) -> None:
    got = outputs(tmp_path)
    assert sorted(got) == sorted(p.name for p in EXPECTED.iterdir())
    different = [name for name, text in got.items() if text != (EXPECTED / name).read_text(encoding="utf-8")]
    assert not different, different


ARCHIVE = ROOT / "sigreport" / "archive"
GETS_ALLOWED = {"releases.py": 9}
"""``.get("...")`` reads left in the modules that read results.json: releases.py's are on its manifests and its own
index.json entries (JSON it writes), never on a results.json document. The ceiling may only go down."""
ANY_ALLOWED = {"releases.py": 15}
"""Parameters and fields typed ``Any`` left there: releases.py's manifests, index.json entries and the drawn
trend figures (the renderer's objects, above this layer). The ceiling may only go down."""


def test_archive_reads_records_not_dictionaries() -> None:
    """The modules that read results.json (the diff, the release notes, the trends, the release index) read it
    once into records (:func:`sigreport.results.reading.read_document`): no ``.get("...")`` read of a document
    and no parameter or field typed ``Any`` (the checker of tests/whole/test_layers.py) in diff.py, notes.py and
    trends.py; releases.py under its ceilings. And the interval level is not decided here: it is the records'
    ``ci_level``, else :func:`sigreport.spec.interval_level` (no ``1 - alpha`` restated)."""
    sys.path.insert(0, str(ROOT / "tests" / "whole"))
    from test_layers import any_annotations

    found = {}
    for name in ("diff.py", "notes.py", "trends.py", "releases.py"):
        text = (ARCHIVE / name).read_text(encoding="utf-8")
        found[name] = (text.count('.get("'), len(any_annotations(ARCHIVE / name)))
        assert not re.search(r"1(\.0)?\s*-\s*[\w.()\[\]\"']*alpha", text), name
    want = {name: (GETS_ALLOWED.get(name, 0), ANY_ALLOWED.get(name, 0)) for name in found}
    assert all(found[n][0] <= want[n][0] and found[n][1] <= want[n][1] for n in found), (found, want)
