"""Views of classification and agreement analyses: paper-style tables, sentences and notes.

One function per result kind (``classification``, ``mcnemar``, ``cochran_q``, ``agreement``), each
``view(result, fmt, labels) -> AnalysisView``; :func:`sigreport.render.context.sections` merges
:data:`VIEWS` into its own. Formatting only: every number goes through :class:`Fmt`; every agreement
value is shown with its Landis and Koch band in words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sigreport.render.context import (CORRECTION_NAMES, AnalysisView, Column, Fmt, Labels, Table, label, slug)

DEC = 3  # decimals of metrics and agreement coefficients in tables

MEASURE_NAMES = {
    "cohen_kappa": "Cohen's kappa",
    "weighted_kappa_linear": "Weighted kappa (linear weights)",
    "weighted_kappa_quadratic": "Weighted kappa (quadratic weights)",
    "fleiss_kappa": "Fleiss' kappa",
    "krippendorff_alpha": "Krippendorff's alpha",
}
BANDS_NOTE = ("Landis and Koch (1977) bands: below 0 poor, 0.00\u20130.20 slight, 0.21\u20130.40 fair, "
              "0.41\u20130.60 moderate, 0.61\u20130.80 substantial, 0.81\u20131.00 almost perfect.")
BANDS_NOTE_TEX = ("Landis and Koch (1977) bands: below 0 poor, 0.00--0.20 slight, 0.21--0.40 fair, "
                  "0.41--0.60 moderate, 0.61--0.80 substantial, 0.81--1.00 almost perfect.")


def _where(r: Any, lab: Labels) -> str:
    return lab.corpus(r.corpus)


def _pct(level: float) -> str:
    return f"{level:.0%}"


def _ci(f: Fmt, lo: float | None, hi: float | None, dec: int = DEC) -> str:
    if lo is None or hi is None:
        return f.num(None)
    return f.join("[", f.num(lo, dec), ", ", f.num(hi, dec), "]")


def _with_ci(f: Fmt, v: Any, dec: int = DEC) -> str:
    """'0.860 [0.829, 0.889]' from a metric entry (value, ci_low, ci_high)."""
    if v is None or v.value is None:
        return f.num(None)
    if v.ci_low is None or v.ci_high is None:
        return f.num(v.value, dec)
    return f.join(f.num(v.value, dec), " ", _ci(f, v.ci_low, v.ci_high, dec))


def _plain_num(x: float | None, dec: int = DEC) -> str:
    return "not computable" if x is None else f"{x:.{dec}f}"


def _yes_no(f: Fmt, b: bool | None) -> str:
    return "yes" if b else ("no" if b is not None else f.num(None))


# -------------------------------------------------------------------------------------------- classification


def _headline(r: Any) -> list[tuple[str, str]]:
    """(metric name, column header) of the summary table."""
    fn = r.f_name
    f_head = fn.upper()[0] + fn[1:]
    if r.positive_label is not None:
        return [("precision", "Precision"), ("recall", "Recall"), ("specificity", "Specificity"), (fn, f_head),
                (f"{fn}_macro", f"Macro {f_head}")]
    return [("precision_macro", "Macro precision"), ("recall_macro", "Macro recall"),
            ("specificity_macro", "Macro specificity"), (f"{fn}_macro", f"Macro {f_head}"),
            (f"{fn}_weighted", f"Weighted {f_head}")]


def _value_ci_text(v: Any, level: str) -> str:
    if v is None or v.value is None:
        return "not computable"
    if v.ci_low is None or v.ci_high is None:
        return _plain_num(v.value)
    return f"{_plain_num(v.value)} ({level} CI {_plain_num(v.ci_low)} to {_plain_num(v.ci_high)})"


def classification_view(r: Any, f: Fmt, lab: Labels) -> AnalysisView:
    where = _where(r, lab)
    level = _pct(r.ci_level)
    heads = _headline(r)
    fn = r.f_name
    f_head = fn.upper()[0] + fn[1:]
    pos = f" (positive class: {r.positive_label})" if r.positive_label is not None else ""
    cols = (Column("System", "l"), Column("n"), Column("Accuracy", "c"), *(Column(h, "c") for _, h in heads))
    rows = tuple((s.system, f.int(s.n), _with_ci(f, s.metrics.get("accuracy")),
                  *(_with_ci(f, s.metrics.get(name)) for name, _ in heads)) for s in r.systems)
    summary = Table(slug("classification", r.corpus, "metrics"),
                    f"Classification on {where}: accuracy and the main metrics of each system{pos}, with "
                    f"{level} bootstrap confidence intervals over the {r.n_items} items (B = {r.n_resamples}).",
                    label("classification", r.corpus, "metrics"), cols, rows)

    detail_cols = (Column("System", "l"), Column("Class", "l"), Column("Precision", "c"), Column("Recall", "c"),
                   Column("Specificity", "c"), Column(f_head, "c"), Column("Support"))
    detail_rows = []
    for s in r.systems:
        support = [sum(row) for row in s.confusion_matrix.matrix]
        names = [(lab_, f"_{lab_}", f.int(n)) for lab_, n in zip(r.labels, support)]
        names += [(f"{avg} average", f"_{avg}", f.int(s.n)) for avg in ("macro", "micro", "weighted")]
        for i, (shown, suffix, sup) in enumerate(names):
            detail_rows.append((s.system if i == 0 else "", shown,
                                *(_with_ci(f, s.metrics.get(base + suffix))
                                  for base in ("precision", "recall", "specificity", fn)), sup))
    detail = Table(slug("classification", r.corpus, "per-class"),
                   f"Classification on {where}: per-class (one-vs-rest) and averaged precision, recall, specificity "
                   f"and {f_head}, with {level} bootstrap confidence intervals.",
                   label("classification", r.corpus, "per-class"), detail_cols, tuple(detail_rows),
                   ("Support: gold items of the class. Macro: unweighted mean over the classes where the metric is "
                    "defined; micro: from the counts summed over classes (for single-label data micro precision = "
                    "micro recall = micro F = accuracy); weighted: mean weighted by gold support.",))

    tables = [summary, detail]
    for s in r.systems:
        cm = s.confusion_matrix
        corner = f.safe("Gold \u2193 / predicted \u2192", r"Gold $\downarrow$ / predicted $\rightarrow$")
        ccols = (Column(corner, "l"), *(Column(x) for x in cm.labels), Column("Total"))
        crows = [(lab_, *(f.int(v) for v in row), f.int(sum(row))) for lab_, row in zip(cm.labels, cm.matrix)]
        col_tot = [sum(row[j] for row in cm.matrix) for j in range(len(cm.labels))]
        crows.append(("Total", *(f.int(v) for v in col_tot), f.int(sum(col_tot))))
        tables.append(Table(slug("classification", r.corpus, "confusion", s.system),
                            f"Confusion matrix of {s.system} on {where}: rows are gold labels, columns predicted "
                            f"labels ({s.n} items; the diagonal holds correct predictions).",
                            label("classification", r.corpus, "confusion", s.system), ccols, tuple(crows),
                            bold_rows=()))
    sentences = []
    for s in r.systems:
        acc = s.metrics.get("accuracy")
        main = s.metrics.get(fn if r.positive_label is not None else f"{fn}_macro")
        what = f"{f_head} of '{r.positive_label}'" if r.positive_label is not None else f"macro {f_head}"
        sentences.append(f"{s.system}: accuracy {_value_ci_text(acc, level)}, {what} {_value_ci_text(main, level)}.")
    notes = (f"Confidence intervals: {level} percentile bootstrap over items (B = {r.n_resamples}, seeded); one set of "
             "resampled items serves every metric of a system.",
             f"F-measure: F_beta = (1 + beta^2) P R / (beta^2 P + R) with beta = {r.beta:g}.")
    return AnalysisView(r.id, r.kind, "Classification metrics", tuple(tables), tuple(sentences), notes,
                        tuple(r.warnings))


# -------------------------------------------------------------------------------------------- McNemar


def _test_name(f: Fmt, p: Any) -> str:
    if p.exact:
        return "exact"
    chi = f.math("\u03c7<sup>2</sup>", r"\chi^2")
    return f.join(chi, ", cc") if p.continuity_correction else chi


def mcnemar_view(r: Any, f: Fmt, lab: Labels) -> AnalysisView:
    where = _where(r, lab)
    corr = CORRECTION_NAMES.get(r.correction, r.correction)
    cols = (Column("a vs b", "l"), Column("Acc. a"), Column("Acc. b"),
            Column(f.math("n<sub>11</sub>", "n_{11}")), Column(f.math("n<sub>10</sub>", "n_{10}")),
            Column(f.math("n<sub>01</sub>", "n_{01}")), Column(f.math("n<sub>00</sub>", "n_{00}")),
            Column("Test", "l"), Column("Statistic"), Column("df"), Column("p"),
            Column(f.math("p<sub>adj</sub>", r"p_{\text{adj}}")), Column("Significant", "c"))
    rows = []
    bold = []
    for i, p in enumerate(r.pairs):
        rows.append((f"{p.a} vs {p.b}", f.num(p.accuracy_a, DEC), f.num(p.accuracy_b, DEC), f.int(p.n11),
                     f.int(p.n10), f.int(p.n01), f.int(p.n00), _test_name(f, p),
                     f.int(int(p.statistic)) if p.exact and p.statistic is not None else f.stat(p.statistic),
                     f.df(p.df),
                     f.p(p.pvalue), f.p(p.pvalue_adjusted), _yes_no(f, p.significant)))
        if p.significant:
            bold.append(i)
    which = "every system against the baseline" if r.comparisons == "vs_baseline" else "every pair of systems"
    fam = (f"no multiple-comparison correction ({r.family_size} comparisons)" if r.correction == "none" else
           f"{corr} correction over the {r.family_size} comparison{'s' if r.family_size != 1 else ''} of this corpus")
    post = " (post-hoc tests after Cochran's Q)" if r.after == "cochran_q" else ""
    caption = (f"Classification on {where}: McNemar's test on per-item correctness for {which}{post}; {fam}; "
               f"\u03b1 = {r.alpha:g}.")
    rule = {"auto": "the exact binomial test when n01 + n10 < 25, otherwise the chi-square test with continuity "
                    "correction (classification.mcnemar: auto)",
            "exact": "the exact binomial test for every pair (classification.mcnemar: exact)",
            "chi2": "the chi-square test with continuity correction for every pair (classification.mcnemar: chi2)"}
    notes = ("2x2 table of each pair: n11 both right, n10 a right and b wrong, n01 a wrong and b right, n00 both "
             "wrong. Only the discordant n01 and n10 enter the test. Acc.: accuracy; cc: with continuity correction; "
             "exact: exact binomial test.",
             f"Variant: {rule.get(r.method, r.method)}. Chi-square: (|n01 \u2212 n10| \u2212 1)^2 / (n01 + n10) on "
             "1 df; exact: two-sided binomial test of n01 in n01 + n10 trials with p = 1/2, whose statistic is "
             f"min(n01, n10). p_adj: {corr}-adjusted.")
    table = Table(slug("classification", r.corpus, "mcnemar"), caption, label("classification", r.corpus, "mcnemar"),
                  cols, tuple(rows), notes, tuple(bold))
    sentences = [_mcnemar_sentence(r, p, f) for p in r.pairs]
    view_notes = []
    if r.after == "cochran_q":
        if r.omnibus_significant is None:
            view_notes.append("Cochran's Q could not be computed; these pairwise tests stand on their own.")
        else:
            view_notes.append("Cochran's Q was " + ("significant" if r.omnibus_significant else
                                                    "not significant (read these post-hoc tests with care)") +
                              f" at \u03b1 = {r.alpha:g}.")
    warnings = list(r.warnings) + [f"{p.a} vs {p.b}: {w}" for p in r.pairs for w in p.warnings]
    return AnalysisView(r.id, r.kind, "Pairwise comparisons: McNemar's test", (table,), tuple(sentences),
                        tuple(view_notes), tuple(warnings))


def _mcnemar_sentence(r: Any, p: Any, f: Fmt) -> str:
    if p.pvalue is None:
        return f"{p.a} vs {p.b}: not computable ({'; '.join(p.warnings) or 'see warnings'})."
    if p.exact:
        stat = f"exact binomial test, n01 = {p.n01}, n10 = {p.n10}"
    else:
        stat = (f"chi-square(1) = {p.statistic:.2f}" + (" with continuity correction" if p.continuity_correction
                                                         else "") + f", n01 = {p.n01}, n10 = {p.n10}")
    corr = CORRECTION_NAMES.get(r.correction, r.correction)
    p_part = f.p_text(p.pvalue)
    if r.correction != "none" and p.pvalue_adjusted is not None:
        p_part += f", {corr}-adjusted {f.p_text(p.pvalue_adjusted)}"
    after = f" after {corr}" if r.correction != "none" else ""
    if p.n10 > p.n01:
        better = f"{p.a} is right on {p.n10} items where {p.b} is wrong, {p.b} on {p.n01} where {p.a} is wrong"
        rel = ">"
    elif p.n01 > p.n10:
        better = f"{p.b} is right on {p.n01} items where {p.a} is wrong, {p.a} on {p.n10} where {p.b} is wrong"
        rel = "<"
    else:
        better = f"each is right on {p.n01} items where the other is wrong"
        rel = "="
    if p.significant:
        return (f"{p.a} {rel} {p.b} in accuracy: {better}; {stat}, {p_part}, significant at \u03b1 = {r.alpha:g}"
                f"{after}.")
    return f"{p.a} vs {p.b}: {better}; {stat}, {p_part}, not significant at \u03b1 = {r.alpha:g}{after}."


# -------------------------------------------------------------------------------------------- Cochran's Q


def cochran_view(r: Any, f: Fmt, lab: Labels) -> AnalysisView:
    where = _where(r, lab)
    cols = (Column("Systems"), Column("Items"), Column("Q"), Column("df"), Column("p"), Column("Significant", "c"))
    rows = ((f.int(r.k), f.int(r.n), f.stat(r.statistic), f.df(r.df), f.p(r.pvalue), _yes_no(f, r.significant)),)
    acc = ", ".join(f"{s} {_plain_num(a)}" for s, a in r.accuracy.items())
    table = Table(slug("classification", r.corpus, "cochran-q"),
                  f"Classification on {where}: Cochran's Q test that all {r.k} systems have the same accuracy "
                  f"(chi-square on k - 1 df; \u03b1 = {r.alpha:g}).",
                  label("classification", r.corpus, "cochran-q"), cols, rows,
                  (f"Accuracy: {acc}. Q = (k - 1)(k sum C_j^2 - N^2) / (k N - sum R_i^2) over per-item correctness "
                   "(Cochran 1950); it equals the tie-corrected Friedman statistic on 0/1 data.",))
    if r.statistic is None:
        sentence = f"Cochran's Q: not computable ({'; '.join(r.warnings)})."
    else:
        verdict = "significant" if r.significant else "not significant"
        sentence = (f"Cochran's Q({f.df(r.df)}) = {r.statistic:.2f}, {f.p_text(r.pvalue)}: the accuracies of the "
                    f"{r.k} systems differ {verdict}ly" if r.significant else
                    f"Cochran's Q({f.df(r.df)}) = {r.statistic:.2f}, {f.p_text(r.pvalue)}: no significant difference "
                    f"between the accuracies of the {r.k} systems")
        sentence += f" at \u03b1 = {r.alpha:g} ({verdict}); McNemar's tests below are the pairwise follow-up."
    return AnalysisView(r.id, r.kind, "Omnibus test: Cochran's Q", (table,), (sentence,), (), tuple(r.warnings))


# -------------------------------------------------------------------------------------------- agreement


def _symbol(f: Fmt, measure: str) -> str:
    return {
        "cohen_kappa": f.math("\u03ba", r"\kappa"),
        "weighted_kappa_linear": f.math("\u03ba<sub>w</sub>", r"\kappa_w"),
        "weighted_kappa_quadratic": f.math("\u03ba<sub>w</sub>", r"\kappa_w"),
        "fleiss_kappa": f.math("\u03ba", r"\kappa"),
        "krippendorff_alpha": f.math("\u03b1", r"\alpha"),
    }[measure]


def _band(x: str | None) -> str:
    return x if x is not None else "\u2014"


def _coef_columns(f: Fmt, r: Any, first: str) -> list[Column]:
    level = _pct(r.ci_level)
    alpha = r.measure == "krippendorff_alpha"
    cols = [Column(first, "l"), Column("n")]
    if alpha:
        if r.observed_agreement is not None:
            cols += [Column(f.math("D<sub>o</sub>", "D_o")), Column(f.math("D<sub>e</sub>", "D_e"))]
    else:
        cols += [Column(f.math("P(A)", "P(A)")), Column(f.math("P(E)", "P(E)"))]
    cols += [Column(_symbol(f, r.measure)), Column("SE")]
    if r.measure == "fleiss_kappa":
        cols.append(Column(f.math("SE<sub>0</sub>", r"SE_0")))
    cols += [Column(f"{level} CI" + (" (bootstrap)" if alpha else " (SE)"), "c")]
    if not alpha:
        cols.append(Column(f"{level} CI (bootstrap)", "c"))
    cols.append(Column("Landis & Koch", "l"))
    return cols


def _coef_row(f: Fmt, r: Any, x: Any, first: str) -> tuple[str, ...]:
    """One row of a coefficient table from ``x`` (an AgreementAnalysis or AgreementPair)."""
    alpha = r.measure == "krippendorff_alpha"
    if alpha:
        row = [first, f.int(x.n_items)]
        if r.observed_agreement is not None:
            row += [f.num(1 - x.observed_agreement, DEC),
                    f.num(None if x.expected_agreement is None else 1 - x.expected_agreement, DEC)]
    else:
        row = [first, f.int(x.n_items), f.num(x.observed_agreement, DEC), f.num(x.expected_agreement, DEC)]
    row += [f.num(x.value, DEC), f.num(x.se, DEC)]
    if r.measure == "fleiss_kappa":
        row.append(f.num(getattr(x, "se_null", None), DEC))
    row.append(_ci(f, x.ci_low, x.ci_high))
    if not alpha:
        row.append(_ci(f, x.bootstrap_ci_low, x.bootstrap_ci_high))
    row.append(_band(x.interpretation))
    return tuple(row)


def _agreement_notes(r: Any) -> tuple[str, ...]:
    level = _pct(r.ci_level)
    notes = []
    if r.measure in ("cohen_kappa", "weighted_kappa_linear", "weighted_kappa_quadratic"):
        notes.append(f"SE: large-sample standard error under the alternative (Fleiss, Cohen and Everitt 1969), not "
                     f"the one under the null; the {level} CI (SE) is kappa \u00b1 z SE, clipped to [\u22121, 1]. "
                     f"Bootstrap CI: percentile, items resampled (B = {r.n_resamples}).")
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


def _matrix_table(f: Fmt, r: Any, matrix: Any, row_name: str, col_name: str, key: tuple[str | None, ...],
                  caption: str) -> Table:
    """An agreement matrix with totals; the diagonal shows (in parentheses) the count expected by chance."""
    k = len(r.labels)
    n = sum(sum(row) for row in matrix)
    rt = [sum(row) for row in matrix]
    ct = [sum(matrix[i][j] for i in range(k)) for j in range(k)]
    corner = f.join(row_name, f.safe(" \u2193 / ", r" $\downarrow$ / "), col_name, f.safe(" \u2192", r" $\rightarrow$"))
    cols = (Column(corner, "l"), *(Column(x) for x in r.labels), Column("Total"))
    rows = []
    for i, lab_ in enumerate(r.labels):
        cells = []
        for j in range(k):
            if i == j and n:
                cells.append(f.join(f.int(matrix[i][j]), " (", f.num(rt[i] * ct[j] / n, 1), ")"))
            else:
                cells.append(f.int(matrix[i][j]))
        rows.append((lab_, *cells, f.int(rt[i])))
    rows.append(("Total", *(f.int(c) for c in ct), f.int(n)))
    return Table(slug(*key), caption, label(*key), cols, tuple(rows),
                 ("In parentheses on the diagonal: the count expected by chance, row total \u00d7 column total / n "
                  "(the source's Tables 6 and 8).",))


def _shows_matrix(r: Any, lab: Labels) -> bool:
    """Two annotators: show the agreement matrix once, with the first kappa measure of the spec."""
    from sigreport.analyses.labels import WEIGHTS, default_measures
    from sigreport.spec import AgreementSpec

    aspec = lab.spec.agreement or AgreementSpec()
    kappas = [m for m in default_measures(aspec, 2) if m in WEIGHTS]
    return bool(kappas) and kappas[0] == r.measure


def agreement_view(r: Any, f: Fmt, lab: Labels) -> AnalysisView:
    where = _where(r, lab)
    name = MEASURE_NAMES.get(r.measure, r.measure)
    key = r.id.rsplit("/", 1)[-1]
    tables: list[Table] = []
    sentences: list[str] = []
    notes = list(_agreement_notes(r))
    if r.source == "systems_vs_gold":
        cols = _coef_columns(f, r, "System")
        rows = tuple(_coef_row(f, r, p, p.a) for p in r.pairs)
        tables.append(Table(slug("agreement", r.corpus, key), f"Agreement of each system with the gold labels on "
                            f"{where}: {name} ({r.n_items} items).", label("agreement", r.corpus, key), tuple(cols),
                            rows, (BANDS_NOTE_TEX if f.target == "latex" else BANDS_NOTE,)))
        sentences += [f"{p.a} vs gold: {name} = {_plain_num(p.value)} ({_band(p.interpretation)})." for p in r.pairs]
        title = f"{name}: each system against the gold labels"
    elif r.value_kind == "mean_of_pairs":
        names = r.annotators
        cell = {(p.a, p.b): p for p in r.pairs}
        mcols = (Column("", "l"), *(Column(a) for a in names[1:]))
        mrows = []
        for i, a in enumerate(names[:-1]):
            row = [a]
            for j, b in enumerate(names[1:], start=1):
                p = cell.get((a, b))
                if j <= i or p is None:
                    row.append("")
                else:
                    row.append(f.join(f.num(p.value, DEC), " (", _band(p.interpretation), ")"))
            mrows.append(tuple(row))
        tables.append(Table(slug("agreement", r.corpus, key, "matrix"),
                            f"Agreement on {where}: {name} for every pair of the {len(names)} annotators, with its "
                            "Landis and Koch band.", label("agreement", r.corpus, key, "matrix"), mcols,
                            tuple(mrows), (BANDS_NOTE_TEX if f.target == "latex" else BANDS_NOTE,)))
        cols = _coef_columns(f, r, "Pair")
        rows = tuple(_coef_row(f, r, p, f"{p.a} vs {p.b}") for p in r.pairs)
        tables.append(Table(slug("agreement", r.corpus, key), f"Agreement on {where}: {name} of every pair of "
                            "annotators, on the items both rated.", label("agreement", r.corpus, key),
                            tuple(cols), rows,
                            (f"Mean of the pairwise values (Light 1971): {_plain_num(r.value)} "
                             f"({_band(r.interpretation)}).",)))
        sentences.append(f"{name}, mean over the {len(r.pairs)} pairs of annotators (Light's kappa): "
                         f"{_plain_num(r.value)} ({_band(r.interpretation)}); pairwise from "
                         f"{_plain_num(min((p.value for p in r.pairs if p.value is not None), default=None))} to "
                         f"{_plain_num(max((p.value for p in r.pairs if p.value is not None), default=None))}.")
        title = f"{name}: pairs of annotators"
    else:
        cols = _coef_columns(f, r, "Annotators")
        rows = (_coef_row(f, r, r, ", ".join(r.annotators)),)
        tables.append(Table(slug("agreement", r.corpus, key), f"Agreement on {where}: {name} of "
                            f"{len(r.annotators)} annotators ({r.level} labels: {', '.join(r.labels)}).",
                            label("agreement", r.corpus, key), tuple(cols), rows,
                            (BANDS_NOTE_TEX if f.target == "latex" else BANDS_NOTE,)))
        if r.matrix is not None and len(r.annotators) == 2 and _shows_matrix(r, lab):
            a, b = r.annotators
            tables.append(_matrix_table(f, r, r.matrix, a, b, ("agreement", r.corpus, "matrix"),
                                        f"Agreement matrix of annotators {a} (rows) and {b} (columns) on {where}: "
                                        "items per pair of labels."))
        if r.value is None:
            sentences.append(f"{name}: not computable ({'; '.join(r.warnings) or 'see warnings'}).")
        else:
            ci = (f", {_pct(r.ci_level)} CI {_plain_num(r.ci_low)} to {_plain_num(r.ci_high)}"
                  if r.ci_low is not None else "")
            pa = (f"; P(A) = {_plain_num(r.observed_agreement)}, P(E) = {_plain_num(r.expected_agreement)}"
                  if r.observed_agreement is not None and r.measure != "krippendorff_alpha" else "")
            sentences.append(f"{name} ({', '.join(r.annotators)}): {_plain_num(r.value)}, "
                             f"{_band(r.interpretation)} agreement{ci}{pa}.")
        title = name
    return AnalysisView(r.id, r.kind, title, tuple(tables), tuple(sentences), tuple(dict.fromkeys(notes)),
                        tuple(r.warnings) + tuple(f"{p.a} vs {p.b}: {w}" for p in r.pairs for w in p.warnings))


SECTION_NAMES = {"classification": "Classification", "agreement": "Agreement"}  # display names of the sections


def settings_rows(spec: Any) -> list[tuple[str, str]]:
    """The classification and agreement choices for the report's settings table (spec or defaults)."""
    from sigreport.analyses.labels import AGREEMENT_CI_LEVEL
    from sigreport.spec import AgreementSpec, ClassificationSpec

    rows: list[tuple[str, str]] = []
    if spec.data.predictions is not None:
        c = spec.classification or ClassificationSpec()
        labels = (", ".join(c.labels) + " (declared)") if c.labels else "in order of first appearance"
        pos = f"; positive class {c.positive_label}" if c.positive_label is not None else ""
        rows.append(("Classification metrics", f"labels {labels}{pos}; F-beta with beta = {c.beta:g}; "
                     f"{_pct(c.ci_level)} percentile bootstrap intervals over items (B = {c.resamples})"))
        rows.append(("Tested as metrics", ", ".join(c.test_metrics) + " (per-item statistics; the pairwise and "
                     "omnibus tests above apply)" if c.test_metrics else "none"))
        mc = {"auto": "auto: exact binomial test when n01 + n10 < 25, otherwise chi-square with continuity "
                      "correction",
              "exact": "exact binomial test", "chi2": "chi-square with continuity correction"}[c.mcnemar]
        omni = "; after Cochran's Q with three or more systems" if spec.tests.omnibus != "none" else ""
        rows.append(("McNemar's test", f"{mc}; on per-item correctness, the correction above over the pairs of each "
                     f"corpus{omni}"))
    if spec.data.annotations is not None or (spec.agreement is not None and spec.agreement.systems_vs_gold):
        a = spec.agreement or AgreementSpec()
        level = a.level + (f" ({' < '.join(a.order)})" if a.order else "")
        measures = ", ".join(MEASURE_NAMES[m] for m in a.measures) if a.measures else (
            "default: Cohen's kappa" + (" and linear and quadratic weighted kappa" if a.level != "nominal" else "")
            + "; with three or more annotators also Fleiss' kappa and Krippendorff's alpha")
        rows.append(("Agreement", f"{level} labels; {measures}"
                     + ("; each system against gold" if a.systems_vs_gold else "")))
        rows.append(("Agreement intervals", f"{_pct(AGREEMENT_CI_LEVEL)}: kappa ± z SE with the SE under the "
                     f"alternative, and percentile bootstrap over items (B = {a.resamples}); Landis and Koch bands"))
    return rows


VIEWS: dict[str, Callable[[Any, Fmt, Labels], AnalysisView]] = {
    "classification": classification_view,
    "mcnemar": mcnemar_view,
    "cochran_q": cochran_view,
    "agreement": agreement_view,
}
