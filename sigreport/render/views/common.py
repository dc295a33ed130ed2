"""What every view shares: display names from the Results, wording helpers, and the p-value matrix of a
family. Views read typed records (:mod:`sigreport.results.records`), built by the analyses or read back from
results.json into the same classes."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

from sigreport import defaults
from sigreport.results.collection import MetricInfo
from sigreport.results.records import (AutomaticChoice, EffectSize, FamilyPair, McNemarRecord, ModelChoice, PairRow,
                                       PairwiseRecord, PosthocRow)
from sigreport.results.names import (CORRECTION_NAMES, correction_name, PAIRWISE_NAMES, POSTHOC_NAMES,  # noqa: F401 (re-exported)
                                     SPHERICITY_NAMES, sphericity_name, test_name)
from sigreport.render.model import CI, Cell, Column, Df, Int, Num, P, Stat, Sym, Table, Text, Versus, join
from sigreport.results import methods as registry
from sigreport.results.methods import ExtraColumn, Head, MethodDeclaration

ALTERNATIVE_TEXT = {"two-sided": "two-sided", "greater": "one-sided, H1: a > b", "less": "one-sided, H1: a < b"}
SECTION_NAMES = {"classification": "Classification", "agreement": "Agreement", "outcomes": "Paired outcomes",
                 "preferences": "Preference votes"}  # sections named by a kind


class Labels:
    """What views read besides their record: metric names and decimals (from ``Results.metrics``),
    corpus names, the run's alpha, and which agreement record shows the shared matrix."""

    def __init__(self, metrics: Mapping[str, MetricInfo], alpha: float, matrix_owners: frozenset[str] = frozenset(),
                 html_pairwise: str = defaults.HTML_PAIRWISE, latex_pairwise: str = defaults.LATEX_PAIRWISE,
                 baseline: str | None = None):
        self.baseline = baseline  # the spec's baseline (None: not known, e.g. results.json alone)
        self.metrics = metrics
        self.alpha = alpha
        self.matrix_owners = matrix_owners  # agreement records that show the two-annotator matrix
        self.html_pairwise = html_pairwise  # outputs.html.pairwise: rows, matrix or auto
        self.latex_pairwise = latex_pairwise  # outputs.latex.pairwise: rows, matrix or auto

    def higher(self, m: str | None) -> bool | None:
        """Whether higher values of metric ``m`` are better (``None`` for an unknown metric)."""
        info = self.metrics.get(m) if m is not None else None
        return info.higher_is_better if info else None

    def metric(self, m: str | None) -> str:
        info = self.metrics.get(m) if m is not None else None
        return info.label if info else SECTION_NAMES.get(m or "", str(m))

    def decimals(self, m: str | None) -> int:
        info = self.metrics.get(m) if m is not None else None
        return info.decimals if info else 4

    def corpus(self, c: str | None) -> str:
        return "all corpora" if c is None else c


def unbroken(s: str) -> str:
    """``s`` with no-break spaces: words of a column head that must stay on one line when the head wraps in a
    narrow column ('95% CI', '(\u03b1 = 0.05)', 'a \u2212 b'); HTML shows them as spaces, LaTeX as ties."""
    return s.replace(" ", "\u00a0")


def declared(r: PairwiseRecord) -> MethodDeclaration:
    """The declaration of a pairwise family's test: its kind's (a post-hoc family of paired t tests is the
    pairwise test's)."""
    return registry.method("cv" if r.kind == "cv" else "pairwise", r.method)


def head_cell(head: Head) -> Cell:
    """A declared head as a cell: ``("sym", "t")`` is the symbol t, ``("text", "wins")`` the text."""
    kind, name = head
    return Sym(name) if kind == "sym" else Text(name)


def extra_cell(c: ExtraColumn, p: PairRow) -> Cell:
    """A pair's value of a declared extra column (missing: an empty number)."""
    v = p.extra.get(c.key)
    if c.cell == "flag":
        assert c.labels is not None
        return Text(c.labels[0] if v else c.labels[1])
    if c.cell == "p":
        return P(v)
    if c.cell == "statistic":
        return Stat(v)
    if c.cell == "df":
        return Df(v)
    if c.cell == "integer":
        return Int(v) if v is not None else Num(None)
    return Num(v, c.decimals)


PAIR_COLUMN = Column(Text(unbroken("a vs b")), "l")  # the first column of a pairwise table (rows: model.Pair)


def pct(level: float) -> str:
    """An interval level as a percentage: '95%', '99.5%', '95.72%' (at most two decimals, never rounded to a
    level it is not: 0.995 is '99.5%', not '100%')."""
    return f"{round(100 * float(level), 2):g}%"


def p_text(x: float | None) -> str:
    """p-values in sentences, APA style: three decimals, '< 0.001'."""
    if x is None:
        return "not computable"
    return "p < 0.001" if x < 0.001 else f"p = {x:.3f}"


def df_text(x: float | None) -> str:
    """Degrees of freedom in words: an integer when whole."""
    if x is None:
        return "\u2014"
    return str(int(round(x))) if abs(x - round(x)) < 1e-9 else f"{x:.2f}"


def plain(x: float | None, decimals: int = 3, default: str = "not computable") -> str:
    return default if x is None else f"{x:.{decimals}f}"


def value_ci(value: float | None, low: float | None, high: float | None, level: float, decimals: int) -> Cell:
    """'0.860 [0.829, 0.889]'; the value alone when the interval is missing."""
    if value is None:
        return Num(None)
    if low is None or high is None:
        return Num(value, decimals)
    return join(Num(value, decimals), " ", CI(low, high, level, decimals))


def effect_cell(eff: EffectSize | None) -> Cell:
    """'d_z = 3.68' with the effect's symbol, or a dash."""
    if eff is None or eff.value is None:
        return Num(None)
    return join(Sym(eff.name), " = ", Num(eff.value, 2))


def why_this_test(selection: AutomaticChoice | ModelChoice | None) -> tuple[str, ...]:
    """'Why this test' lines from a recorded automatic choice."""
    if selection is None:
        return ()
    lines = [f"Why this test: {selection.reason}"]
    for step in selection.steps:
        value, threshold = step.value, step.threshold
        val = "" if value is None else f" (value {value:.4g}"
        if value is not None:
            val += f", threshold {threshold:.4g})" if threshold is not None else ")"
        lines.append(f"\u2022 {step.check}{val}: {step.outcome}")
    if isinstance(selection, AutomaticChoice) and selection.pinned:
        lines.append(f"\u2022 selection fixed: {selection.previous_method} kept from the previous report")
    return tuple(lines)


def family_text(r: PairwiseRecord | McNemarRecord) -> str:
    corr = correction_name(r.correction)
    n = r.family_size
    family = f"{n} comparison{'s' if n != 1 else ''}"
    if r.correction == "none":
        return f"no multiple-comparison correction ({family})"
    if n == 1:
        return f"a single comparison, which the {corr} correction leaves unadjusted"
    scope = {"metric": "of this metric on every corpus", "corpus": "of every metric on this corpus",
             "all": "of every pairwise test in the report"}.get(r.family, "of this metric on this corpus")
    return f"{corr} correction over the family of the {family} {scope}"


def a_better(p: PairRow | PosthocRow, higher: bool | None) -> bool | None:
    """Whether system ``a`` of pair ``p`` is the better one: a rank post-hoc pair from its rank difference
    (rank 1 is best), any other from the sign of its estimate of a - b and the metric's direction; ``None``
    when there is no direction (a zero or missing estimate)."""
    if isinstance(p, PosthocRow):
        rd = p.rank_difference
        return None if rd is None or rd == 0 else rd < 0
    est = p.estimate
    if est is None or est == 0 or higher is None:
        return None
    return (est > 0) == higher


def pvalue_matrix(pairs: Sequence[FamilyPair], key: tuple[str | None, ...], caption: str, adjusted: str,
                  alpha: float, better: Callable[[FamilyPair], bool | None] = lambda p: None) -> Table | None:
    """A pairwise family in few columns, for a narrow page: the adjusted p-value of every pair in a k x k
    matrix (rows and columns the systems; a family against one baseline has the baseline as its only
    column), significant ones in bold, the diagonal a dash. ``None`` for fewer than two pairs.

    The decisions are the family's own (``significant``), never recomputed from the p-values shown; ``better``
    tells whether a pair's system ``a`` is the better one (see :func:`a_better`), for the HTML's direction marks.
    """
    pairs = [p for p in pairs]
    if len(pairs) < 2:
        return None
    systems = list(dict.fromkeys(s for p in pairs for s in (p.a, p.b)))
    baseline = family_baseline(pairs, systems)
    cols = [baseline] if baseline is not None else systems
    rows = [s for s in systems if s != baseline]
    # both cells of a pair, from one reading of it (a 20-system matrix has 380 cells of 190 pairs)
    cells: dict[tuple[str, str], Cell] = {}
    for p in pairs:
        first, value, significant = better(p), p.pvalue_adjusted, p.significant
        cells[(p.b, p.a)] = Versus(value, significant, None if first is None else not first)
        cells[(p.a, p.b)] = Versus(value, significant, first)

    def cell(a: str, b: str) -> Cell:
        return Num(None) if a == b else cells.get((a, b), Text(""))

    table_rows = tuple((Text(a), *(cell(a, b) for b in cols)) for a in rows)
    note = (f"Each cell: the {adjusted} p-value of the row system against the column system; bold: significant "
            f"at \u03b1 = {alpha:g} after correction. The HTML report has the full table (estimates, intervals, "
            "statistics).")
    return Table(key, caption, (Column(Text(""), "l"), *(Column(Text(b)) for b in cols)), table_rows, (note,))


def family_baseline(pairs: Sequence[FamilyPair], systems: Sequence[str]) -> str | None:
    """The system every pair is against (a family against one baseline), or None (e.g. every pair)."""
    bs = {p.b for p in pairs}
    return next(iter(bs)) if len(bs) == 1 and len(pairs) == len(systems) - 1 else None


def shown_as_matrix(pairs: Sequence[FamilyPair], option: str) -> bool:
    """Whether the HTML shows a family as its p-value matrix, by ``outputs.html.pairwise`` (``option``):
    ``matrix`` always (two pairs or more), ``rows`` never, ``auto`` for a family of every pair (not one
    against a baseline, whose matrix would have as many rows) of more than :data:`MATRIX_PAIRS` pairs
    (10 or more systems)."""
    pairs = list(pairs)
    if len(pairs) < 2 or option == "rows":
        return False
    if option == "matrix":
        return True
    systems = list(dict.fromkeys(s for p in pairs for s in (p.a, p.b)))
    return len(pairs) > MATRIX_PAIRS and family_baseline(pairs, systems) is None


MATRIX_PAIRS = 40  # outputs.html.pairwise: auto shows a family of every pair as a matrix above this many pairs
LARGE_FAMILY = 20
"""Systems beyond which a family of every pair is shown by its pairs of neighbours in value order and its pairs
with the baseline (the HTML, the PDF and LaTeX; no k x k matrix), every pair in a searchable table of the HTML
screen page and in results.json: 100 systems are 4,950 pairs, a matrix no page can print or a reader scan. The
main table then leaves out its letters (who beats whom, up to k - 1 per cell): its Rank (UB) column counts them."""
EVERY_PAIR_ROWS = 5_000
"""Pairs up to which a large family's searchable table of every pair is in the HTML screen page (100 systems are
4,950 pairs, 0.7 MB of the page); beyond it (a leaderboard of 1,000 systems has 499,500, 70 MB) the page shows
the neighbours and the baseline's pairs, and every pair is in results.json."""


def with_html_matrix(table: Table, pairs: Sequence[FamilyPair], lab: Labels, adjusted: str, alpha: float) -> Table:
    """``table`` with the matrix the HTML shows instead of its rows (see :func:`html_matrix`); its LaTeX matrix
    then no longer points to the HTML for the full table, but to results.json."""
    form = html_matrix(table, pairs, lab, adjusted, alpha)
    if form is None or table.compact is None:
        return table
    notes = tuple(n.replace("The HTML report has the full table (estimates, intervals, statistics).",
                            "Every pair's estimate, interval and statistics are in results.json.")
                  for n in table.compact.notes)
    return dataclasses.replace(table, html_form=form, compact=dataclasses.replace(table.compact, notes=notes))


def html_matrix(table: Table, pairs: Sequence[FamilyPair], lab: Labels, adjusted: str, alpha: float) -> Table | None:
    """The matrix the HTML shows instead of the rows of ``table`` (its ``compact`` form with notes for the
    HTML), or ``None`` to show the rows (see :func:`shown_as_matrix`)."""
    compact = table.compact
    n = len(pairs)
    if compact is None or not shown_as_matrix(pairs, lab.html_pairwise):
        return None
    note = (f"Each cell: the {adjusted} p-value of the row system against the column system; bold: significant "
            f"at \u03b1 = {alpha:g} after correction, \u25b2 the row system is the better one, \u25bc the column "
            f"system. The {n} pairs are shown as a matrix (one row per pair is shown up to {MATRIX_PAIRS} pairs); every "
            "pair's estimate, interval and statistics are in results.json, and in the LaTeX tables when those list "
            "one row per pair.")
    return dataclasses.replace(compact, notes=(note,))


def system_sentences(pairs: Sequence[FamilyPair], better: Callable[[FamilyPair], bool | None], method: str
                     ) -> tuple[str, ...]:
    """One sentence per system for a family shown as a matrix (one per pair would be thousands): whom it
    significantly beats and by whom it is significantly beaten, in the family's order of systems."""
    systems = list(dict.fromkeys(s for p in pairs for s in (p.a, p.b)))
    wins: dict[str, list[str]] = {s: [] for s in systems}
    losses: dict[str, list[str]] = {s: [] for s in systems}
    for p in pairs:
        first = better(p) if p.significant else None
        if first is not None:
            win, lose = (p.a, p.b) if first else (p.b, p.a)
            wins[win].append(lose)
            losses[lose].append(win)
    out = []
    for s in systems:
        parts = ([f"significantly better than {names_text(wins[s])}"] if wins[s] else []) + (
            [f"significantly worse than {names_text(losses[s])}"] if losses[s] else [])
        out.append(f"{s} is {' and '.join(parts)} ({method})." if parts
                   else f"{s} differs significantly from no other system ({method}).")
    return tuple(out)


def the(name: str) -> str:
    """A test's name with its article: 'the paired t test', but "Alpaydin's combined 5x2cv F test" (a name
    that opens with a possessive takes none)."""
    first = name.split(" ", 1)[0]
    return name if first.endswith("'s") and name[:1].isupper() else f"the {name}"


def names_text(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
