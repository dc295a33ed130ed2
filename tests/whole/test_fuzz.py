"""Fuzzing: random YAML documents, random mutations of a valid spec and of a valid score table, run through
the command line's entry point. Every one must end with exit code 0 or 2 and no traceback.

The default run (a few hundred examples, derandomized so that CI is reproducible) is part of the suite;
the slow long run (1,500 examples) is derandomized too, unless ``SIGREPORT_FRESH_FUZZ=1 pytest -m slow
tests/whole/test_fuzz.py`` asks for fresh randomness (to look for new crashes, not in CI).
"""

from __future__ import annotations

import contextlib
import io
import os
import string
from pathlib import Path

import pytest
import yaml
from conftest import CONFIGS
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sigreport.cli import main

SPEC = yaml.safe_load((CONFIGS / "summarizers.yaml").read_text())
TABLE = (CONFIGS / "data" / "summarizers.csv").read_text()
FAST = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SLOW = settings(max_examples=1500, deadline=None, database=None,
                derandomize=os.environ.get("SIGREPORT_FRESH_FUZZ") != "1",
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def run(*args: str) -> tuple[int, str]:
    """The CLI in-process: its exit code and standard error. An exception escaping it fails the test."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse
            code = int(exc.code or 0)
    return code, err.getvalue()


def check(folder: Path, spec_text: str, table_text: str, build: bool = True, formats: str = "json") -> None:
    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "data" / "summarizers.csv").write_text(table_text, encoding="utf-8", errors="surrogateescape")
    spec = folder / "spec.yaml"
    spec.write_text(spec_text, encoding="utf-8", errors="surrogateescape")
    code, err = run("validate", spec)
    assert code in (0, 2) and "Traceback" not in err, err
    if code == 2:
        assert err.startswith("error: ") and all(line.startswith(("error: ", "  ", "sigreport: "))
                                                 for line in err.rstrip("\n").splitlines()), err
    if code == 0 and build:
        out = folder / "out"
        code, err = run("build", spec, "-o", out, "--formats", formats, "--no-cache", "--quiet")
        assert code in (0, 2) and "Traceback" not in err, err


scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True),
                    st.text(max_size=12))
documents = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=20)
KEYS = ["title", "alpha", "seed", "data", "systems", "baseline", "metrics", "tests", "outputs", "corpora"]


@st.composite
def spec_mutations(draw: st.DrawFn) -> str:
    spec = yaml.safe_load(yaml.safe_dump(SPEC))
    for _ in range(draw(st.integers(1, 3))):
        path = [draw(st.sampled_from(list(spec)))] if spec else []
        node = spec
        while path and isinstance(node.get(path[-1]), dict) and node[path[-1]] and draw(st.booleans()):
            node = node[path[-1]]
            path.append(draw(st.sampled_from(list(node))))
        key = path[-1] if path else draw(st.sampled_from(KEYS))
        action = draw(st.sampled_from(["delete", "replace", "add"]))
        if action == "delete":
            node.pop(key, None)
        elif action == "replace":
            node[key] = draw(documents)
        else:
            node[draw(st.sampled_from(KEYS + ["unknown", "tests"]))] = draw(documents)
    return yaml.safe_dump(spec, allow_unicode=True)


@st.composite
def table_mutations(draw: st.DrawFn) -> str:
    text = TABLE
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "duplicate_line", "truncate"]))
        if action == "insert":
            piece = draw(st.text(alphabet=string.printable + "\x00\x1b\u00e9\u4e2d\ufeff", min_size=1, max_size=6))
            text = text[:i] + piece + text[i:]
        elif action == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 8)):]
        elif action == "duplicate_line":
            lines = text.splitlines(keepends=True)
            if lines:
                j = draw(st.integers(0, len(lines) - 1))
                lines.insert(j, lines[j])
            text = "".join(lines)
        else:
            text = text[:i]
    return text


SPEC_TEXT = (CONFIGS / "summarizers.yaml").read_text()

# Inputs that crashed a build before (found by probing from outside), kept as explicit examples:
# alpha as an integer too large for a float (OverflowError while the message was written), and a system
# name that carries a byte-order mark in the middle of the file (IndexError in matplotlib's PDF writer,
# drawing that name; with the spec's list of systems it is refused as an unknown system earlier).
HUGE_ALPHA = yaml.safe_dump({**SPEC, "alpha": 10**400 - 1}, allow_unicode=True)
MID_BOM = TABLE.replace("\nB,", "\n\ufeffB,")
ANY_SYSTEMS = yaml.safe_dump({k: v for k, v in SPEC.items() if k != "systems"}, allow_unicode=True)


@FAST
@given(doc=documents)
def test_random_yaml_documents(tmp_path_factory, doc):
    check(tmp_path_factory.mktemp("doc"), yaml.safe_dump(doc, allow_unicode=True), TABLE, build=False)


@FAST
@given(text=st.text(max_size=200))
def test_random_text_as_spec(tmp_path_factory, text):
    check(tmp_path_factory.mktemp("txt"), text, TABLE, build=False)


@FAST
@given(spec=spec_mutations())
@example(spec=HUGE_ALPHA)
def test_mutated_specs(tmp_path_factory, spec):
    check(tmp_path_factory.mktemp("spec"), spec, TABLE)


@FAST
@given(table=table_mutations())
@example(table=MID_BOM)
def test_mutated_tables(tmp_path_factory, table):
    check(tmp_path_factory.mktemp("table"), SPEC_TEXT, table)


@pytest.mark.parametrize("spec, table", [(HUGE_ALPHA, TABLE), (ANY_SYSTEMS, MID_BOM)], ids=["huge alpha", "mid-file BOM"])
def test_inputs_that_crashed_end_with_exit_0_or_2_in_every_format(tmp_path, spec, table):
    """The examples above, built in every format that draws (the BOM crashed the LaTeX figures' PDF)."""
    check(tmp_path, spec, table, formats="json,html,latex")


@pytest.mark.slow
@SLOW
@given(spec=spec_mutations(), table=table_mutations())
def test_mutated_specs_and_tables_long_run(tmp_path_factory, spec, table):
    check(tmp_path_factory.mktemp("both"), spec, table)
