"""A large family's paper forms of one row per pair are made only when a page shows them.

LaTeX sets a family of 20 systems (190 pairs) as a matrix: it counts the rows of the pair forms (more than
``LONG_TABLE_ROWS``) and sets them aside, and ``tables/README.txt`` names the chosen form by comparing rows.
Neither needs the 190 rows of cells, which were a large part of the views' time on a 1M-row report. The bytes
are the same either way (tests/speed/test_speed.py, tests/whole/test_golden.py); this checks the laziness.
"""

from __future__ import annotations

import itertools

from sigreport.render import latex
from sigreport.render.model import LatexOptions, Rows, Text
from sigreport.render.views import paper


def rows(n: int) -> Rows:
    return Rows(n, lambda: [(Text(str(i)),) for i in range(n)])


def test_rows_of_other_lengths_are_unequal_without_being_made():
    a, b = rows(3), rows(4)
    assert a != b and b != a and a != tuple(b.made()[:3] + ((Text("x"),),))
    assert a._rows is None  # never made: the lengths decided
    assert rows(2) == ((Text("0"),), (Text("1"),)) and ((Text("0"),), (Text("1"),)) == rows(2)
    assert rows(2) != ((Text("0"),), (Text("2"),))  # same length: compared cell by cell


def family(k: int) -> list[paper.PairFacts]:
    systems = [f"S{i}" for i in range(k)]
    return [paper.PairFacts(a, b, 0.01 * (i - j), 0.01 * (i - j) - 0.02, 0.01 * (i - j) + 0.02,
                            min(1.0, 0.001 * (i + j + 1)), (i + j) % 3 == 0, i > j)
            for (i, a), (j, b) in itertools.combinations(enumerate(systems), 2)]


WORDS = paper.Wording(Text("a \u2212 b"), "Estimate: the mean difference a \u2212 b", 0.95, 3, "Holm-adjusted", 0.05,
                      "the higher score")


def test_latex_chooses_the_matrix_of_a_20_system_family_without_making_its_pair_rows():
    pairs = family(20)
    forms = paper.forms(("m", "c", "pairwise"), "Caption.", pairs, WORDS)
    assert [len(f.rows) for f in forms[:3]] == [190, 190, 190]
    table = forms[0].__class__(("m", "c", "pairwise"), "Caption.", forms[0].columns, forms[0].rows, forms=forms)
    chosen = latex.chosen_form(table, LatexOptions())
    assert chosen.matrix
    assert all(isinstance(f.rows, Rows) and f.rows._rows is None for f in forms[:3])
    # the README's comparison of the chosen form's rows with every form's does not make them either
    assert next(f.form for f in forms if chosen.rows == f.rows) == chosen.form
    assert all(f.rows._rows is None for f in forms[:3])


def test_pair_rows_made_on_demand_are_the_rows_of_every_pair():
    pairs = family(4)
    table = paper.pairs_table(("m", "c", "pairwise"), "Caption.", pairs, WORDS)
    made = list(table.rows)
    assert len(made) == 6 and made[0][0] == Text("S0 vs S1")
    assert [r[3] for r in made] == [Text(p.a if p.a_better else p.b) if p.significant else Text("n.s.")
                                    for p in pairs]


def test_a_triangle_shows_each_pair_once_below_the_diagonal_with_the_row_systems_sign():
    pairs = family(5)
    systems = [f"S{i}" for i in range(5)]
    t = paper.triangle(("m", "c", "pairwise"), "Caption.", pairs, systems, WORDS, False)
    assert len(t.rows) == 4 and all(len(r) == 5 for r in t.rows)
    for i, r in enumerate(t.rows, start=1):
        for j, cell in enumerate(r[1:]):
            if j >= i:
                assert cell == Text("")
                continue
            p = next(p for p in pairs if {p.a, p.b} == {systems[i], systems[j]})
            row_better = p.a_better if p.a == systems[i] else not p.a_better
            assert cell.marks == ("*" if p.significant else "")
            assert cell.inner == Text("+" if row_better else paper.MINUS)
