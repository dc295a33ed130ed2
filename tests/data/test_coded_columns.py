"""The native sources' columns (sigreport.data.tables.CodedCells, NumberCells) read as any text column reads:
factorize gives what it gives for the same cells as a list and as a pyarrow string array (pyarrow's
dictionary_encode, the path these columns had before), plain_numbers what it gives for a pyarrow float64 array;
sample_means (Inspect, HELM: a question's answers averaged) against a direct definition; and the TREC run
reader's quick branch against the exact per-line checks it skips, over random runs with every kind of bad line."""

from __future__ import annotations

import math
import random

import numpy as np
import pyarrow as pa
import pytest

from sigreport.data.sources import long, trec
from sigreport.data.tables import CodedCells, NumberCells, factorize, plain_numbers
from sigreport.errors import Problem


def random_coded(rng: np.random.Generator) -> tuple[CodedCells, list[str]]:
    """Codes into names that may repeat a name, leave names unused and order them against first appearance."""
    k = int(rng.integers(1, 12))
    pool = ["a", "b", "sys-1", "é", "", " x ", "0", "1.5", "a"]
    names = [pool[int(rng.integers(len(pool)))] if rng.random() < 0.5 else f"n{int(rng.integers(40))}"
             for _ in range(k)]
    n = int(rng.choice([0, 1, 2, 3, 10, 100, 2000]))
    p = rng.dirichlet(np.full(k, 0.3))  # some names rare or unused
    codes = rng.choice(k, size=n, p=p)
    cells = CodedCells(codes.astype(np.int64), tuple(names))
    return cells, [names[c] for c in codes.tolist()]


@pytest.mark.parametrize("seed", range(300))
def test_factorize_of_codes_equals_factorize_of_the_cells(seed):
    cells, strings = random_coded(np.random.default_rng(seed))
    codes, names = factorize(cells)
    want_codes, want_names = factorize(strings)  # the list path: a dict in order of first appearance
    assert names == want_names and codes.dtype == np.int64 and np.array_equal(codes, want_codes)
    if strings:  # pyarrow's dictionary_encode (the path before CodedCells), for an empty column too little to test
        arrow_codes, arrow_names = factorize(pa.array(strings, pa.string()))
        assert names == arrow_names and np.array_equal(codes, arrow_codes)
    assert len(cells) == len(strings) and cells.to_pylist() == strings
    if strings:
        assert cells[0] == strings[0] and cells[-1] == strings[-1] and cells[1:4] == strings[1:4]
    rows = np.arange(len(strings))[::3]
    assert cells.take(rows).to_pylist() == [strings[r] for r in rows]


def test_coded_helpers_make_the_cells_they_name():
    cells = long.coded(np.array([2, 0, 2]), ["x", 7, "z"])  # names as text, as the pyarrow arrays had them
    assert cells.to_pylist() == ["z", "x", "z"] and factorize(cells) == (pytest.approx([0, 1, 0]), ["z", "x"])
    assert long.constant("c", 3).to_pylist() == ["c"] * 3 and factorize(long.constant("c", 0))[1] == []


@pytest.mark.parametrize("values", [
    [], [0.0], [1.5, -2.25, 1e308, -0.0, 5e-324], [1.0, math.nan], [math.inf], [-math.inf, 2.0],
    list(np.random.default_rng(1).normal(size=1000)),
])
def test_plain_numbers_of_number_cells_equals_the_arrow_path(values):
    cells = long.numbers(np.array(values, dtype=float))
    assert isinstance(cells, NumberCells) and cells.to_pylist() == pytest.approx(values, nan_ok=True)
    got, want = plain_numbers(cells), plain_numbers(pa.array(values, pa.float64()))
    if want is None:
        assert got is None
    else:
        assert got is not None and got.tobytes() == want.tobytes()
        got[:1] = 99.0  # a copy: the column is left as it was
        assert cells.to_pylist() == pytest.approx(values)


class Cols:
    system, corpus, item, metric, value = "system", "corpus", "item", "metric", "value"


@pytest.mark.parametrize("seed", range(40))
def test_sample_means_are_each_keys_mean_at_its_first_row(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    keys = {k: rng.integers(0, m, size=n) for k, m in (("system", 3), ("corpus", 2), ("item", 25), ("metric", 2))}
    names = {k: [f"{k}{i}" for i in range(30)][::-1] for k in keys}  # codes not in first-appearance order
    values = rng.normal(size=n)
    columns = {k: long.coded(keys[k], names[k]) for k in keys} | {"value": long.numbers(values)}
    file_of, lines = rng.integers(0, 3, size=n), np.arange(1, n + 1)
    out, files, at = long.sample_means(columns, Cols, file_of, lines)
    groups: dict[tuple[str, ...], list[int]] = {}
    for r in range(n):  # the definition: rows of one (system, corpus, item, metric), in row order
        groups.setdefault(tuple(names[k][keys[k][r]] for k in keys), []).append(r)
    assert [tuple(out[k][i] for k in keys) for i in range(len(groups))] == list(groups)
    assert out["value"].to_pylist() == pytest.approx([float(np.mean(values[g])) for g in groups.values()], rel=1e-12)
    assert at.tolist() == [lines[g[0]] for g in groups.values()]
    assert files.tolist() == [file_of[g[0]] for g in groups.values()]


def reference_read_run(lines: list[str], shown: str, by_tag: bool) -> tuple[dict, str | None, int | None, list]:
    """The run reader as it was before its quick branch: every check on every line."""
    run: dict[str, dict[str, float]] = {}
    bad: list[Problem] = []
    tag = tag_line = None
    for number, line in enumerate(lines, start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 6:
            bad.append(Problem(shown, number, "", f"a run line has 6 fields (qid Q0 docid rank score tag; trec_eval "
                               f"ignores any after them); this one has {len(parts)}"))
        else:
            if tag is None:
                tag, tag_line = parts[5], number
            elif by_tag and parts[5] != tag:
                bad.append(Problem(shown, number, "", f"run tag {parts[5]!r} differs from {tag!r} of line {tag_line}: "
                                   "a run file holds one run, named by its tag (split the file, or name each run by "
                                   "its file: system_name: stem)"))
            try:
                score = float(parts[4])
            except ValueError:
                bad.append(Problem(shown, number, "", f"the score (field 5) is not a number: {parts[4]!r}"))
            else:
                if not math.isfinite(score):
                    bad.append(Problem(shown, number, "", f"the score (field 5) is not finite: {parts[4]!r}"))
                elif parts[2] in run.setdefault(parts[0], {}):
                    bad.append(Problem(shown, number, "", f"document {parts[2]!r} is ranked twice for query "
                                       f"{parts[0]!r}"))
                else:
                    run[parts[0]][parts[2]] = score
        if len(bad) >= trec.MAX_ROWS_SHOWN:
            break
    return run, tag, tag_line, bad


def random_run(rng: random.Random) -> list[str]:
    out = []
    for _ in range(rng.choice([0, 1, 2, 5, 30, 200])):
        q, d = f"q{rng.randrange(4)}", f"d{rng.randrange(25)}"
        tag = "run" if rng.random() < 0.93 else rng.choice(["other", "run2"])
        score = rng.choice([f"{rng.uniform(-5, 5):.4f}"] * 12 + ["nan", "inf", "-inf", "x", "1e999", "1_0", "0x1"])
        kind = rng.random()
        if kind < 0.03:
            out.append(rng.choice(["", "   ", "\t"]))
        elif kind < 0.06:
            out.append(f"{q} Q0 {d} 1 {score}")  # five fields
        elif kind < 0.09:
            out.append(f"{q}\tQ0\t{d}\t1\t{score}\t{tag}\textra more")  # fields after the tag
        else:
            out.append(f"{q} Q0 {d} {rng.randrange(100)} {score} {tag}")
    return out


@pytest.mark.parametrize("seed", range(400))
@pytest.mark.parametrize("by_tag", [True, False])
def test_the_run_readers_quick_branch_gives_the_exact_checks_result(tmp_path, seed, by_tag):
    lines = random_run(random.Random(seed))
    path = tmp_path / "x.run"
    path.write_text("\n".join(lines) + ("\n" if lines and seed % 2 else ""), encoding="utf-8")
    problems: list[Problem] = []
    got = trec.read_run(path, "spec.yaml", by_tag, problems)
    run, tag, tag_line, bad = reference_read_run(lines, str(path), by_tag)
    assert (got.ranking, got.tag, got.tag_line) == (run, tag, tag_line)
    assert [list(d) for d in got.ranking.values()] == [list(d) for d in run.values()]  # the same order too
    assert problems == bad
