"""Golden files: every ``configs/*.yaml`` build's results.json, index.html and tables/*.tex, pinned.

Every refactoring must leave these bytes unchanged; a change that fixes a defect updates them in the
same commit and says so. Regenerate with ``SIGREPORT_UPDATE_GOLDEN=1 pytest tests/test_golden.py``
and read the diff before committing it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conftest import CONFIGS

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("SIGREPORT_UPDATE_GOLDEN") == "1"
SPECS = sorted(p.stem for p in CONFIGS.glob("*.yaml"))


def pinned_files(report: Path) -> dict[str, bytes]:
    """The outputs that are pinned: results.json, index.html, every LaTeX table (not the PDF)."""
    files = {}
    for path in sorted(report.rglob("*")):
        rel = path.relative_to(report).as_posix()
        if path.is_file() and (rel in ("results.json", "index.html") or rel.startswith("tables/")):
            files[rel] = path.read_bytes()
    return files


@pytest.mark.parametrize("name", SPECS)
def test_golden_outputs(example, name):
    got = pinned_files(example(name))  # conftest: the example built once per session, in every format
    golden_dir = GOLDEN / name
    if UPDATE:
        shutil.rmtree(golden_dir, ignore_errors=True)
        for rel, data in got.items():
            (golden_dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden_dir / rel).write_bytes(data)
    want = {p.relative_to(golden_dir).as_posix(): p.read_bytes() for p in sorted(golden_dir.rglob("*")) if p.is_file()}
    assert sorted(got) == sorted(want), f"{name}: the set of output files changed"
    changed = [rel for rel in want if got[rel] != want[rel]]
    assert not changed, f"{name}: outputs differ from the golden files: {changed} (SIGREPORT_UPDATE_GOLDEN=1 to update)"
