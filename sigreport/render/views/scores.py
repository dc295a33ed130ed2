"""Views of score analyses: descriptives, pairwise and cross-validation tests, omnibus tests, post-hoc.

One function per kind, ``view(record, labels) -> AnalysisView``; cells hold values (see
:mod:`sigreport.render.model`), sentences and notes are plain text. Interval labels come from the
level each record states, never from a default.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from sigreport.render.model import (CI, AnalysisView, Cell, Column, Rows, Count, Decision, Df, Int, Num, P, Pair,
                                    Stat, Sym, Table, Text, join)
from sigreport.render.latex import LONG_TABLE_ROWS
from sigreport.render.views import paper
from sigreport.results.methods import combination
from sigreport.render.views.common import (ALTERNATIVE_TEXT, correction_name, EVERY_PAIR_ROWS, LARGE_FAMILY,
                                           PAIR_COLUMN, PAIRWISE_NAMES, sphericity_name, Labels, a_better, declared,
                                           df_text, effect_cell, extra_cell, head_cell,
                                           family_text, p_text, pct, plain, pvalue_matrix,
                                           system_sentences, test_name, unbroken, value_ci, why_this_test,
                                           with_html_matrix)
from sigreport.results.methods import proportion
from sigreport.results.records import (BayesianPair, BayesianRecord, DescriptivesRecord, EffectSize, FriedmanRecord,
                                       PairRow, PairwiseRecord, PosthocRecord, ReplicabilityRecord, RMAnovaRecord,
                                       RunsRecord)


def descriptives_view(r: DescriptivesRecord, lab: Labels) -> AnalysisView:
    dec = lab.decimals(r.metric)
    shape = proportion_interval(r.ci_method)
    of = "of the mean" if shape is None else "of the proportion"
    cols = (Column(Text("System"), "l"), Column(Sym("n")), Column(Text("Mean")), Column(Text("SD")),
            Column(Text("Median")), Column(Text(f"{unbroken(pct(r.ci_level) + ' CI')} {of}"), "c"))
    rows = tuple((Text(s.system), Int(s.n), Num(s.mean, dec), Num(s.sd, dec), Num(s.median, dec),
                  CI(s.ci_low, s.ci_high, r.ci_level, dec, unbounded=True)) for s in r.systems)
    caption = f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}: per-system descriptives ({r.n_items} items)."
    warnings = list(r.warnings) + [f"{s.system}: {w}" for s in r.systems for w in s.warnings]
    notes: tuple[str, ...] = () if shape is None else (
        f"Every score is 0 or 1: the mean is a proportion and its interval the {shape.display} "
        f"({shape.citation}).",)
    designs = [(s.clusters or s.strata) for s in r.systems]
    if any(d is not None for d in designs):  # clustered items or a macro average: its design effect per system
        cols += (Column(Text("Design effect")), Column(Text("Effective n")))
        rows = tuple((*row, Num(d.design_effect if d else None, 2), Num(d.effective_n if d else None, 0))
                     for row, d in zip(rows, designs))
        notes += (design_note(r),)
    tables = (Table((r.metric, r.corpus, "descriptives"), caption, cols, rows, notes=notes),) + answers_tables(r, lab)
    return AnalysisView(r.id, r.kind, "Descriptives", tables, warnings=tuple(warnings))


def answers_tables(r: DescriptivesRecord, lab: Labels) -> tuple[Table, ...]:
    """Several answers per question: each system's variance of the mean split into its between-question and
    within-question parts (Miller 2024, sec. 4), and what twice the answers, or infinitely many, would make of
    the standard error."""
    if not r.answers:
        return ()
    dec = lab.decimals(r.metric)
    cols = (Column(Text("System"), "l"), Column(Text("Questions")), Column(Text("Answers per question"), "c"),
            Column(Text(unbroken("Between-question variance"))), Column(Text(unbroken("Within-question variance"))),
            Column(Text("SE")), Column(Text(unbroken("SE, twice the answers"))),
            Column(Text(unbroken("SE, unlimited answers"))))
    rows = tuple((Text(a.system), Int(a.questions),
                  Text(f"{a.answers_min}" if a.answers_min == a.answers_max else f"{a.answers_min}\u2013{a.answers_max}"),
                  Num(a.sigma_b2, dec + 2), Num(a.sigma_w2, dec + 2), Num(a.se, dec), Num(a.se_double_answers, dec),
                  Num(a.se_infinite_answers, dec)) for a in r.answers)
    caption = (f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}: between- and within-question variance of the "
               "mean over questions.")
    notes = ("Each question's score is the mean of its answers. Var(mean) = (B + W / K) / n for n questions of K "
             "answers (Miller 2024, sec. 4): B is the variance between questions, W the mean variance of one "
             "question's answers. More answers per question shrink only "
             "the second part; \"unlimited answers\" is the floor they approach.",)
    return (Table((r.metric, r.corpus, "answers"), caption, cols, rows, notes),)


def proportion_interval(ci_method: str | None) -> proportion.ProportionInterval | None:
    """The declared proportion interval a descriptives record names, or None (the t interval, the bootstrap)."""
    return proportion.interval(ci_method) if ci_method in proportion.NAMES else None


def design_note(r: DescriptivesRecord) -> str:
    """The note under the descriptives of clustered items or of a macro average over strata."""
    clusters = next((s.clusters for s in r.systems if s.clusters is not None), None)
    if clusters is not None:
        how = ("the proportion interval on the effective n" if proportion_interval(r.ci_method) is not None else
               f"cluster-robust (CR1) intervals, t on G \u2212 1 = {clusters.G - 1} df")
        return (f"{r.n_items} items in G = {clusters.G} clusters: {how}; design effect = (cluster-robust SE / independent-items SE)\u00b2, "
                "effective n = n / design effect.")
    strata = next(s.strata for s in r.systems if s.strata is not None)
    return (f"Mean: the macro average over S = {strata.S} strata (the mean of the per-stratum means), its interval "
            "from the stratified standard error with Welch-Satterthwaite df; SD and median of the items; design "
            "effect = (stratified SE / independent-items SE)\u00b2, effective n = n / design effect.")


def interval_level(r: PairwiseRecord) -> float:
    """The level of a family's intervals: the record's, the one the spec asked for (tests.ci_level, else
    1 - alpha). A discrete interval's coverage can exceed it: :func:`achieved_note` says by how much."""
    return float(r.ci_level)


def achieved_note(r: PairwiseRecord) -> list[str]:
    """Where an order-statistic interval (sign test, Wilcoxon's Hodges-Lehmann) reaches more than the nominal
    level, the levels it reaches (results.json: ``ci_level_achieved`` of each pair)."""
    got = sorted({round(v, 6) for p in r.pairs if (v := p.ci.coverage) is not None})
    if not got:
        return []
    shown = ", ".join(pct(v) for v in got[:4]) + (", ..." if len(got) > 4 else "")
    return [f"The intervals are at the nominal {pct(r.ci_level)}; being order statistics of a discrete law, they "
            f"reach {shown} coverage (ci_level_achieved in results.json)."]


def _pairwise_columns(r: PairwiseRecord, level: float) -> list[Column]:
    d = declared(r)
    cols = [PAIR_COLUMN, Column(Sym("n")), Column(head_cell(d.estimate_head)),
            Column(Text(unbroken(f"{pct(level)} CI")), "c"), Column(head_cell(d.statistic_head))]
    if has_df_column(r):
        cols.append(Column(Text("df")))
    cols += [Column(Sym("crit", f"{r.alpha:g}")), Column(Sym("p")), Column(Sym("p_adj")), Column(Text("Effect")),
             Column(Text("Significant"), "c")]
    cols += [Column(head_cell(c.head)) for c in d.extra_columns]
    return cols


def has_df_column(r: PairwiseRecord) -> bool:
    """A df column when the test has degrees of freedom and some pair has them."""
    return declared(r).has_df and any(p.df is not None for p in r.pairs)


def _pairwise_row(r: PairwiseRecord, p: PairRow, level: float, dec: int, has_df: bool) -> tuple[Cell, ...]:
    d = declared(r)
    stat = Count if d.count_statistic else Stat
    row: list[Cell] = [Pair(p.a, p.b), Int(p.n), Num(p.estimate, dec),
                       CI(p.ci_low, p.ci_high, level, dec, unbounded=True), stat(p.statistic)]
    if has_df:
        row.append(Df(p.df))
    crit = stat if d.critical_count == "always" or (d.critical_count == "when_exact" and p.extra.get("exact")) \
        else Stat  # else a z
    row += [crit(p.critical_value), P(p.pvalue), P(p.pvalue_adjusted), effect_cell(p.effect_size),
            Decision(p.significant)]
    row += [extra_cell(c, p) for c in d.extra_columns]
    return tuple(row)


def large_family(r: PairwiseRecord) -> bool:
    """Whether ``r`` is a family of every pair of more than :data:`LARGE_FAMILY` systems."""
    return r.comparisons != "vs_baseline" and len({s for p in r.pairs for s in (p.a, p.b)}) > LARGE_FAMILY


def value_order(pairs: Sequence[PairRow], higher: bool | None) -> list[str]:
    """The family's systems best first by their mean estimate against the others (for a difference of means on
    the same items, the order of the means); ties and systems without estimates keep the family's order."""
    systems = list(dict.fromkeys(s for p in pairs for s in (p.a, p.b)))
    index = {s: i for i, s in enumerate(systems)}
    a = np.fromiter((index[p.a] for p in pairs), dtype=np.int64, count=len(pairs))
    b = np.fromiter((index[p.b] for p in pairs), dtype=np.int64, count=len(pairs))
    est = np.fromiter((p.estimate if p.estimate is not None else np.nan for p in pairs), dtype=float,
                      count=len(pairs))
    ok = np.isfinite(est)
    score, seen = np.zeros(len(systems)), np.zeros(len(systems))
    np.add.at(score, a[ok], est[ok])
    np.add.at(score, b[ok], -est[ok])
    np.add.at(seen, a[ok], 1)
    np.add.at(seen, b[ok], 1)
    mean = np.divide(score, seen, out=np.zeros_like(score), where=seen > 0)
    sign = -1.0 if higher is not False else 1.0
    return [systems[i] for i in np.argsort(sign * mean, kind="stable")]


def shown_pairs(pairs: Sequence[PairRow], higher: bool | None, baseline: str | None) -> list[int]:
    """Indices of the pairs a large family shows: neighbours in :func:`value_order`, best first, then the pairs
    with ``baseline`` (the spec's) not among them."""
    where = {frozenset((p.a, p.b)): i for i, p in enumerate(pairs)}
    order = value_order(pairs, higher)
    out = [where[frozenset(x)] for x in zip(order, order[1:]) if frozenset(x) in where]
    if baseline is not None:
        taken = set(out)
        out += [i for i, p in enumerate(pairs) if baseline in (p.a, p.b) and i not in taken]
    return out


def large_family_view(r: PairwiseRecord, lab: Labels, table: Table, words: paper.Wording, level: float,
                      has_df: bool, warnings: list[str]) -> AnalysisView:
    """A family of every pair of more than :data:`LARGE_FAMILY` systems (see there): the table of its shown
    pairs (every statistic; the paper's forms of them, no matrix), and the searchable table of every pair."""
    dec, higher = lab.decimals(r.metric), lab.higher(r.metric)
    chosen = shown_pairs(r.pairs, higher, lab.baseline)
    k = len({s for p in r.pairs for s in (p.a, p.b)})
    base = f" and the pairs with the baseline {lab.baseline}" if lab.baseline is not None else ""
    searchable = len(r.pairs) <= EVERY_PAIR_ROWS
    where = "in results.json and in the report's searchable table of all pairs" if searchable else \
        f"in results.json (more than {EVERY_PAIR_ROWS:,} pairs: no table of all pairs in the page)"
    which = (f"Shown: the pairs of neighbours in value order{base} ({len(chosen)} of the {len(r.pairs):,} pairs of "
             f"{k} systems); every pair is {where}, and the "
             "main table's Rank (UB) and the Conclusions' tiers read every pair's decision.")
    rows = Rows(len(chosen), lambda: [_pairwise_row(r, r.pairs[i], level, dec, has_df) for i in chosen])
    bold = tuple(n for n, i in enumerate(chosen) if r.pairs[i].significant)
    shown = dataclasses.replace(table, rows=rows, bold_rows=bold, notes=(which, *table.notes), compact=None)
    facts = paper.pairwise_facts([r.pairs[i] for i in chosen], higher)
    shown = dataclasses.replace(shown, forms=tuple(dataclasses.replace(f, notes=(which, *f.notes)) for f in
                                                   paper.forms(table.key, table.caption, facts, words,
                                                               all_pairs=False)))
    tables: tuple[Table, ...] = (shown,)
    if searchable:
        every = paper.pairs_table((*table.key, "all"), f"{table.caption} Every pair (type in the box to find a "
                                  "system; click a head to sort).", paper.pairwise_facts(r.pairs, higher), words)
        tables = (shown, dataclasses.replace(every, sortable=True, screen_only=True))
    method = declared(r).display
    sentences = [f"With {k} systems the pairs shown are the neighbours in value order{base}; the Conclusions give "
                 f"the tiers of all {len(r.pairs):,} decisions."] + [pair_sentence(r, r.pairs[i], lab) for i in chosen]
    title = {"posthoc": f"Post-hoc: {method}", "cv": f"Cross-validation: {method}"}.get(
        r.kind, f"Pairwise comparisons: {method}")
    return AnalysisView(r.id, r.kind, title, tables, tuple(sentences), why_this_test(r.selection),
                        tuple(warnings))


def pairwise_view(r: PairwiseRecord, lab: Labels) -> AnalysisView:
    dec = lab.decimals(r.metric)
    method = declared(r).display
    level = interval_level(r)
    has_df = has_df_column(r)
    rows = Rows(len(r.pairs), lambda: [_pairwise_row(r, p, level, dec, has_df) for p in r.pairs])
    bold = tuple(i for i, p in enumerate(r.pairs) if p.significant)
    alt = ALTERNATIVE_TEXT[r.alternative]
    which = "every system against the baseline" if r.comparisons == "vs_baseline" else "every pair of systems"
    over = {"corpora": f" across {r.pairs[0].n if r.pairs else 0} corpora (one score per corpus)",
            "folds": " over cross-validation folds"}.get(r.level, "")
    caption = (f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}: {method} for {which}{over} "
               f"({alt}; {family_text(r)}; \u03b1 = {r.alpha:g}).")
    notes = [f"Estimate and CI are of a \u2212 b; crit is the critical value of the test statistic at "
             f"\u03b1 = {r.alpha:g} for this alternative (reject when the statistic is beyond it); "
             f"p is the unadjusted p-value, p_adj is {correction_name(r.correction)}-adjusted."]
    notes += list(declared(r).notes) + achieved_note(r)
    if r.ci_method == proportion.NEWCOMBE_PAIRED:
        notes.append("Every score is 0 or 1: each CI of a \u2212 b is Newcombe's score interval for the difference "
                     "of paired proportions (Newcombe 1998, method 10); p is the test's.")
    if r.method == "wilcoxon":
        notes.append(wilcoxon_variant_note(r.pairs))
    warnings = list(r.warnings) + [f"{p.a} vs {p.b}: {w}" for p in r.pairs for w in p.warnings]
    key = r.id.rsplit("/", 1)[-1]
    higher = lab.higher(r.metric)
    better = lambda p: a_better(p, higher)  # type: ignore[arg-type]  # noqa: E731  (the family's PairRows)
    table = Table((r.metric, r.corpus, key), caption, tuple(_pairwise_columns(r, level)), rows, tuple(notes), bold,
                  compact=pvalue_matrix(r.pairs, (r.metric, r.corpus, key), caption, adjusted_text(r.correction),
                                        r.alpha, better))
    words = paper.pairwise_wording(r, level, dec, adjusted_text(r.correction), higher)
    if large_family(r):
        return large_family_view(r, lab, table, words, level, has_df, warnings)
    table = with_html_matrix(table, r.pairs, lab, adjusted_text(r.correction), r.alpha)
    table = dataclasses.replace(table, forms=paper.forms(table.key, caption, paper.pairwise_facts(r.pairs, higher),
                                                         words, r.comparisons != "vs_baseline"))
    sentences = (system_sentences(r.pairs, better, method) if table.html_form is not None
                 else [pair_sentence(r, p, lab) for p in r.pairs])
    if table.html_form is None:  # one sentence per pair: its equivalence too, when the metric has a margin
        sentences += [equivalence_sentence(p, r) for p in r.pairs if p.equivalence is not None]
    title = {"posthoc": f"Post-hoc: {method}", "cv": f"Cross-validation: {method}"}.get(
        r.kind, f"Pairwise comparisons: {method}")
    if table.html_form is None:
        per_pair = differences_tables(r, lab, key)
    elif lab.latex_pairwise == "rows" or sum(p.differences is not None for p in r.pairs) <= \
            LONG_TABLE_ROWS:  # one row per pair: not beside the matrix; in LaTeX when short or rows are asked for
        per_pair = tuple(dataclasses.replace(t, in_html=False) for t in differences_tables(r, lab, key))
    else:  # nothing would show it (LaTeX leaves out a long one: see render.latex.latex_tables); results.json has it
        per_pair = ()
    tables = (table,) + per_pair + equivalence_tables(r, lab, key)
    warnings += [f"{p.a} vs {p.b}: {w}" for p in r.pairs for w in _difference_warnings(p)]
    warnings += [f"{p.a} vs {p.b}: {w}" for p in r.pairs if p.equivalence is not None for w in p.equivalence.warnings]
    return AnalysisView(r.id, r.kind, title, tables, tuple(sentences), why_this_test(r.selection),
                        tuple(warnings))


def equivalence_sentence(p: PairRow, r: PairwiseRecord) -> str:
    """What a pair's equivalence and non-inferiority tests show, in words (adjusted p-values)."""
    e = p.equivalence
    assert e is not None
    adj = adjusted_text(r.correction)
    tost = f"TOST, {adj} {p_text(e.tost_pvalue_adjusted)}"
    ni = f"non-inferiority, {adj} {p_text(e.noninferiority_pvalue_adjusted)}"
    d = f"{e.margin:g}"
    if e.equivalent:
        return f"{p.a} and {p.b} are equivalent within \u00b1{d} ({tost})."
    if e.noninferior:
        return (f"{e.noninferiority_of} is not worse than {e.noninferiority_against} by more than {d} ({ni}); "
                f"equivalence within \u00b1{d} is not shown ({tost}).")
    if e.equivalent is None and e.noninferior is None:
        return f"{p.a} vs {p.b}: no equivalence test (see the warnings)."
    return (f"Neither equivalence of {p.a} and {p.b} within \u00b1{d} ({tost}) nor non-inferiority of "
            f"{e.noninferiority_of} against {e.noninferiority_against} ({ni}) is shown.")


def equivalence_tables(r: PairwiseRecord, lab: Labels, key: str) -> tuple[Table, ...]:
    """The pairs' equivalence (TOST) and non-inferiority tests, when the metric has a margin (one table)."""
    rows_of = [p for p in r.pairs if p.equivalence is not None]
    if not rows_of:
        return ()
    dec = lab.decimals(r.metric)
    first = rows_of[0].equivalence
    assert first is not None
    level = first.ci_level
    adj = adjusted_text(r.correction)
    cols = (PAIR_COLUMN, Column(Sym("mean_diff")), Column(Text(f"{level:.0%} CI")),
            Column(join("TOST ", Sym("p_adj"))),
            Column(Text("Equivalent"), "c"), Column(Text("NI test"), "l"), Column(join("NI ", Sym("p_adj"))),
            Column(Text("Non-inferior"), "c"))
    rows = []
    for p in rows_of:
        e = p.equivalence
        assert e is not None
        rows.append((Pair(p.a, p.b), Num(e.estimate, dec), CI(e.ci_low, e.ci_high, e.ci_level, dec),
                     P(e.tost_pvalue_adjusted), Decision(e.equivalent),
                     Text(f"{e.noninferiority_of} vs {e.noninferiority_against}"),
                     P(e.noninferiority_pvalue_adjusted), Decision(e.noninferior)))
    worse = "lower" if lab.higher(r.metric) else "higher"
    caption = (f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}: equivalence within \u00b1{first.margin:g} (two "
               f"one-sided t tests) and non-inferiority (not worse by more than {first.margin:g}), \u03b1 = {r.alpha:g}.")
    notes = (f"TOST p is the larger of the two one-sided p-values (H0: a \u2212 b \u2264 \u2212{first.margin:g}; "
             f"H0: a \u2212 b \u2265 {first.margin:g}); equivalent when the {level:.0%} interval of a \u2212 b (1 \u2212 2\u03b1) "
             f"lies inside \u00b1{first.margin:g}. NI test \u201cx vs y\u201d: x scores no more than "
             f"{first.margin:g} {worse} than y (one-sided at \u03b1). Both p_adj are {adj} over the family, "
             "as the pairwise tests (Schuirmann 1987; Lakens 2017; Wellek 2010).",)
    return (Table((r.metric, r.corpus, f"{key}-equivalence"), caption, cols, tuple(rows), notes),)


def adjusted_text(correction: str) -> str:
    """'Holm-adjusted', or 'unadjusted' without a correction."""
    return "unadjusted" if correction == "none" else f"{correction_name(correction)}-adjusted"


def wilcoxon_variant_note(pairs: Sequence[PairRow]) -> str:
    """Which null distribution and continuity correction the Wilcoxon p-values used (tests.wilcoxon,
    tests.continuity_correction)."""
    exact = {bool(p.extra.get("exact")) for p in pairs if p.pvalue is not None}
    corrected = {bool(p.extra.get("continuity_correction")) for p in pairs
                 if p.pvalue is not None and not p.extra.get("exact")}
    parts = []
    if True in exact:
        parts.append("exact p-values come from the exact (conditional, with ties and zeros) distribution of R+")
    if corrected:
        parts.append("the normal approximation is " + ("with" if corrected == {True} else "without" if
                     corrected == {False} else "with and without") + " continuity correction")
    return ("Wilcoxon p-values: " + "; ".join(parts) + ".") if parts else "Wilcoxon p-values: none computable."


def _difference_warnings(p: PairRow) -> tuple[str, ...]:
    d, e = p.differences, p.effect_sizes
    return (d.warnings if d is not None else ()) + (e.warnings if e is not None else ())


def _effect_ci(e: EffectSize, level: float, dec: int = 2) -> Cell:
    return value_ci(e.value, e.ci_low, e.ci_high, level, dec)


def differences_tables(r: PairwiseRecord, lab: Labels, key: str) -> tuple[Table, ...]:
    """SD and SE of a - b, Shapiro-Wilk W and p; for paired t also d_z, g_z, d_av, g_av with intervals."""
    rows_src = [p for p in r.pairs if p.differences is not None]
    if not rows_src:
        return ()
    dec = lab.decimals(r.metric)
    effects = any(p.effect_sizes is not None for p in rows_src)
    cols = [PAIR_COLUMN, Column(Text(unbroken("SD of") + " " + unbroken("a \u2212 b"))),
            Column(Text(unbroken("SE of") + " " + unbroken("a \u2212 b"))),
            Column(Text(unbroken("Shapiro-Wilk W"))), Column(Text(unbroken("Shapiro-Wilk p")))]
    if effects:
        cols += [Column(Sym(n), "c") for n in ("d_z", "g_z", "d_av", "g_av")]
    rows = []
    for p in rows_src:
        d = p.differences
        assert d is not None
        row: list[Cell] = [Pair(p.a, p.b), Num(d.sd, dec), Num(d.se, dec), Num(d.shapiro_w, 4),
                           P(d.shapiro_pvalue)]
        if effects:
            e = p.effect_sizes
            row += [_effect_ci(x, e.ci_level) for x in (e.d_z, e.g_z, e.d_av, e.g_av)] if e is not None else \
                [Num(None)] * 4
        rows.append(tuple(row))
    notes = ["SD and SE (= SD/\u221an) of the paired differences; Shapiro-Wilk tests their normality (R's "
             "shapiro.test)."]
    if effects:
        level = next((p.effect_sizes.ci_level for p in rows_src if p.effect_sizes is not None), None)
        notes.append("d_z = mean(d)/SD(d); d_av = mean(d)/((SD(a) + SD(b))/2); g_z and g_av multiply them by Hedges' "
                     "small-sample correction J(n \u2212 1) (Lakens 2013); intervals"
                     + (f" ({pct(level)})" if level is not None else "")
                     + " from the noncentral t (Steiger and Fouladi 1997; d_av's treats SD(d)/SD_av as known).")
    caption = (f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}: the paired differences a \u2212 b"
               + (" and standardised effect sizes." if effects else "."))
    return (Table((r.metric, r.corpus, f"{key}-differences"), caption, tuple(cols), tuple(rows), tuple(notes),
                  pair_detail=True),)


def pair_sentence(r: PairwiseRecord, p: PairRow, lab: Labels) -> str:
    """The plain-language line: 'A > B on ROUGE-1 recall: t(2) = 6.38, p = 0.024; the difference is
    significant ...'; every case (significant, not, zero estimate, not computable) has a verb."""
    metric = lab.metric(r.metric)
    if p.statistic is None and p.pvalue is None:
        why = "; ".join(p.warnings) or "see warnings"
        return f"{p.a} vs {p.b} on {metric}: the test could not be computed ({why})."
    rel = ">" if (p.estimate or 0) > 0 else ("<" if (p.estimate or 0) < 0 else "=")
    stat = method_stat_text(r, p)
    p_part = p_text(p.pvalue)
    corr = correction_name(r.correction)
    if r.correction != "none" and p.pvalue_adjusted is not None:
        p_part += f", {corr}-adjusted {p_text(p.pvalue_adjusted)}"
    after = f" after {corr}" if r.correction != "none" else ""
    if p.significant:
        return (f"{p.a} {rel} {p.b} on {metric}: {stat}, {p_part}; the difference is significant at "
                f"\u03b1 = {r.alpha:g}{after}.")
    return (f"{p.a} vs {p.b} on {metric}: {stat}, {p_part}; the difference is not significant at \u03b1 = "
            f"{r.alpha:g}{after} ({rel_word(rel, p.a, p.b)}).")


def rel_word(rel: str, a: str = "a", b: str = "b") -> str:
    """The direction of the estimate as a clause with a verb (the sentence must read in every case)."""
    return {">": f"the estimate puts {a} above {b}", "<": f"the estimate puts {a} below {b}",
            "=": "the estimated difference is zero"}[rel]


def method_stat_text(r: PairwiseRecord, p: PairRow) -> str:
    """The statistic in the plain sentence, as the family's test words it ("t(2) = 6.38")."""
    if p.statistic is None:
        return "statistic not computable"
    return declared(r).statistic_text(p)


def rm_anova_view(r: RMAnovaRecord, lab: Labels) -> AnalysisView:
    sph = r.sphericity
    caption = (f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}: repeated-measures ANOVA over {r.k} systems and "
               f"{r.n} items, with sphericity corrections (applied: "
               f"{sphericity_name(r.correction_applied) if r.correction_applied else 'none'}).")
    cols = (Column(Text("Correction"), "l", wrap=True), Column(Sym("epsilon")), Column(Sym("df_1")), Column(Sym("df_2")),
            Column(Sym("F")), Column(Sym("p")), Column(Text("Applied"), "c"))
    eps = {"none": 1.0, "greenhouse_geisser": sph.epsilon_gg, "huynh_feldt": sph.epsilon_hf,
           "lower_bound": sph.epsilon_lb}
    rows, bold = [], []
    for i, (name, c) in enumerate(r.corrections.items()):
        applied = name == r.correction_applied
        if applied:
            bold.append(i)
        rows.append((Text(sphericity_name(name)), Num(eps.get(name), 3), Df(c.df1), Df(c.df2),
                     Stat(r.statistic), P(c.pvalue), Text("\u2713" if applied else "")))
    eta = r.effect_size.value if r.effect_size else None
    ges = r.generalized_eta_squared.value if r.generalized_eta_squared is not None else None
    anova = Table((r.metric, r.corpus, "omnibus"), caption, cols, tuple(rows),
                  (f"Partial eta squared = {plain(eta)}; generalized eta squared = {plain(ges)} (Olejnik and "
                   "Algina 2003).",), tuple(bold))
    second = r.mauchly_pvalue_second_order
    m_cols = (Column(Text("Mauchly's W")), Column(Sym("chi2")), Column(Text("df")), Column(Text("p (R)")),
              Column(Text("p (first order)")), Column(Sym("epsilon_GG")), Column(Sym("epsilon_HF")),
              Column(join(Sym("epsilon_HF"), " uncapped")), Column(Sym("epsilon_LB")))
    m_row = (Num(sph.mauchly_w, 4), Stat(sph.chi2), Df(sph.df), P(second), P(sph.pvalue), Num(sph.epsilon_gg, 3),
             Num(sph.epsilon_hf, 3), Num(r.epsilon_hf_uncapped, 3), Num(sph.epsilon_lb, 3))
    used = r.mauchly_p
    m_notes = (("p (R) is the p-value with Anderson's second-order term, as R reports it; p (first order) is "
                "the plain chi-square p-value, as SPSS reports it. The sphericity correction was chosen by "
                + ("p (R)." if used == "r" else "p (first order).")),
               "HF uncapped is the Huynh-Feldt epsilon before it is capped at 1; the capped value corrects the "
               "F test.")
    mauchly = Table((r.metric, r.corpus, "sphericity"),
                    f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}: Mauchly's test of sphericity and the "
                    "Greenhouse-Geisser, Huynh-Feldt and lower-bound epsilons.", m_cols, (m_row,), m_notes)
    tables = (anova,) + anova_source_table(r, lab) + (mauchly,)
    if r.statistic is None:
        sentence = (f"Repeated-measures ANOVA on {lab.metric(r.metric)}: the test could not be computed "
                    f"({'; '.join(r.warnings)}).")
    else:
        c = r.corrections.get(r.correction_applied or "none")
        verdict = "significant" if r.significant else "not significant"
        sentence = (f"Repeated-measures ANOVA on {lab.metric(r.metric)}: F({df_text(c.df1)}, {df_text(c.df2)}) = "
                    f"{r.statistic:.2f}, {p_text(r.pvalue_corrected)} "
                    f"({sphericity_name(r.correction_applied)}), {verdict} at "
                    f"\u03b1 = {lab.alpha:g}.")
    return AnalysisView(r.id, r.kind, "Omnibus test: repeated-measures ANOVA", tables, (sentence,),
                        (f"Why this correction: {r.correction_reason}",), tuple(r.warnings))


ANOVA_SOURCES = {"systems": "Systems", "items": "Items (subjects)", "error": "Error (systems \u00d7 items)",
                 "total": "Total"}


def anova_source_table(r: RMAnovaRecord, lab: Labels) -> tuple[Table, ...]:
    """The sums of squares, degrees of freedom and mean squares of the RM-ANOVA (sphericity assumed)."""
    rows_src = r.table
    if not rows_src:
        return ()
    values = [abs(v) for a in rows_src for v in (a.ss, a.ms) if v]
    # four significant digits of the smallest sum of squares or mean square (scores are often on [0, 1])
    dec = min(8, max(3, 3 - math.floor(math.log10(min(values))))) if values else 3
    cols = (Column(Text("Source"), "l", wrap=True), Column(Text("SS")), Column(Text("df")), Column(Text("MS")))
    rows = tuple((Text(ANOVA_SOURCES.get(a.source, a.source)), Num(a.ss, dec), Df(a.df), Num(a.ms, dec))
                 for a in rows_src)
    return (Table((r.metric, r.corpus, "anova-table"),
                  f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}: repeated-measures ANOVA table "
                  "(F = MS systems / MS error).", cols, rows),)


DECISION_TEXT = {"a_better": "a better", "equivalent": "practically equivalent", "b_better": "b better",
                 "undecided": "undecided"}


def bayesian_view(r: BayesianRecord, lab: Labels) -> AnalysisView:
    """P(a better), P(equivalent), P(b better) per pair, the decision, and a plain-language reading."""
    dec = lab.decimals(r.metric)
    name = test_name("bayesian", r.method)
    freq = [p.frequentist_method for p in r.pairs]
    has_freq = any(m is not None for m in freq)
    cols = [PAIR_COLUMN, Column(Sym("n")), Column(Sym("mean_diff")), Column(Text("P(a better)")),
            Column(Text("P(equivalent)")), Column(Text("P(b better)")), Column(Text("Decision"), "c")]
    if has_freq:
        cols += [Column(Sym("p_adj")), Column(Text("Significant"), "c")]
    rows = tuple((Pair(p.a, p.b), Int(p.n), Num(p.estimate, dec), Num(p.p_a_better, 3),
                  Num(p.p_equivalent, 3), Num(p.p_b_better, 3), Text(DECISION_TEXT.get(p.decision, p.decision)))
                 + ((P(p.frequentist_pvalue_adjusted), Decision(p.frequentist_significant)) if has_freq else ())
                 for p in r.pairs)
    notes = [f"ROPE \u00b1{r.rope:g} ({lab.metric(r.metric)} units): differences within it count as practically "
             f"equivalent; a decision needs a posterior probability of at least {r.decision_level:g}, else undecided. "
             "Better follows the metric's direction."]
    if r.method == "bayesian_bootstrap":
        how = ("its normal law (exact mean and variance, no sampling)" if r.posterior == "normal"
               else f"{r.n_samples:,} samples from the spec's seed")
        notes.append("Posterior of the mean difference: Dirichlet(1, \u2026, 1) weights over the items' differences "
                     f"(Rubin 1981), by {how}; P(a better) = P(mean > ROPE), P(equivalent) = P(|mean| \u2264 ROPE).")
    elif r.method == "signed_rank" and r.posterior == "normal":
        notes.append(f"Dirichlet-process posterior with prior strength {r.prior_strength:g}, by its large-n normal "
                     "approximation (exact mean, delta-method covariance, integrated exactly; no sampling).")
    elif r.method == "signed_rank":
        notes.append(f"Dirichlet-process posterior with prior strength {r.prior_strength:g} and {r.n_samples:,} "
                     "samples from the spec's seed.")
    if has_freq:
        names = sorted({test_name("pairwise" if m in PAIRWISE_NAMES else "posthoc", m, cited=False)
                        for m in freq if m is not None})
        notes.append(f"p_adj and Significant: the frequentist decision on the same pair ({', '.join(names)}, after "
                     "the family's correction: the test the Conclusions follow), for comparison.")
    else:
        notes.append(f"Student t posterior of the mean fold difference with correlation \u03c1 = {r.rho:.3g} "
                     "(Nadeau and Bengio); exact, no sampling.")
    caption = f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}: {name} with a region of practical equivalence."
    notes.append("Practically equivalent is never declared for a pair whose observed mean difference lies "
                 "outside the ROPE (such a pair is undecided, with a warning).")
    table = Table((r.metric, r.corpus, "bayesian"), caption, tuple(cols), rows, tuple(notes))
    sentences = tuple(bayes_sentence(p, r, lab) for p in r.pairs)
    warnings = list(r.warnings) + [f"{p.a} vs {p.b}: {w}" for p in r.pairs for w in p.warnings]
    return AnalysisView(r.id, r.kind, f"Bayesian comparison: {name}", (table,), sentences,
                        why_this_test(r.selection), tuple(warnings))


def bayes_sentence(p: BayesianPair, r: BayesianRecord, lab: Labels) -> str:
    """One plain-language reading, e.g. 'A and B are practically equivalent on BLEU (P = 0.97 that ...)'."""
    metric = lab.metric(r.metric)
    if p.p_a_better is None:
        return f"{p.a} vs {p.b} on {metric}: there is no posterior ({'; '.join(p.warnings) or 'see warnings'})."
    within = f"within \u00b1{r.rope:g}"
    if p.decision == "a_better":
        return (f"{p.a} is practically better than {p.b} on {metric} (beyond the ROPE \u00b1{r.rope:g}), with "
                f"posterior probability {p.p_a_better:.3f}.")
    if p.decision == "b_better":
        return (f"{p.b} is practically better than {p.a} on {metric} (beyond the ROPE \u00b1{r.rope:g}), with "
                f"posterior probability {p.p_b_better:.3f}.")
    if p.decision == "equivalent":
        return (f"{p.a} and {p.b} are practically equivalent on {metric} (differences {within}), with posterior "
                f"probability {p.p_equivalent:.3f}.")
    return (f"{p.a} vs {p.b} on {metric}: the comparison is undecided at {r.decision_level:g} "
            f"(P(a better) = {p.p_a_better:.3f}, "
            f"P(equivalent) = {p.p_equivalent:.3f}, P(b better) = {p.p_b_better:.3f}).")


def omnibus_view(r: FriedmanRecord | RMAnovaRecord, lab: Labels) -> AnalysisView:
    return friedman_view(r, lab) if isinstance(r, FriedmanRecord) else rm_anova_view(r, lab)


def _ranks_table(key: tuple[str | None, ...], caption: str, ranks: Mapping[str, float | None]) -> Table:
    order = sorted(ranks, key=lambda s: (ranks[s] is None, ranks[s] or 0))
    return Table(key, caption, (Column(Text("System"), "l"), Column(Text("Average rank"))),
                 tuple((Text(s), Num(ranks[s], 3)) for s in order))


def friedman_view(r: FriedmanRecord, lab: Labels) -> AnalysisView:
    where = f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}"
    over = "corpora" if r.level == "corpora" else "items"
    variant = "tie-corrected" if r.tie_correction else "uncorrected (Dem\u0161ar's formula)"
    ranks = _ranks_table((r.metric, r.corpus, "ranks"), f"{where}: average ranks of {r.k} systems over "
                         f"{r.n} {over} (1 = best).", r.average_ranks)
    idv = r.iman_davenport
    cols = (Column(Text("Statistic"), "l", wrap=True), Column(Text("Value")), Column(Text("df")), Column(Sym("p")))
    rows: tuple[tuple[Cell, ...], ...] = (
        (join("Friedman ", Sym("chi2_F"), f" ({variant})"), Stat(r.statistic), Df(r.df), P(r.pvalue)),
        (join("Iman-Davenport ", Sym("F_F"), " (from the ", Sym("chi2_F"), " above)"), Stat(idv.statistic),
         join(Df(idv.df1), ", ", Df(idv.df2)), P(idv.pvalue)),
        (join("Friedman ", Sym("chi2_F"), ", uncorrected" if r.tie_correction else ", tie-corrected"),
         Stat(r.statistic_uncorrected if r.tie_correction else r.statistic_tie_corrected), Df(r.df), Text("")),
        (join("Kendall's ", Sym("W")), Num(r.kendall_w, 3), Text(""), Text("")),
    )
    table = Table((r.metric, r.corpus, "omnibus"), f"{where}: Friedman test (Dem\u0161ar 2006); the "
                  f"{variant} \u03c7\u00b2_F feeds the Iman-Davenport F.", cols, rows)
    if r.statistic is None:
        sentence = f"Friedman test on {lab.metric(r.metric)}: the test could not be computed ({'; '.join(r.warnings)})."
    else:
        verdict = "significant" if r.significant else "not significant"
        sentence = (f"Friedman test on {lab.metric(r.metric)}: \u03c7\u00b2_F({df_text(r.df)}) = {r.statistic:.2f}, "
                    f"{p_text(r.pvalue)} ({variant}), {verdict} at \u03b1 = {lab.alpha:g}"
                    + (f"; Iman-Davenport F({df_text(idv.df1)}, {df_text(idv.df2)}) = {idv.statistic:.2f}, "
                       f"{p_text(idv.pvalue)}." if idv.statistic is not None else "."))
    return AnalysisView(r.id, r.kind, "Omnibus test: Friedman", (ranks, table), (sentence,),
                        why_this_test(r.selection), tuple(r.warnings))


def posthoc_view(r: PosthocRecord | PairwiseRecord, lab: Labels) -> AnalysisView:
    """Rank post-hoc tests after Friedman; paired t tests after RM-ANOVA are a pairwise family."""
    if isinstance(r, PairwiseRecord):
        return pairwise_view(r, lab)
    where = f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}"
    name = test_name("posthoc", r.method, cited=False)
    cols = (PAIR_COLUMN, Column(Text("Rank diff.")), Column(Sym("z")), Column(Sym("p")),
            Column(Sym("p_adj")), Column(Text("Significant"), "c"))
    rows = tuple((Pair(p.a, p.b), Num(p.rank_difference, 3), Stat(p.statistic), P(p.pvalue),
                  P(p.pvalue_adjusted), Decision(p.significant)) for p in r.pairs)
    bold = tuple(i for i, p in enumerate(r.pairs) if p.significant)
    cd = ""
    if r.critical_difference is not None:
        cd = f"; critical difference CD = {r.critical_difference:.3f} (q_\u03b1 = {r.q_alpha:.3f})"
    ctrl = f" against the control {r.control}" if r.control else ""
    caption = (f"{where}: {name}{ctrl} on average ranks after the {test_name('omnibus', r.after)} "
               f"(\u03b1 = {r.alpha:g}{cd}).")
    notes = ["z = (R_a \u2212 R_b)/\u221a(k(k+1)/(6N)); a pair differs significantly when its average ranks "
             "differ by at least the critical difference (Dem\u0161ar 2006)." if r.critical_difference is not None
             else "z = (R_a \u2212 R_b)/\u221a(k(k+1)/(6N)) with two-sided normal p-values; a pair differs "
             "significantly when its adjusted p is at most \u03b1 (Garc\u00eda and Herrera 2008; scmamp's "
             "postHocTest)."]
    if r.omnibus_significant is False:
        notes.append("The omnibus test did not reject: these post-hoc comparisons are shown for completeness "
                     "and should not be read as evidence of differences.")
    better = lambda p: a_better(p, None)  # type: ignore[arg-type]  # noqa: E731  (rank differences: 1 is best)
    table = Table((r.metric, r.corpus, "posthoc"), caption, cols, rows, tuple(notes), bold,
                  compact=pvalue_matrix(r.pairs, (r.metric, r.corpus, "posthoc"), caption, f"adjusted ({name})",
                                        r.alpha, better))
    table = with_html_matrix(table, r.pairs, lab, f"adjusted ({name})", r.alpha)
    words = paper.Wording(join(Sym("R_a"), f" {paper.MINUS} ", Sym("R_b")), "Estimate: the difference of average ranks R_a "
                          f"{paper.MINUS} R_b (rank 1 is best)", None, 3, f"adjusted ({name})", r.alpha,
                          "the smaller average rank")
    table = dataclasses.replace(table, forms=paper.forms(table.key, caption, paper.rank_facts(r.pairs), words,
                                                         not r.control))
    if table.html_form is not None:
        return AnalysisView(r.id, r.kind, f"Post-hoc: {name}", (table,), system_sentences(r.pairs, better, name),
                            why_this_test(r.selection), tuple(r.warnings))
    sentences = [f"{p.a} vs {p.b}: average ranks differ by {abs(p.rank_difference or 0):.3f}"
                 + (f" \u2265 CD {r.critical_difference:.3f}" if p.significant and r.critical_difference
                    else f" < CD {r.critical_difference:.3f}" if r.critical_difference else "")
                 + f", {'significant' if p.significant else 'not significant'} ({name})." for p in r.pairs]
    return AnalysisView(r.id, r.kind, f"Post-hoc: {name}", (table,), tuple(sentences), why_this_test(r.selection),
                        tuple(r.warnings))


RUN_DECISIONS = {"a_better": "{a} better", "b_better": "{b} better", "undecided": "undecided"}


def runs_view(r: RunsRecord, lab: Labels) -> AnalysisView:
    """Several runs per system: each system's value over its runs, and per pair the two-level bootstrap interval
    of the difference and almost stochastic order both ways."""
    dec = lab.decimals(r.metric)
    level = pct(r.ci_level)
    scols = (Column(Text("System"), "l"), Column(Text("Runs")), Column(Text("Mean")), Column(Text("SD")),
             Column(Text("Min")), Column(Text("Max")))
    srows = tuple((Text(s.system), Int(len(s.runs)), Num(s.mean, dec), Num(s.sd, dec), Num(s.min, dec),
                   Num(s.max, dec)) for s in r.systems)
    pcols = (Column(Text("Pair"), "l"), Column(Text("Difference")),
             Column(Text(unbroken(f"{level} CI") + " " + unbroken("(runs × items)")), "c"),
             Column(Text("εmin a over b")), Column(Text("εmin b over a")), Column(Text("Decision"), "l"))
    prows = tuple((Pair(p.a, p.b), Num(p.estimate, dec), CI(p.ci_low, p.ci_high, r.ci_level, dec),
                   Num(p.eps_min_ab, 3), Num(p.eps_min_ba, 3),
                   Text(RUN_DECISIONS.get(p.decision, p.decision).format(a=p.a, b=p.b))) for p in r.pairs)
    where = f"{lab.metric(r.metric)} on {lab.corpus(r.corpus)}"
    tables = (Table((r.metric, r.corpus, "runs"), f"{where}: each system's value in its runs (the metric over the "
                    f"{r.n_items} items of one run).", scols, srows),
              Table((r.metric, r.corpus, "runs-pairs"), f"{where}: pairs over runs and items: the difference of the "
                    f"means with its two-level bootstrap interval (items drawn for both systems, runs for each; "
                    f"B = {r.n_resamples}), and almost stochastic order (εmin < {r.tau:g}: better).",
                    pcols, prows))
    notes = (f"The tests over items in this section compare each system's scores averaged over its runs. Almost "
             f"stochastic order (Dror et al. 2019) compares the per-run values: εmin is "
             f"the upper bound of the share of the runs' quantile distance where the first system is behind, at "
             f"{pct(r.aso_confidence)} confidence (Bonferroni over the {len(r.pairs)} pairs; {r.aso_resamples} "
             f"bootstrap iterations); a system is declared better when εmin is below the threshold τ = {r.tau:g}.",)
    warnings = list(r.warnings) + [f"{p.a} vs {p.b}: {w}" for p in r.pairs for w in p.warnings]
    return AnalysisView(r.id, r.kind, "Runs", tables, notes=notes, warnings=tuple(warnings))


def replicability_view(r: ReplicabilityRecord, lab: Labels) -> AnalysisView:
    """Per pair and direction: corpora where it is significantly better, Dror et al.'s k, and p^{u/N}."""
    n = len(r.corpora)
    declared_as = combination(r.method)
    how = declared_as.display
    cols = (Column(Text("Better"), "l"), Column(Text("than"), "l"), Column(Text(f"Significant (of {n})")),
            Column(Text("k (at least)")), *(Column(Text(f"p(\u2265{u} of {n})")) for u in range(1, n + 1)))
    rows = tuple((Text(w.better), Text(w.than), Int(w.significant_count), Int(w.k_estimate),
                  *(P(v) for v in w.partial_conjunction)) for w in r.rows)
    caption = (f"{lab.metric(r.metric)}: replicability across {n} corpora ({', '.join(r.corpora)}), partial "
               f"conjunction with {how} combination (Dror et al. 2017), \u03b1 = {r.alpha:g}.")
    notes = (f"Significant: corpora where the one-sided p of \u201cbetter\u201d (from the {test_name('pairwise', r.pairwise_method, cited=False)}, "
             "unadjusted) is at most \u03b1. k: the largest u whose partial-conjunction p-value (made "
             "non-decreasing in u) is at most \u03b1: the system is better on at least k corpora, with the family-wise "
             "error held at \u03b1. p(\u2265u of N): the partial-conjunction p-value of \u201cbetter on at least u "
             f"of the N corpora\u201d, {how}: {declared_as.formula}.",)
    bold = tuple(i for i, w in enumerate(r.rows) if w.k_estimate)
    table = Table((r.metric, None, "replicability"), caption, cols, rows, notes, bold)
    sentences = tuple(f"{w.better} beats {w.than} on at least {w.k_estimate} of {n} corpora "
                      f"({lab.metric(r.metric)}; significant on {w.significant_count})." for w in r.rows if w.k_estimate)
    if not sentences:
        sentences = (f"No system is shown better than another on any of the {n} corpora by the partial-conjunction "
                     f"test ({lab.metric(r.metric)}).",)
    return AnalysisView(r.id, r.kind, f"Replicability across corpora: {how} partial conjunction", (table,),
                        sentences, warnings=tuple(r.warnings))


VIEWS: dict[str, Callable[..., AnalysisView]] = {  # kind -> the view of that kind's record and the Labels
    "runs": runs_view,
    "descriptives": descriptives_view,
    "pairwise": pairwise_view,
    "cv": pairwise_view,
    "omnibus": omnibus_view,
    "posthoc": posthoc_view,
    "bayesian": bayesian_view,
    "replicability": replicability_view,
}
