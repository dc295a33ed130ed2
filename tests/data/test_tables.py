"""The table reader's two paths give the same table (fast loading without a second copy of the
checks).

``read_table`` reads a small or quoted delimited file with the csv module and a large unquoted one with
pyarrow's reader; every check downstream sees only the Table (columns, text cells, line numbers), so the
two paths must agree cell for cell and line for line, whatever the line endings, blank lines or
byte-order mark. The key columns are factorised and the values parsed from the same cells, so they
must agree too.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sigreport.data import tables

pytest.importorskip("pyarrow")

HEADER = "system,corpus,item,metric,value"
ROWS = ["A,c1,i1,m,0.9", "B,c1,i1,m,0.25", "A,c1,i2,m,1e-3", "B,c1,i2,m,-7", "A,c2,i1,m,.5", "B,c2,i1,m,3."]

CASES = {
    "plain": "\n".join([HEADER, *ROWS]) + "\n",
    "no final newline": "\n".join([HEADER, *ROWS]),
    "crlf": "\r\n".join([HEADER, *ROWS]) + "\r\n",
    "blank lines": "\n".join([HEADER, "", ROWS[0], "", "", *ROWS[1:], ""]) + "\n",
    "blank crlf lines": "\r\n".join([HEADER, ROWS[0], "", *ROWS[1:]]) + "\r\n",
    "byte-order mark": "\ufeff" + "\n".join([HEADER, *ROWS]) + "\n",
    "header only": HEADER + "\n",
    "unicode and empty cells": "\n".join([HEADER, "Ü,ç,,m,1", "B,ç,,m,2"]) + "\n",
}


def both(tmp_path: Path, text: str, suffix: str = ".csv") -> tuple[tables.Table, tables.Table]:
    path = tmp_path / f"scores{suffix}"
    path.write_bytes(text.encode("utf-8"))
    raw = path.read_bytes()
    sep = tables.DELIMITED[suffix]
    fast = tables._read_with_pyarrow(raw, sep, path, "digest")
    assert fast is not None, "pyarrow refused a well-formed file"
    return fast, tables._read_with_csv(raw, sep, path, "digest")


def same(a: tables.Table, b: tables.Table) -> None:
    assert a.columns == b.columns
    assert a.places.tolist() == b.places.tolist()
    for c in a.columns:
        assert list(a.cells[c].to_pylist()) == b.cells[c], c
        codes_a, names_a = tables.factorize(a.cells[c])
        codes_b, names_b = tables.factorize(b.cells[c])
        assert names_a == names_b and codes_a.tolist() == codes_b.tolist(), c


@pytest.mark.parametrize("case", sorted(CASES))
def test_pyarrow_and_the_csv_module_read_the_same_table(tmp_path, case):
    same(*both(tmp_path, CASES[case]))


def test_tab_separated_files_too(tmp_path):
    same(*both(tmp_path, CASES["blank lines"].replace(",", "\t"), ".tsv"))


def test_line_numbers_count_blank_lines(tmp_path):
    fast, exact = both(tmp_path, CASES["blank lines"])
    assert exact.places.tolist() == [3, 6, 7, 8, 9, 10]  # header on line 1, blank lines 2, 4, 5


def test_values_parse_to_the_same_bits_on_both_paths(tmp_path):
    fast, exact = both(tmp_path, CASES["plain"])
    a, b = tables.plain_numbers(fast.cells["value"]), tables.plain_numbers(exact.cells["value"])
    assert a is not None and b is not None
    assert a.tobytes() == b.tobytes()
    assert b.tolist() == [0.9, 0.25, 1e-3, -7.0, 0.5, 3.0]  # Python's float() of each cell


@pytest.mark.parametrize("cell", ["x", "", " 0.5", "nan", "inf", "-Infinity", "1_000", "0x10", "١"])
def test_anything_but_a_plain_finite_number_takes_the_exact_path(cell):
    # the exact path (pandas' to_numeric, then stripped) names the lines or accepts what it always did
    assert tables.plain_numbers(["0.5", cell]) is None


def test_a_row_with_a_wrong_field_count_sends_pyarrow_back_to_the_csv_module(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text(CASES["plain"] + "A,c1,i3,m,0.5,\n", encoding="utf-8")
    assert tables._read_with_pyarrow(path.read_bytes(), ",", path, "d") is None


def test_large_unquoted_files_take_the_pyarrow_path_and_small_or_quoted_ones_the_csv_module(tmp_path, monkeypatch):
    path = tmp_path / "scores.csv"
    path.write_text(CASES["plain"], encoding="utf-8")
    assert isinstance(tables.read_table(path, "spec.yaml", "data.scores").cells["system"], list)
    monkeypatch.setattr(tables, "SMALL_TABLE_BYTES", 0)
    assert not isinstance(tables.read_table(path, "spec.yaml", "data.scores").cells["system"], list)
    path.write_text(CASES["plain"].replace("A,c1", '"A",c1'), encoding="utf-8")
    table = tables.read_table(path, "spec.yaml", "data.scores")
    assert isinstance(table.cells["system"], list) and table.cells["system"][0] == "A"


def test_factorize_numbers_names_in_order_of_first_appearance():
    codes, names = tables.factorize(["b", "a", "b", "c"])
    assert names == ["b", "a", "c"] and codes.tolist() == [0, 1, 0, 2] and codes.dtype == np.int64
