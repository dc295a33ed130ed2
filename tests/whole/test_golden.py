"""Golden files: every ``configs/*.yaml`` build's results.json, index.html and tables/*.tex, pinned.

What is pinned is what sigreport decides, computes and writes, not what the machine's libraries add:

* results.json is compared as JSON: strings, booleans, integers, nulls and the document's shape exactly;
  floats within :data:`sigreport.results.compare.RTOL` (relative) / ``ATOL`` (absolute). Another CPU's BLAS
  kernel moves some floats by a few units in the 14th digit (``OPENBLAS_CORETYPE=Sandybridge`` on a Zen or
  Haswell machine shows it: at most 3.7e-14 relative on the examples).
* index.html with its inline figures reduced to their labels (:func:`~sigreport.results.compare.strip_figures`):
  matplotlib's glyph outlines change with a matplotlib or FreeType update, not with sigreport. The figures are
  tested on their own, by structure and labels (tests/render/test_figures.py).
* index.html and tables/*.tex as text: equal outside numbers; a printed number may differ by one unit in its
  last printed place (a value that moved across a rounding boundary), never more.

Every refactoring must leave these unchanged; a change that fixes a defect updates them in the same commit
and says so. Regenerate with ``SIGREPORT_UPDATE_GOLDEN=1 pytest tests/whole/test_golden.py`` and read the diff
before committing it. CI runs this file a second time under ``OPENBLAS_CORETYPE=Sandybridge`` (.ci/run).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import CONFIGS, GOLDEN
from sigreport.results.compare import compare_documents, compare_text, strip_figures

UPDATE = os.environ.get("SIGREPORT_UPDATE_GOLDEN") == "1"
SPECS = sorted(p.stem for p in CONFIGS.glob("*.yaml"))


def pinned_files(report: Path) -> dict[str, str]:
    """The outputs that are pinned, as text: results.json, index.html without its figures' drawings, every
    LaTeX table (not the PDF, not the figure files)."""
    files = {}
    for path in sorted(report.rglob("*")):
        rel = path.relative_to(report).as_posix()
        if path.is_file() and (rel in ("results.json", "index.html") or rel.startswith("tables/")):
            text = path.read_text(encoding="utf-8")
            files[rel] = strip_figures(text) if rel == "index.html" else text
    return files


def differences(rel: str, want: str, got: str) -> str | None:
    """None when ``got`` matches ``want`` under the rules of this module, else what differs."""
    if rel.endswith(".json"):
        found = compare_documents(json.loads(want), json.loads(got))
    else:
        found = compare_text(want, got)
    return None if found.equal else found.summary()


@pytest.mark.parametrize("name", SPECS)
def test_golden_outputs(example, name):
    got = pinned_files(example(name))  # conftest: the example built once per session, in every format
    golden_dir = GOLDEN / name
    if UPDATE:
        shutil.rmtree(golden_dir, ignore_errors=True)
        for rel, text in got.items():
            (golden_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden_dir / rel).write_text(text, encoding="utf-8")
    want = {p.relative_to(golden_dir).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(golden_dir.rglob("*")) if p.is_file()}
    assert sorted(got) == sorted(want), f"{name}: the set of output files changed"
    changed = {rel: d for rel in want if (d := differences(rel, want[rel], got[rel])) is not None}
    assert not changed, f"{name}: outputs differ from the golden files (SIGREPORT_UPDATE_GOLDEN=1 to update): {changed}"
