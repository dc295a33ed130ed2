"""Calls are read by name: no call in the package passes ``MAX_POSITIONAL`` or more positional arguments, and
every statistics result is a frozen keyword-only dataclass.

A result built as ``PairedTestResult("paired_t", n, None, None, None, alternative, ...)`` is correct only while
its fields keep their order, and a reader has to count to find which ``None`` is the p-value. Keyword-only
results make the order of their fields free (results.json's order is the writer's: ``json_fields`` or the
fields' order) and every construction say what it sets.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import pkgutil

import sigreport.stats
from conftest import ROOT

PACKAGE = ROOT / "sigreport"
MAX_POSITIONAL = 9

# path (relative to the repository) -> why its calls are not checked yet: none now (archive/diff.py's Change, Diff,
# ... calls pass their fields by name since the archive read typed records).
PENDING: dict[str, str] = {}


def long_calls(source: str, limit: int = MAX_POSITIONAL) -> list[tuple[int, str, int]]:
    """(line, callee, positional arguments) of every call in ``source`` with ``limit`` or more positional
    arguments (a starred argument counts as one)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and len(node.args) >= limit:
            out.append((node.lineno, ast.unparse(node.func), len(node.args)))
    return sorted(out)


def test_no_call_passes_nine_or_more_positional_arguments():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel in PENDING:
            continue
        found += [f"  {rel}:{line}: {callee}(...) with {n} positional arguments"
                  for line, callee, n in long_calls(path.read_text(encoding="utf-8"))]
    assert not found, "pass these arguments by name:\n" + "\n".join(found)


def test_every_pending_file_exists_and_still_needs_it():
    for rel, why in PENDING.items():
        assert why.strip(), rel
        path = ROOT / rel
        assert path.is_file(), f"{rel} is in PENDING but does not exist"
        assert long_calls(path.read_text(encoding="utf-8")), f"{rel} has no long call left: remove it from PENDING"


def test_the_measure_finds_long_calls_and_only_them():
    nine = ", ".join(["1"] * 9)
    source = f"f({nine})\ng({', '.join(['1'] * 8)}, x=1)\nh(*args, {', '.join(['2'] * 8)})\nk(a=1, b=2)\n"
    assert long_calls(source) == [(1, "f", 9), (3, "h", 9)]


def _stats_dataclasses() -> list[type]:
    out = []
    for info in pkgutil.iter_modules(sigreport.stats.__path__):
        module = importlib.import_module(f"sigreport.stats.{info.name}")
        out += [obj for obj in vars(module).values()
                if isinstance(obj, type) and obj.__module__ == module.__name__ and dataclasses.is_dataclass(obj)]
    return out


def test_every_stats_result_is_frozen_and_keyword_only():
    classes = _stats_dataclasses()
    assert len(classes) >= 30  # PairedTestResult, RMAnovaResult, ... (the module walk found them)
    loose = [f"{c.__module__}.{c.__qualname__}" for c in classes
             if not c.__dataclass_params__.frozen or not all(f.kw_only for f in dataclasses.fields(c) if f.init)]
    assert not loose, f"make these @dataclasses.dataclass(frozen=True, kw_only=True): {loose}"
