"""Views of classification and agreement analyses: paper-style tables, sentences and notes.

One function per kind (``classification``, ``mcnemar``, ``cochran_q``, ``agreement``), each
``view(record, labels) -> AnalysisView``. Every agreement value is shown with its Landis and Koch band
in words; interval levels come from each record's ``ci_level``.
"""

from __future__ import annotations

import dataclasses

from collections.abc import Callable, Iterable

from sigreport.render.model import (CI, AnalysisView, Cell, Column, Decision, Df, Int, Num, P, Pair, Stat, Sym,
                                    Table, Text, join)
from sigreport.render.views import paper
from sigreport.render.views.common import (correction_name, PAIR_COLUMN, Labels, df_text, family_text, p_text, pct,
                                           plain, pvalue_matrix, unbroken, value_ci)
from sigreport.results.names import AGREEMENT_NAMES, agreement_name
from sigreport.results.records import (AgreementPair, AgreementRecord, ClassificationRecord, CochranQRecord,
                                       McNemarPair, McNemarRecord, MetricValue, Record, SystemClassification)

DEC = 3  # decimals of metrics and agreement coefficients in tables

MEASURE_NAMES = AGREEMENT_NAMES  # the agreement measures' display names, from their declarations
KAPPAS = ("cohen_kappa", "weighted_kappa_linear", "weighted_kappa_quadratic")  # two-rater kappas (with a matrix)
BANDS_NOTE = ("Landis and Koch (1977) bands: below 0 poor, 0.00\u20130.20 slight, 0.21\u20130.40 fair, "
              "0.41\u20130.60 moderate, 0.61\u20130.80 substantial, 0.81\u20131.00 almost perfect.")


def _metric(s: SystemClassification, name: str) -> MetricValue | None:
    return s.metrics.get(name)


def _with_ci(v: MetricValue | None, level: float) -> Cell:
    """'0.860 [0.829, 0.889]' from a metric entry (value, ci_low, ci_high)."""
    if v is None:
        return Num(None)
    return value_ci(v.value, v.ci_low, v.ci_high, level, DEC)


# -------------------------------------------------------------------------------------------- classification


def _headline(r: ClassificationRecord) -> list[tuple[str, str]]:
    """(metric name, column header) of the summary table."""
    fn = r.f_name
    f_head = fn.upper()[0] + fn[1:]
    mcc = [("mcc", "MCC")] if any(_metric(s, "mcc") is not None for s in r.systems) else []
    if r.positive_label is not None:
        return [("precision", "Precision"), ("recall", "Recall"), ("specificity", "Specificity"), (fn, f_head),
                (f"{fn}_macro", f"Macro {f_head}")] + mcc
    return [("precision_macro", "Macro precision"), ("recall_macro", "Macro recall"),
            ("specificity_macro", "Macro specificity"), (f"{fn}_macro", f"Macro {f_head}"),
            (f"{fn}_weighted", f"Weighted {f_head}")] + mcc


def _value_ci_text(v: MetricValue | None, level: str) -> str:
    if v is None or v.value is None:
        return "not computable"
    if v.ci_low is None or v.ci_high is None:
        return plain(v.value)
    return f"{plain(v.value)} ({level} CI {plain(v.ci_low)} to {plain(v.ci_high)})"


def _confusion_table(r: ClassificationRecord, s: SystemClassification, where: str) -> Table:
    cm = s.confusion_matrix
    ccols = (Column(Text(unbroken("Gold \u2193") + " / " + unbroken("predicted \u2192")), "l"),
             *(Column(Text(x)) for x in cm.labels), Column(Text("Total")))
    crows: list[tuple[Cell, ...]] = [(Text(lab_), *(Int(v) for v in row), Int(sum(row)))
                                     for lab_, row in zip(cm.labels, cm.matrix)]
    col_tot = [sum(row[j] for row in cm.matrix) for j in range(len(cm.labels))]
    crows.append((Text("Total"), *(Int(v) for v in col_tot), Int(sum(col_tot))))
    return Table(("classification", r.corpus, "confusion", s.system),
                 f"Confusion matrix of {s.system} on {where}: rows are gold labels, columns predicted "
                 f"labels ({s.n} items; the diagonal holds correct predictions).", ccols, tuple(crows))


def classification_view(r: ClassificationRecord, lab: Labels) -> AnalysisView:
    where = lab.corpus(r.corpus)
    level = pct(r.ci_level)
    heads = _headline(r)
    fn = r.f_name
    f_head = fn.upper()[0] + fn[1:]
    pos = f" (positive class: {r.positive_label})" if r.positive_label is not None else ""
    cols = (Column(Text("System"), "l"), Column(Sym("n")), Column(Text("Accuracy"), "c"),
            *(Column(Text(h), "c") for _, h in heads))
    rows = tuple((Text(s.system), Int(s.n), _with_ci(_metric(s, "accuracy"), r.ci_level),
                  *(_with_ci(_metric(s, name), r.ci_level) for name, _ in heads)) for s in r.systems)
    summary = Table(("classification", r.corpus, "metrics"),
                    f"Classification on {where}: accuracy and the main metrics of each system{pos}, with "
                    f"{level} bootstrap confidence intervals over the {r.n_items} items (B = {r.n_resamples}).",
                    cols, rows)
    detail_cols = (Column(Text("System"), "l"), Column(Text("Class"), "l"), Column(Text("Precision"), "c"),
                   Column(Text("Recall"), "c"), Column(Text("Specificity"), "c"), Column(Text(f_head), "c"),
                   Column(Text("Support")))
    detail_rows = []
    for s in r.systems:
        support = [sum(row) for row in s.confusion_matrix.matrix]
        names = [(lab_, f"_{lab_}", Int(n)) for lab_, n in zip(r.labels, support)]
        names += [(f"{avg} average", f"_{avg}", Int(s.n)) for avg in ("macro", "micro", "weighted")]
        for i, (shown, suffix, sup) in enumerate(names):
            detail_rows.append((Text(s.system if i == 0 else ""), Text(shown),
                                *(_with_ci(_metric(s, base + suffix), r.ci_level)
                                  for base in ("precision", "recall", "specificity", fn)), sup))
    detail = Table(("classification", r.corpus, "per-class"),
                   f"Classification on {where}: per-class (one-vs-rest) and averaged precision, recall, specificity "
                   f"and {f_head}, with {level} bootstrap confidence intervals.", detail_cols, tuple(detail_rows),
                   ("Support: gold items of the class. Macro: unweighted mean over the classes where the metric is "
                    "defined; micro: from the counts summed over classes (for single-label data micro precision = "
                    "micro recall = micro F = accuracy); weighted: mean weighted by gold support.",))
    tables = [summary, detail] + [_confusion_table(r, s, where) for s in r.systems]
    sentences = []
    for s in r.systems:
        acc = _metric(s, "accuracy")
        main = _metric(s, fn if r.positive_label is not None else f"{fn}_macro")
        what = f"{f_head} of '{r.positive_label}'" if r.positive_label is not None else f"macro {f_head}"
        sentences.append(f"{s.system} has accuracy {_value_ci_text(acc, level)} and {what} "
                         f"{_value_ci_text(main, level)}.")
    notes = (f"Confidence intervals: {level} percentile bootstrap over items (B = {r.n_resamples}, seeded); one set of "
             "resampled items serves every metric of a system.",
             f"F-measure: F_beta = (1 + beta^2) P R / (beta^2 P + R) with beta = {r.beta:g}.")
    if any(h == "mcc" for h, _ in heads):
        notes += ("MCC: Matthews correlation coefficient (Gorodkin's K-class form; scikit-learn's "
                  "matthews_corrcoef), its interval from its own seeded bootstrap of confusion matrices.",)
    return AnalysisView(r.id, r.kind, "Classification metrics", tuple(tables), tuple(sentences), notes,
                        tuple(r.warnings))


# -------------------------------------------------------------------------------------------- McNemar


def _test_name(p: McNemarPair) -> Cell:
    if p.exact:
        return Text("exact")
    return join(Sym("chi2"), ", cc") if p.continuity_correction else Sym("chi2")


@dataclasses.dataclass(frozen=True)
class Words:
    """How McNemar's and Cochran's views speak of a 'yes': a right label (classification) or a yes outcome
    (paired outcomes without gold, data.outcomes)."""

    section: str
    on: str  # what the test runs on
    rate: str  # the proportion of yes
    short: str  # its column head
    yes: str
    no: str


CLASSIFICATION_WORDS = Words("Classification", "per-item correctness", "accuracy", "Acc.", "right", "wrong")
OUTCOME_WORDS = Words("Paired outcomes", "paired yes/no outcomes", "proportion of yes", "Yes", "yes", "no")


def _words(r: McNemarRecord | CochranQRecord) -> Words:
    return OUTCOME_WORDS if r.metric == "outcomes" else CLASSIFICATION_WORDS


def mcnemar_view(r: McNemarRecord, lab: Labels) -> AnalysisView:
    where = lab.corpus(r.corpus)
    w = _words(r)
    corr = correction_name(r.correction)
    cols = (PAIR_COLUMN, Column(Text(f"{w.short} a")), Column(Text(f"{w.short} b")), Column(Sym("n_11")),
            Column(Sym("n_10")), Column(Sym("n_01")), Column(Sym("n_00")), Column(Text("Test"), "l"),
            Column(Text("Statistic")), Column(Text("df")), Column(Sym("p")), Column(Sym("p_adj")),
            Column(Text("Significant"), "c"))
    rows = tuple((Pair(p.a, p.b), Num(p.accuracy_a, DEC), Num(p.accuracy_b, DEC), Int(p.n11), Int(p.n10),
                  Int(p.n01), Int(p.n00), _test_name(p),
                  Int(int(p.statistic)) if p.exact and p.statistic is not None else Stat(p.statistic),
                  Df(p.df), P(p.pvalue), P(p.pvalue_adjusted), Decision(p.significant)) for p in r.pairs)
    bold = tuple(i for i, p in enumerate(r.pairs) if p.significant)
    which = "every system against the baseline" if r.comparisons == "vs_baseline" else "every pair of systems"
    fam = (f"no multiple-comparison correction ({r.family_size} comparison{'s' if r.family_size != 1 else ''})"
           if r.correction == "none" else
           f"{corr} correction over the {r.family_size} comparison{'s' if r.family_size != 1 else ''} of this corpus")
    if r.family != "metric_corpus":
        fam = family_text(r)
    post = " (post-hoc tests after Cochran's Q)" if r.after == "cochran_q" else ""
    caption = (f"{w.section} on {where}: McNemar's test on {w.on} for {which}{post}; {fam}; "
               f"\u03b1 = {r.alpha:g}.")
    cc = ("with continuity correction" if any(p.continuity_correction for p in r.pairs) or not r.pairs
          else "without continuity correction")
    rule = {"auto": f"the exact binomial test when n01 + n10 < 25, otherwise the chi-square test {cc}",
            "exact": "the exact binomial test for every pair",
            "chi2": f"the chi-square test {cc} for every pair"}
    notes = (f"2x2 table of each pair: n11 both {w.yes}, n10 a {w.yes} and b {w.no}, n01 a {w.no} and b {w.yes}, "
             f"n00 both {w.no}. Only the discordant n01 and n10 enter the test. {w.short}: {w.rate}; cc: with "
             "continuity correction; exact: exact binomial test.",
             f"Variant: {rule[r.method]}. Chi-square: (|n01 \u2212 n10| \u2212 1)^2 / (n01 + n10) on "
             "1 df; exact: two-sided binomial test of n01 in n01 + n10 trials with p = 1/2, whose statistic is "
             f"min(n01, n10). p_adj: {corr}-adjusted.")
    adjusted = "unadjusted" if r.correction == "none" else f"{corr}-adjusted"
    key = (r.metric, r.corpus, "mcnemar")
    table = Table(key, caption, cols, rows, notes, bold, compact=pvalue_matrix(r.pairs, key, caption, adjusted, r.alpha))
    words = paper.Wording(Text(f"{w.short} a {paper.MINUS} b"), f"Estimate: {w.rate} of a {paper.MINUS} {w.rate} of b",
                          None, DEC, adjusted, r.alpha, f"the higher {w.rate}")
    table = dataclasses.replace(table, forms=paper.forms(table.key, caption, paper.accuracy_facts(r.pairs), words,
                                                         r.comparisons != "vs_baseline"))
    sentences = [_mcnemar_sentence(r, p) for p in r.pairs]
    view_notes = []
    if r.after == "cochran_q":
        if r.omnibus_significant is None:
            view_notes.append("Cochran's Q could not be computed; these pairwise tests stand on their own.")
        else:
            view_notes.append("Cochran's Q was " + ("significant" if r.omnibus_significant else
                                                    "not significant (read these post-hoc tests with care)") +
                              f" at \u03b1 = {r.alpha:g}.")
    if len(r.pairs) == 1 and r.pairs[0].cochran_q is not None:
        p = r.pairs[0]
        view_notes.append(f"With two systems Cochran's Q = {p.cochran_q:.4f} equals McNemar's chi-square without "
                          f"continuity correction ({p.statistic_uncorrected:.4f}, {p_text(p.pvalue_uncorrected)}; "
                          "Cochran 1950), so no separate omnibus test is run.")
    warnings = list(r.warnings) + [f"{p.a} vs {p.b}: {w}" for p in r.pairs for w in p.warnings]
    return AnalysisView(r.id, r.kind, "Pairwise comparisons: McNemar's test", (table,), tuple(sentences),
                        tuple(view_notes), tuple(warnings))


def _mcnemar_sentence(r: McNemarRecord, p: McNemarPair) -> str:
    if p.pvalue is None:
        return f"{p.a} vs {p.b}: the test could not be computed ({'; '.join(p.warnings) or 'see warnings'})."
    if p.exact:
        stat = f"exact binomial test, n01 = {p.n01}, n10 = {p.n10}"
    else:
        stat = (f"chi-square(1) = {p.statistic:.2f}" + (" with continuity correction" if p.continuity_correction
                                                         else "") + f", n01 = {p.n01}, n10 = {p.n10}")
    corr = correction_name(r.correction)
    p_part = p_text(p.pvalue)
    if r.correction != "none" and p.pvalue_adjusted is not None:
        p_part += f", {corr}-adjusted {p_text(p.pvalue_adjusted)}"
    after = f" after {corr}" if r.correction != "none" else ""
    w = _words(r)
    is_yes, is_no = ("is right", "is wrong") if w is CLASSIFICATION_WORDS else ("has yes", "has no")
    if p.n10 > p.n01:
        better = f"{p.a} {is_yes} on {p.n10} items where {p.b} {is_no}, {p.b} on {p.n01} where {p.a} {is_no}"
        rel = ">"
    elif p.n01 > p.n10:
        better = f"{p.b} {is_yes} on {p.n01} items where {p.a} {is_no}, {p.a} on {p.n10} where {p.b} {is_no}"
        rel = "<"
    else:
        better = f"each {is_yes} on {p.n01} items where the other {is_no}"
        rel = "="
    if p.significant:
        return (f"{p.a} {rel} {p.b} in {w.rate}: {better}; {stat}, {p_part}, significant at \u03b1 = {r.alpha:g}"
                f"{after}.")
    return f"{p.a} vs {p.b}: {better}; {stat}, {p_part}, not significant at \u03b1 = {r.alpha:g}{after}."


# -------------------------------------------------------------------------------------------- Cochran's Q


def cochran_view(r: CochranQRecord, lab: Labels) -> AnalysisView:
    where = lab.corpus(r.corpus)
    cols = (Column(Text("Systems")), Column(Text("Items")), Column(Sym("Q")), Column(Text("df")), Column(Sym("p")),
            Column(Text("Significant"), "c"))
    rows = ((Int(r.k), Int(r.n), Stat(r.statistic), Df(r.df), P(r.pvalue), Decision(r.significant)),)
    w = _words(r)
    acc = ", ".join(f"{s} {plain(a)}" for s, a in r.accuracy.items())
    table = Table((r.metric, r.corpus, "cochran-q"),
                  f"{w.section} on {where}: Cochran's Q test that all {r.k} systems have the same {w.rate} "
                  f"(chi-square on k - 1 df; \u03b1 = {r.alpha:g}).", cols, rows,
                  (f"{w.rate.capitalize()}: {acc}. Q = (k - 1)(k \u03a3 C_j\u00b2 \u2212 N\u00b2) / (k N \u2212 "
                   f"\u03a3 R_i\u00b2) over {w.on} "
                   "(Cochran 1950); it equals the tie-corrected Friedman statistic on 0/1 data.",))
    if r.statistic is None:
        sentence = f"Cochran's Q: the test could not be computed ({'; '.join(r.warnings)})."
    else:
        verdict = "significant" if r.significant else "not significant"
        rates = "accuracies" if w is CLASSIFICATION_WORDS else "proportions of yes"
        sentence = (f"Cochran's Q({df_text(r.df)}) = {r.statistic:.2f}, {p_text(r.pvalue)}: the {rates} of the "
                    f"{r.k} systems differ {verdict}ly" if r.significant else
                    f"Cochran's Q({df_text(r.df)}) = {r.statistic:.2f}, {p_text(r.pvalue)}: no significant difference "
                    f"between the {rates} of the {r.k} systems")
        sentence += f" at \u03b1 = {r.alpha:g} ({verdict}); McNemar's tests below are the pairwise follow-up."
    return AnalysisView(r.id, r.kind, "Omnibus test: Cochran's Q", (table,), (sentence,), (), tuple(r.warnings))


# -------------------------------------------------------------------------------------------- agreement

SYMBOL_OF = {"cohen_kappa": "kappa", "weighted_kappa_linear": "kappa_w", "weighted_kappa_quadratic": "kappa_w",
             "fleiss_kappa": "kappa", "krippendorff_alpha": "alpha"}


def _band(x: str | None) -> str:
    return x if x is not None else "\u2014"


def _coef_columns(r: AgreementRecord, first: str) -> list[Column]:
    level = pct(r.ci_level)
    alpha = r.measure == "krippendorff_alpha"
    cols = [Column(Text(first), "l"), Column(Sym("n"))]
    if alpha:
        if r.observed_agreement is not None:
            cols += [Column(Sym("D_o")), Column(Sym("D_e"))]
    else:
        cols += [Column(Sym("P_A")), Column(Sym("P_E"))]
    cols += [Column(Sym(SYMBOL_OF[r.measure])), Column(Text("SE"))]
    if r.measure == "fleiss_kappa" or _has_null_test(r):
        cols.append(Column(Sym("SE_0")))
    if _has_null_test(r):
        cols.append(Column(Text("p " + unbroken("(\u03ba = 0)"))))
    cols += [Column(Text(unbroken(f"{level} CI") + (" (bootstrap)" if alpha else " (SE)")), "c")]
    if not alpha:
        cols.append(Column(Text(unbroken(f"{level} CI") + " (bootstrap)"), "c"))
    cols.append(Column(Text("Landis & Koch"), "l"))
    return cols


def _has_null_test(r: AgreementRecord) -> bool:
    """Whether the kappa record (or its pairs) carries the z test against kappa = 0."""
    return r.z_null is not None or any(p.z_null is not None for p in r.pairs)


def _coef_row(r: AgreementRecord, x: AgreementRecord | AgreementPair, first: Cell) -> tuple[Cell, ...]:
    """One row of a coefficient table from ``x`` (an agreement record or one of its pairs)."""
    alpha = r.measure == "krippendorff_alpha"
    row: list[Cell] = [first, Int(x.n_items)]
    if alpha:
        if r.observed_agreement is not None:
            row += [Num(1 - x.observed_agreement, DEC),
                    Num(None if x.expected_agreement is None else 1 - x.expected_agreement, DEC)]
    else:
        row += [Num(x.observed_agreement, DEC), Num(x.expected_agreement, DEC)]
    row += [Num(x.value, DEC), Num(x.se, DEC)]
    if r.measure == "fleiss_kappa" or _has_null_test(r):
        row.append(Num(x.se_null, DEC))
    if _has_null_test(r):
        row.append(P(x.pvalue_null))
    row.append(CI(x.ci_low, x.ci_high, r.ci_level, DEC))
    if not alpha:
        row.append(CI(x.bootstrap_ci_low, x.bootstrap_ci_high, r.ci_level, DEC))
    row.append(Text(_band(x.interpretation)))
    return tuple(row)


def _agreement_notes(r: AgreementRecord) -> tuple[str, ...]:
    level = pct(r.ci_level)
    notes = []
    if r.measure in KAPPAS:
        notes.append(f"SE: large-sample standard error under the alternative (Fleiss, Cohen and Everitt 1969), not "
                     f"the one under the null; the {level} CI (SE) is kappa \u00b1 z SE, clipped to [\u22121, 1]. "
                     f"Bootstrap CI: percentile, items resampled (B = {r.n_resamples}).")
        if _has_null_test(r):
            notes.append("SE0: standard error under kappa = 0 (Fleiss, Cohen and Everitt 1969); p (\u03ba = 0): "
                         "two-sided p of z = kappa/SE0.")
    if r.measure.startswith("weighted"):
        w = ("1 \u2212 |i \u2212 j|/(K \u2212 1)" if r.measure.endswith("linear")
             else "1 \u2212 (i \u2212 j)^2/(K \u2212 1)^2")
        notes.append(f"Agreement weights {w} over the ordered labels {', '.join(r.labels)}; P(A) and P(E) are "
                     "weighted.")
    if r.measure == "fleiss_kappa":
        notes.append(f"SE: standard error under the alternative (Gwet 2014), used for the {level} CI; SE0: under "
                     f"kappa = 0 (Fleiss, Nee and Landis 1979). Bootstrap CI: percentile over items "
                     f"(B = {r.n_resamples}). Only items rated by every annotator enter (Fleiss' kappa assumes a "
                     "fixed number of ratings per item).")
    if r.measure == "krippendorff_alpha":
        notes.append(f"alpha = 1 \u2212 D_o/D_e (Krippendorff 2011) at the {r.level} level, using every item with two "
                     f"or more ratings (missing ratings allowed). SE and the {level} CI: bootstrap over items "
                     f"(B = {r.n_resamples}, percentile).")
    return tuple(notes)


def _matrix_table(r: AgreementRecord, row_name: str, col_name: str, key: tuple[str | None, ...], caption: str) -> Table:
    """An agreement matrix with totals; the diagonal shows (in parentheses) the count expected by chance."""
    matrix = r.matrix
    assert matrix is not None  # only the matrix owners (matrix_owners) show one
    k = len(r.labels)
    n = sum(sum(row) for row in matrix)
    rt = [sum(row) for row in matrix]
    ct = [sum(matrix[i][j] for i in range(k)) for j in range(k)]
    cols = (Column(Text(f"{row_name} \u2193 / {col_name} \u2192"), "l"), *(Column(Text(x)) for x in r.labels),
            Column(Text("Total")))
    rows: list[tuple[Cell, ...]] = []
    for i, lab_ in enumerate(r.labels):
        cells: list[Cell] = []
        for j in range(k):
            if i == j and n:
                cells.append(join(Int(matrix[i][j]), " (", Num(rt[i] * ct[j] / n, 1), ")"))
            else:
                cells.append(Int(matrix[i][j]))
        rows.append((Text(lab_), *cells, Int(rt[i])))
    rows.append((Text("Total"), *(Int(c) for c in ct), Int(n)))
    return Table(key, caption, cols, tuple(rows),
                 ("In parentheses on the diagonal: the count expected by chance, row total \u00d7 column total / n "
                  "(the source's Tables 6 and 8).",))


def matrix_owners(records: Iterable[Record]) -> frozenset[str]:
    """Ids of the agreement records that show the two-annotator agreement matrix: per corpus, the first
    two-rater kappa in plan order (the matrix is the same for every kappa, so it is shown once)."""
    owners: dict[str | None, str] = {}
    for r in records:
        if (isinstance(r, AgreementRecord) and r.source == "annotations" and r.value_kind == "coefficient"
                and r.measure in KAPPAS and r.matrix is not None and len(r.annotators) == 2):
            owners.setdefault(r.corpus, r.id)
    return frozenset(owners.values())


def agreement_view(r: AgreementRecord, lab: Labels) -> AnalysisView:
    where = lab.corpus(r.corpus)
    name = agreement_name(r.measure)
    key = r.id.rsplit("/", 1)[-1]
    tables: list[Table] = []
    sentences: list[str] = []
    if r.source == "systems_vs_gold":
        rows = tuple(_coef_row(r, p, Text(p.a)) for p in r.pairs)
        tables.append(Table(("agreement", r.corpus, key), f"Agreement of each system with the gold labels on "
                            f"{where}: {name} ({r.n_items} items).", tuple(_coef_columns(r, "System")), rows,
                            (BANDS_NOTE,)))
        sentences += [f"{p.a} vs gold: {name} is {plain(p.value)} ({_band(p.interpretation)})." for p in r.pairs]
        title = f"{name}: each system against the gold labels"
    elif r.value_kind == "mean_of_pairs":
        tables += _pairs_tables(r, where, name, key)
        values = [p.value for p in r.pairs if p.value is not None]
        sentences.append(f"{name}, mean over the {len(r.pairs)} pairs of annotators (Light's kappa), is "
                         f"{plain(r.value)} ({_band(r.interpretation)}); the pairwise values range from "
                         f"{plain(min(values, default=None))} to {plain(max(values, default=None))}.")
        title = f"{name}: pairs of annotators"
    else:
        rows = (_coef_row(r, r, Text(", ".join(r.annotators))),)
        tables.append(Table(("agreement", r.corpus, key), f"Agreement on {where}: {name} of "
                            f"{len(r.annotators)} annotators ({r.level} labels: {', '.join(r.labels)}).",
                            tuple(_coef_columns(r, "Annotators")), rows, (BANDS_NOTE,)))
        if r.id in lab.matrix_owners:
            a, b = r.annotators
            tables.append(_matrix_table(r, a, b, ("agreement", r.corpus, "matrix"),
                                        f"Agreement matrix of annotators {a} (rows) and {b} (columns) on {where}: "
                                        "items per pair of labels."))
        sentences.append(_coefficient_sentence(r, name))
        if r.z_null is not None:
            sentences.append(f"Test of {name} = 0: SE under the null = {plain(r.se_null, 4)}, z = {r.z_null:.2f}, "
                             f"{p_text(r.pvalue_null)} (two-sided; Fleiss, Cohen and Everitt 1969).")
        title = name
    return AnalysisView(r.id, r.kind, title, tuple(tables), tuple(sentences), tuple(dict.fromkeys(_agreement_notes(r))),
                        tuple(r.warnings) + tuple(f"{p.a} vs {p.b}: {w}" for p in r.pairs for w in p.warnings))


def _pairs_tables(r: AgreementRecord, where: str, name: str, key: str) -> list[Table]:
    """Light's kappa: the matrix of pairwise values and the table of every pair."""
    names = r.annotators
    cell = {(p.a, p.b): p for p in r.pairs}
    mcols = (Column(Text(""), "l"), *(Column(Text(a)) for a in names[1:]))
    mrows = []
    for i, a in enumerate(names[:-1]):
        row: list[Cell] = [Text(a)]
        for j, b in enumerate(names[1:], start=1):
            p = cell.get((a, b))
            row.append(Text("") if j <= i or p is None else
                       join(Num(p.value, DEC), " (", _band(p.interpretation), ")"))
        mrows.append(tuple(row))
    matrix = Table(("agreement", r.corpus, key, "matrix"),
                   f"Agreement on {where}: {name} for every pair of the {len(names)} annotators, with its "
                   "Landis and Koch band.", mcols, tuple(mrows), (BANDS_NOTE,))
    pairs = Table(("agreement", r.corpus, key), f"Agreement on {where}: {name} of every pair of "
                  "annotators, on the items both rated.", tuple(_coef_columns(r, "Pair")),
                  tuple(_coef_row(r, p, Pair(p.a, p.b)) for p in r.pairs),
                  (f"Mean of the pairwise values (Light 1971): {plain(r.value)} ({_band(r.interpretation)}).",))
    return [matrix, pairs]


def _coefficient_sentence(r: AgreementRecord, name: str) -> str:
    if r.value is None:
        return f"{name}: the coefficient could not be computed ({'; '.join(r.warnings) or 'see warnings'})."
    ci = (f", {pct(r.ci_level)} CI {plain(r.ci_low)} to {plain(r.ci_high)}" if r.ci_low is not None else "")
    pa = (f"; P(A) = {plain(r.observed_agreement)}, P(E) = {plain(r.expected_agreement)}"
          if r.observed_agreement is not None and r.measure != "krippendorff_alpha" else "")
    return f"{name} ({', '.join(r.annotators)}) is {plain(r.value)}, {_band(r.interpretation)} agreement{ci}{pa}."


VIEWS: dict[str, Callable[..., AnalysisView]] = {  # kind -> the view of that kind's record and the Labels
    "classification": classification_view,
    "mcnemar": mcnemar_view,
    "cochran_q": cochran_view,
    "agreement": agreement_view,
}
