"""A pairwise family's forms for a paper (:attr:`~sigreport.render.model.Table.forms`): what a reader of the
paper needs of every pair, in as few columns as a page allows.

1. **Pairs**: one row per pair: the estimate of a - b with its interval, the adjusted p-value and the
   significantly better system (``n.s.`` when the corrected decision is not significant), significant rows in
   bold; then the same with the better system as ``a`` or ``b``, and with the pair's names and the estimate
   over its interval on two lines, for pages too narrow for the names.
2. **Lower-triangle matrix of p-values**: one cell per pair (row system against column system), the adjusted
   p-value in bold when significant, with a superscript ``+`` when the row system is the better one and ``-``
   when the column system is.
3. **Lower-triangle matrix of signs**: that sign alone, and a ``*`` when significant, for families whose
   p-values do not fit the page (20 systems).

One convention in every matrix, whatever the estimate (a difference of scores of either direction, of average
ranks where 1 is best, of accuracies): ``+`` is the row system better, as the HTML matrix's ▲; only for a
metric of no known direction is it the sign of the difference row - column. The caption says which.

LaTeX chooses among them (:mod:`sigreport.render.latex`); the decisions are the family's own, never
recomputed from what is shown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from sigreport.render.model import CI, Cell, Column, Join, Lines, Marked, Num, P, Rows, Sym, Table, Text, join
from sigreport.render.views.common import declared
from sigreport.results.records import McNemarPair, PairRow, PairwiseRecord, PosthocRow

MINUS = "\u2212"


@dataclasses.dataclass(frozen=True)
class PairFacts:
    """What the forms show of a pair: the estimate of a - b (with its interval when there is one), the adjusted
    p-value, the decision and whether a is the better system (None: no direction)."""

    a: str
    b: str
    estimate: float | None
    low: float | None
    high: float | None
    p_adjusted: float | None
    significant: bool | None
    a_better: bool | None


@dataclasses.dataclass(frozen=True)
class Wording:
    """How a family's forms describe themselves: the estimate's head and meaning, the interval level (None:
    no interval), the decimals, the adjusted p-values' name, alpha and what a positive difference means."""

    estimate: Cell  # the estimate's column head: "a \u2212 b", R_a \u2212 R_b
    meaning: str  # a sentence on what the estimate is
    level: float | None
    decimals: int
    adjusted: str  # "Holm-adjusted"
    alpha: float
    positive: str  # what makes the row system the better one ("the higher score"; "": no direction known)


def forms(key: tuple[str | None, ...], caption: str, pairs: Sequence[PairFacts], words: Wording,
          all_pairs: bool = True) -> tuple[Table, ...]:
    """The family's paper forms in order of preference; the matrices for a family of every pair of three
    systems or more (against a baseline, the rows are as many as a matrix would have)."""
    out = [pairs_table(key, caption, pairs, words), pairs_table(key, caption, pairs, words, short=True),
           pairs_table(key, caption, pairs, words, short=True, stacked=True)]
    systems = list(dict.fromkeys(s for p in pairs for s in (p.a, p.b)))
    if all_pairs and len(systems) >= 3:
        out += [triangle(key, caption, pairs, systems, words, True), triangle(key, caption, pairs, systems, words,
                                                                              False)]
    return tuple(out)


def pairs_table(key: tuple[str | None, ...], caption: str, pairs: Sequence[PairFacts], words: Wording,
                short: bool = False, stacked: bool = False) -> Table:
    """One row per pair: a vs b, the estimate [interval], the adjusted p-value, the better system (``short``:
    as a or b, for a page too narrow for the names; ``stacked``: the pair's names and the estimate over its
    interval on two lines, for a page narrower still)."""
    if not any(p.low is not None or p.high is not None for p in pairs):  # the test gives no interval (5x2cv F)
        words = dataclasses.replace(words, level=None)
    head = join(words.estimate, f" [{level_text(words.level)} CI]") if words.level is not None else words.estimate
    columns = (Column(Text("a vs b"), "l"), Column(head, "c" if words.level is not None else "r"),
               Column(Sym("p_adj")), Column(Text("Better"), "l"))
    rows = Rows(len(pairs), lambda: [_pair_row(p, words, short, stacked) for p in pairs])  # made if LaTeX shows them
    bold = tuple(i for i, p in enumerate(pairs) if p.significant)
    interval = (f" with its {level_text(words.level)} confidence interval (per pair, not adjusted for the family)"
                if words.level is not None and any(p.low is not None or p.high is not None for p in pairs) else "")
    better = "a or b, the significantly better system" if short else "the significantly better system"
    note = (f"{words.meaning}{interval}; p_adj: the {words.adjusted} p-value; Better: {better} "
            f"of the pair at \u03b1 = {words.alpha:g} after correction (bold rows), n.s.: not significant"
            + ("; \u2014: no decision." if any(p.significant is None for p in pairs) else "."))
    return Table(key, caption, columns, rows, (note,), bold, form="pairs with estimates" + (" (a/b)" if short else "")
                 + (" on two lines" if stacked else ""))


def _pair_row(p: PairFacts, words: Wording, short: bool, stacked: bool) -> tuple[Cell, ...]:
    return (Lines((Text(f"{p.a} vs"), Text(p.b))) if stacked else Text(f"{p.a} vs {p.b}"),
            _stacked(_estimate(p, words)) if stacked else _estimate(p, words), P(p.p_adjusted),
            Text(_better(p, short)))


def _stacked(c: Cell) -> Cell:
    """An estimate with its interval (value, space, interval) as two lines; anything else as it is."""
    if isinstance(c, Join) and len(c.parts) == 3:
        return Lines((c.parts[0], c.parts[2]))
    return c


def level_text(level: float) -> str:
    """An interval level as printed: 0.95 -> '95%', the sign test's exact 0.9572 -> '95.7%'."""
    return f"{round(100 * level, 1):g}%"


def _estimate(p: PairFacts, words: Wording) -> Cell:
    if p.estimate is None or words.level is None or (p.low is None and p.high is None):
        return Num(p.estimate, words.decimals)
    return join(Num(p.estimate, words.decimals), " ", CI(p.low, p.high, words.level, words.decimals, unbounded=True))


def _better(p: PairFacts, short: bool = False) -> str:
    if p.significant is None:
        return "\u2014"
    if not p.significant:
        return "n.s."
    if p.a_better is None:
        return "\u2014"
    return ("a" if p.a_better else "b") if short else p.a if p.a_better else p.b


def triangle(key: tuple[str | None, ...], caption: str, pairs: Sequence[PairFacts], systems: Sequence[str],
             words: Wording, with_p: bool) -> Table:
    """The lower triangle of the k x k matrix: rows the systems but the first, columns all but the last; a
    cell is the pair of its row and column system: the adjusted p-value (``with_p``) or the sign alone, the
    sign (+: the row system is the better one, see the module's docstring), bold (and ``*`` without p) when
    significant."""
    cells: dict[tuple[str, str], Cell] = {}
    index = {s: i for i, s in enumerate(systems)}
    for p in pairs:  # the cell below the diagonal only (row after column in ``systems``); the other is not shown
        if index[p.a] > index[p.b]:
            cells[(p.a, p.b)] = _triangle_cell(p, False, with_p)
        else:
            cells[(p.b, p.a)] = _triangle_cell(p, True, with_p)
    rows = tuple((Text(r), *(cells.get((r, c), Text("")) if j < i else Text("") for j, c in enumerate(systems[:-1])))
                 for i, r in enumerate(systems) if i > 0)
    columns = (Column(Text(""), "l"), *(Column(Text(c), "r" if with_p else "c") for c in systems[:-1]))
    what = (f"the {words.adjusted} p-value of the row system against the column system, its superscript the sign; "
            f"bold: significant at \u03b1 = {words.alpha:g} after correction" if with_p else
            f"the sign; bold with *: significant at \u03b1 = {words.alpha:g} after correction ({words.adjusted} "
            "p-values)")
    undecided = "; ?: no decision" if any(p.significant is None for p in pairs) else ""
    note = f"Each cell: {what}{undecided}."
    form = "lower-triangle matrix of p-values" if with_p else "lower-triangle matrix of signs"
    return Table(key, f"{caption} {sign_sentence(words)}", columns, rows, (note,), matrix=True, form=form)


def sign_sentence(words: Wording) -> str:
    """The matrix's sign convention, for its caption: + the row system better (``words.positive`` says what
    that is), or, for a metric of no known direction, the sign of the difference row - column."""
    if not words.positive:
        return f"Signs: + when the row system scores higher than the column system, {MINUS} when lower."
    return (f"Signs: + when the row system is the better one ({words.positive}), {MINUS} when the column "
            "system is.")


def _triangle_cell(p: PairFacts, flip: bool, with_p: bool) -> Cell:
    row_first = p.a_better if p.a_better is not None else (None if not p.estimate else p.estimate > 0)
    sign = "" if row_first is None else "+" if row_first != flip else MINUS
    strong = "best" if p.significant else ""
    if p.significant is None:
        return Marked(P(p.p_adjusted, True) if with_p else Text(sign or "0"), "", "?")
    if with_p:
        return Marked(P(p.p_adjusted, True), strong, sign)
    return Marked(Text(sign or "0"), strong, "*" if p.significant else "")


# -------------------------------------------------------------------------------------------- from records


def pairwise_facts(pairs: Sequence[PairRow], higher: bool | None) -> list[PairFacts]:
    """A pairwise or cross-validation family's pairs."""
    out = []
    for p in pairs:
        est = p.estimate
        better = None if est is None or est == 0 or higher is None else (est > 0) == higher
        out.append(PairFacts(p.a, p.b, est, p.ci_low, p.ci_high, p.pvalue_adjusted, p.significant, better))
    return out


def rank_facts(pairs: Sequence[PosthocRow]) -> list[PairFacts]:
    """A rank post-hoc family's pairs: the estimate is the difference of average ranks (1 is best)."""
    out = []
    for p in pairs:
        rd = p.rank_difference
        out.append(PairFacts(p.a, p.b, rd, None, None, p.pvalue_adjusted, p.significant,
                             None if rd is None or rd == 0 else rd < 0))
    return out


def accuracy_facts(pairs: Sequence[McNemarPair]) -> list[PairFacts]:
    """McNemar's family: the estimate is the difference of accuracies a - b."""
    out = []
    for p in pairs:
        a, b = p.accuracy_a, p.accuracy_b
        est = None if a is None or b is None else a - b
        out.append(PairFacts(p.a, p.b, est, None, None, p.pvalue_adjusted, p.significant,
                             None if est is None or est == 0 else est > 0))
    return out


def pairwise_wording(r: PairwiseRecord, level: float, decimals: int, adjusted: str, higher: bool | None) -> Wording:
    """The wording of a pairwise or cross-validation family's forms."""
    what = declared(r).estimate_words
    return Wording(Text(f"a {MINUS} b"), f"Estimate: the {what} a {MINUS} b", level, decimals, adjusted, r.alpha,
                   positive_words(higher))


def positive_words(higher: bool | None) -> str:
    """What makes a system the better one on a metric of this direction ("": no direction known)."""
    if higher is None:
        return ""
    return "the higher score" if higher else "the lower score"
