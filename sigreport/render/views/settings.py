"""The report's settings table: every statistical choice, as written in the spec or taken by default.

It reads the ``tests`` section, alpha, seed and data the results hold (results.json holds them too), and the
settings only the spec knows (:class:`~sigreport.render.options.RunSettings`: missing items, the classification
and agreement choices, the baseline) from the render options; a report rendered from results.json alone has
none of those, and leaves their rows out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from sigreport.render.model import AnalysisView
from sigreport.render.options import AgreementSettings, ClassificationSettings, RenderOptions, RunSettings
from sigreport.render.views.common import ALTERNATIVE_TEXT, CORRECTION_NAMES, pct, sphericity_name, test_name
from sigreport.render.views.labels import MEASURE_NAMES
from sigreport.results.collection import Results
from sigreport.results.records import (AgreementRecord, DescriptivesRecord, PairwiseRecord, PreferenceRecord,
                                       Record)

Rows = list[tuple[str, str]]


def settings_rows(results: Results, options: RenderOptions = RenderOptions()) -> Rows:
    """(name, value) rows for the report header (``options.settings``: what only the spec knows)."""
    run = options.settings or RunSettings()
    rows = applicable(test_rows(results.tests, results.alpha, options.baseline, run.corpus_level), results.records)
    rows = with_preference_intervals(rows, results.records)
    if run.missing is not None:
        rows.append(("Missing items", run.missing))
    rows.append(("Seed", f"{results.seed} (each analysis derives its own stream from it and its id)"))
    return rows + data_rows(results.data) + design_rows(results, run.cluster) \
        + label_rows(run, results.tests, results.records) + why_p_rows(results) + preference_rows(results.records)


def design_rows(results: Results, cluster_column: str | None) -> Rows:
    """The clusters (``data.columns.cluster``: the column, G per corpus) and the proportion intervals of the
    metrics scored 0 or 1 (``tests.proportion_ci``, and Newcombe's for their pairs), from the records."""
    from sigreport.results.methods import proportion

    rows: Rows = []
    desc = [r for r in results.records if isinstance(r, DescriptivesRecord)]
    clusters: dict[str | None, int] = {}
    for r in desc:
        G = next((s.clusters.G for s in r.systems if s.clusters is not None), None)
        if G is not None:
            clusters.setdefault(r.corpus, G)
    if clusters:
        column = f"column {cluster_column}: " if cluster_column else ""
        where = "; ".join(f"G = {G}" + (f" on {c}" if c is not None else "") for c, G in clusters.items())
        resampled = any(isinstance(r, PairwiseRecord) and r.kind == "pairwise" and r.method in RESAMPLED
                        for r in results.records)
        rows.append(("Clusters", f"{column}{where}; CR1 cluster-robust standard errors, t on G \u2212 1 df"
                     + ("; the bootstrap and permutation tests resample whole clusters" if resampled else "")
                     + "; each analysis states its design effect and effective items"))
    labels = {m: results.metrics[m].label if m in results.metrics else m for m in {r.metric for r in desc}}
    newcombe = {r.metric for r in results.records if isinstance(r, PairwiseRecord)
                and r.ci_method == proportion.NEWCOMBE_PAIRED}
    for method in dict.fromkeys(r.ci_method for r in desc if r.ci_method in proportion.NAMES):
        d = proportion.interval(str(method))
        mine = [r for r in desc if r.ci_method == method]
        metrics = list(dict.fromkeys(r.metric for r in mine))
        clustered = any(s.clusters is not None for r in mine for s in r.systems)
        text = (f"{d.display} (tests.proportion_ci: {method}) for {', '.join(labels[m] for m in metrics)}: every "
                "score 0 or 1")
        if clustered:
            text += ("; with clusters on Korn and Graubard's effective items min((n \u2212 1)/deff, n) "
                     "\u00d7 (z/t)\u00b2")
        paired = [labels[m] for m in metrics if m in newcombe]
        if paired:
            text += f"; pairs: Newcombe's score interval for paired proportions (method 10) for {', '.join(paired)}"
        rows.append(("Proportion interval", text))
    return rows


def preference_rows(records: Sequence[Record]) -> Rows:
    """How the preference votes were analysed (a Bradley-Terry record), in one row."""
    out = []
    for r in records:
        if isinstance(r, PreferenceRecord):
            ties = "ties by Davidson's model" if r.ties == "davidson" else "a tie as half a win each"
            unit = "items (each with all its votes)" if r.unit == "items" else "votes"
            out.append(("Preference votes", f"{r.n_votes:,} votes: Bradley-Terry strengths ({ties}), "
                        f"{r.n_resamples:,} bootstrap replicates resampling {unit}, Rank (UB) from the intervals"))
    return out


def with_preference_intervals(rows: Rows, records: Sequence[Record]) -> Rows:
    """The "Confidence intervals" row says what the preference votes' intervals are (bootstrap percentile
    intervals of the strengths, their unit and B), alone when nothing else of the report has an interval (a
    report of votes only), else after the rule of the other intervals."""
    prefs = [r for r in records if isinstance(r, PreferenceRecord)]
    if not prefs:
        return rows
    said = "; ".join(f"{pct(r.ci_level)} bootstrap percentile intervals of the Bradley-Terry strengths "
                     f"({r.n_resamples:,} replicates resampling "
                     f"{'items with all their votes' if r.unit == 'items' else 'votes'})" for r in prefs)
    alone = all(r.kind == "preferences" for r in records)
    return [(name, (said if alone else f"{value}; for the preference votes: {said}")
             if name == "Confidence intervals" else value) for name, value in rows]


# A settings row shown only when an analysis it describes ran: (kind, method or None for any), one of them
FAMILY_KINDS = (("pairwise", None), ("cv", None), ("mcnemar", None), ("posthoc", None))
NEEDS: dict[str, tuple[tuple[str, str | None], ...]] = {
    "Pairwise test": (("pairwise", None),), "Comparisons": FAMILY_KINDS, "Alternative": FAMILY_KINDS,
    "Multiple-comparison correction": FAMILY_KINDS, "Omnibus test": (("omnibus", None),),
    "Sphericity": (("omnibus", "rm_anova"),), "Friedman chi-square": (("omnibus", "friedman"),),
    "Post-hoc test": (("posthoc", None),), "Cross-validation tests": (("cv", None),),
    # every kind but preference votes (whose unit is a vote: their row says so)
    "Unit of analysis": tuple((k, None) for k in ("descriptives", "pairwise", "cv", "omnibus", "posthoc",
                                                  "classification", "mcnemar", "cochran_q", "agreement", "bayesian",
                                                  "runs")),
}


def applicable(rows: Rows, records: Sequence[Record]) -> Rows:
    """``rows`` without the settings of tests that did not run (an omnibus test with two systems, the
    pairwise test of a cross-validation design): a setting is listed when a record of its kind exists."""
    ran = {(r.kind, r.method) for r in records}
    kinds = {k for k, _ in ran}
    return [(name, value) for name, value in rows
            if name not in NEEDS or any((k, m) in ran if m else k in kinds for k, m in NEEDS[name])]


WHY_P_TITLE = "Why might another tool give a different p-value?"
WHY_P_ANCHOR = "why-p-values"
WHY_P_NOTE = f"{WHY_P_TITLE} See Statistical choices."
RESAMPLED = ("bootstrap", "bootstrap_t", "permutation")
WHY_P_TEXT = (
    "sigreport counts a resampled difference as extreme when it is at least as far from the null as the observed "
    "one: two-sided p = (#{|d* \u2212 d| \u2265 |d|} + 1)/(B + 1) for the bootstrap (replicates d* shifted to the "
    "null), (#{|t*| \u2265 |t|} + 1)/(B + 1) for bootstrap-t, (#{|\u0394perm| \u2265 |\u0394|} + 1)/(B + 1) for "
    "the permutation test. sacrebleu's paired bootstrap (--paired-bs, after the Moses script) instead centres the "
    "absolute resampled differences |d*| at their mean and counts strict exceedances, (#{|d*| \u2212 mean |d*| > "
    "|d|} + 1)/(B + 1): under a true null it rejects far more often than \u03b1 (0.16, 0.13 and 0.11 at \u03b1 = "
    "0.05 with 20, 50 and 100 items; benchmarks/sacrebleu_null.py), while sigreport's stay much closer to it "
    "(docs/calibration.md, normal data, n = 20 / 50 / 100: bootstrap 0.0745 / 0.0455 / 0.0515, liberal at 20 "
    "items; bootstrap-t 0.0510 / 0.0380 / 0.0475; permutation 0.0535 / 0.0400 / 0.0465). Smaller differences come "
    "from the Monte Carlo error (B and the seed; see MC s.e.), a one-sided alternative, and the "
    "multiple-comparison correction: compare another tool's p with p, not p_adj.")


def why_p_rows(results: Results) -> Rows:
    """The p-value note, when some pairwise family is a bootstrap or permutation test (their p-values are
    the ones other tools compute differently)."""
    used = any(r.kind == "pairwise" and r.method in RESAMPLED for r in results.records)
    return [(WHY_P_TITLE, WHY_P_TEXT)] if used else []


def with_why_p(view: AnalysisView, record: Record) -> AnalysisView:
    """``view`` with the link note to the p-value paragraph when its record is a resampling test."""
    if record.kind == "pairwise" and record.method in RESAMPLED:
        return dataclasses.replace(view, notes=(*view.notes, WHY_P_NOTE))
    return view


def data_rows(data: Mapping[str, Any]) -> Rows:
    """The settings' rows on the data: the score table and how it was read, and what any table left out."""
    rows = _score_rows(data) if data.get("scores") else []
    if data.get("left_out"):
        left_out = [(str(lo.get("table", "scores")), str(lo["field"]), tuple(map(str, lo["names"])), int(lo["rows"]),
                     lo.get("of", data.get("table_rows"))) for lo in data["left_out"]]
        rows.append(("Left out", left_out_text(left_out)))
    return rows


def _score_rows(data: Mapping[str, Any]) -> Rows:
    rows = [("Data", f"{data['scores']} ({data['rows']} rows, sha256 {data['sha256'][:12]}\u2026)")]
    source = data.get("source") or {}
    if source.get("library"):  # a native source scored by its field's library: which, and how (signatures)
        signatures = "; ".join(f"{m}: {sig}" for m, sig in (source.get("signatures") or {}).items())
        rows.append(("Scores computed by", f"{source['library']} (format {source.get('format')})"
                     + (f", signatures {signatures}" if signatures else "")))
    answers = source.get("answers_per_question") or {}
    if answers.get("count", 1) > 1:  # a harness log's repeated answers (Inspect's epochs, HELM's train trials)
        rows.append(("Answers per question", f"{answers['count']} ({answers['kind']}): "
                     + ("each question's mean analysed" if answers["read_as"] == "mean" else
                        "each kept in the sample column")))
    unanswered = source.get("unanswered_queries") or {}
    if unanswered:  # a TREC run that misses qrels queries: how many, and what was done with them
        rows.append(("Unanswered queries", "; ".join(f"{s}: {n}" for s, n in unanswered.items())
                     + f" ({source.get('missing_queries')})"))
    return rows


NAMES_SHOWN = 5  # names listed per axis in the "Left out" row; the rest are counted
ROW_NOUNS = {"scores": "score", "predictions": "prediction", "annotations": "annotation", "outcomes": "outcome",
             "preferences": "vote"}


def left_out_text(left_out: Sequence[tuple[str, str, tuple[str, ...], int, object]]) -> str:
    """What the data tables have that the spec does not list (results.json's ``data.left_out``: table, field,
    names, rows, of), one clause per table and axis: "systems C, D (not in the spec's systems): 420 of 2,520
    score rows"."""
    parts = []
    for table, field, names, rows, total in left_out:
        of = f" of {total:,}" if isinstance(total, int) else ""
        more = f" and {len(names) - NAMES_SHOWN:,} more" if len(names) > NAMES_SHOWN else ""
        shown = [repr(n) for n in names] if any("," in n for n in names) else list(names)
        noun = ROW_NOUNS.get(table, table)
        parts.append(f"{field} {', '.join(shown[:NAMES_SHOWN])}{more} (not in the spec's {field}): "
                     f"{rows:,}{of} {noun} rows")
    return "; ".join(parts) + "; not analysed"


Tests = Mapping[str, Any]  # the ``tests`` section as results.json holds it (JSON data: the spec's, dumped)


def _pairwise_text(t: Tests, corpus_level: bool) -> str:
    pairwise = t["pairwise"]
    pair = f"{test_name('pairwise', pairwise, cited=False)} ({pairwise})"
    if pairwise in ("wilcoxon", "auto"):
        pair += f"; Wilcoxon zero differences: {t['zero_method']}; differences rounded to each metric's precision"
        mode = t.get("wilcoxon", "auto")
        cc = "with" if t.get("continuity_correction", True) else "without"
        pair += ("; Wilcoxon p: " + {"auto": "exact without ties or zeros up to 50 pairs, else normal",
                                     "exact": "exact (conditional, with ties and zeros)",
                                     "normal": "normal approximation"}.get(mode, mode)
                 + (f" {cc} continuity correction" if mode != "exact" else ""))
    if pairwise == "bootstrap_t":
        pair += f"; B = {t['resamples']} resamples, studentized interval, p = (count + 1)/(B + 1)"
    if pairwise in ("bootstrap", "permutation", "auto") or corpus_level:
        pair += f"; B = {t['resamples']} resamples, {t['ci_method']} intervals, p = (count + 1)/(B + 1)"
    if pairwise == "auto":
        pair += ("; auto: paired t when n \u2265 30 or every pair's differences pass Shapiro-Wilk at \u03b1, "
                 "otherwise Wilcoxon; for corpus-level metrics permutation (approximate randomization) with the "
                 "paired bootstrap's interval")
    return pair


def test_rows(t: Tests, alpha: float, baseline: str | None, corpus_level: bool) -> Rows:
    """Rows of the ``tests`` section (as results.json holds it; older documents may lack later keys)."""
    unit = ({"items": "items (per metric and corpus)",
             "corpora": "corpora: one score per system and corpus, analysed across corpora"}[t["level"]]
            if t["design"] == "items" else f"cross-validation design {t['design']}")
    against = f"every system against the baseline {baseline}" if baseline else "every system against the baseline"
    rows = [
        ("Significance level \u03b1", f"{alpha:g}"),
        ("Unit of analysis", unit),
        ("Pairwise test", _pairwise_text(t, corpus_level)),
        ("Comparisons", "every pair of systems" if t["comparisons"] == "all_pairs" else against),
        ("Alternative", ALTERNATIVE_TEXT[t["alternative"]] + (
            " (pairs are (system, baseline): a is the system, b the baseline)" if t["comparisons"] == "vs_baseline"
            else " (a is the system listed first in a pair)")),
        ("Multiple-comparison correction", f"{CORRECTION_NAMES[t['correction']]} ({t['correction']}), family: "
                                           + FAMILY_TEXT[t.get("family", "metric_corpus")]),
        ("Confidence intervals", interval_text(t.get("ci_level"), alpha)),
    ]
    return rows + _omnibus_rows(t) + _bayesian_rows(t)


def interval_text(ci_level: float | None, alpha: float) -> str:
    """The one interval rule, as the report states it."""
    level = ci_level if ci_level is not None else 1 - alpha
    why = ("tests.ci_level" if ci_level is not None else
           "1 \u2212 \u03b1: an interval excludes zero exactly when the t-based test at \u03b1 rejects")
    return (f"{pct(level)} ({why}) for every interval: descriptives, pairwise and cross-validation tests, effect "
            "sizes, classification metrics and agreement")


FAMILY_TEXT = {"metric_corpus": "all comparisons of one metric on one corpus",
               "metric": "all comparisons of one metric over every corpus (tests.family: metric)",
               "corpus": "all comparisons of every metric on one corpus (tests.family: corpus)",
               "all": "every pairwise test in the report (tests.family: all)"}


def _bayesian_rows(t: Tests) -> Rows:
    b = t.get("bayesian")
    if not b:
        return []
    ropes = ", ".join(f"{m} \u00b1{w:g}" for m, w in b["rope"].items())
    model = MODEL_TEXT[b.get("model", "signed_rank")]
    return [("Bayesian comparison", f"{model} (items, corpora) or correlated t test (folds) with ROPE "
             f"{ropes}; decision at posterior probability {b['level']:g}, never practically equivalent when the "
             f"observed mean difference lies outside the ROPE; {b['samples']:,} samples, prior "
             f"strength {b['prior_strength']:g}{POSTERIOR_TEXT[b.get('method', 'auto')]}")]


# tests.bayesian.model; the rule is sigreport.stats.bayes.choose_model (MOSTLY_TIED)
MODEL_TEXT = {"auto": "Bayesian bootstrap of the mean difference when the scores are binary or mostly tied (at most "
                      "two values, or more than half of a pair's differences zero), else the signed-rank test",
              "signed_rank": "signed-rank test", "bayesian_bootstrap": "Bayesian bootstrap of the mean difference"}


# tests.bayesian.method; the threshold is sigreport.stats.bayes.NORMAL_ABOVE (tests/stats/test_bayes.py checks)
POSTERIOR_TEXT = {"auto": "; posterior by Monte Carlo up to n = 5,000 paired values, by normal approximation above",
                  "monte_carlo": "; posterior by Monte Carlo", "normal": "; posterior by normal approximation"}


def _omnibus_rows(t: Tests) -> Rows:
    omnibus = t["omnibus"]
    om = {"rm_anova": "repeated-measures ANOVA (three or more systems)", "none": "none",
          "friedman": "Friedman test (three or more systems)",
          "auto": "auto: RM-ANOVA when n \u2265 30 or the residuals pass Shapiro-Wilk at \u03b1, otherwise "
                  "Friedman"}[omnibus]
    rows = [("Omnibus test", om)]
    if omnibus in ("rm_anova", "auto"):
        which = ("R's p (second-order, as mauchly.test)" if t.get("mauchly_p", "first_order") == "r"
                 else "the first-order p (SPSS)")
        rows.append(("Sphericity", {"auto": f"auto: if Mauchly's test ({which}) rejects at \u03b1, Huynh-Feldt "
                                            "when the Greenhouse-Geisser epsilon exceeds 0.75, otherwise "
                                            "Greenhouse-Geisser",
                                    "none": "none (sphericity assumed)"}.get(t["sphericity"]) or
                     sphericity_name(t["sphericity"])))
    if omnibus in ("friedman", "auto"):
        rows.append(("Friedman chi-square", "tie-corrected (as R's friedman.test); it feeds the Iman-Davenport F"
                     if t["tie_correction"] else "uncorrected (Dem\u0161ar 2006); it feeds the Iman-Davenport F"))
    if omnibus != "none":
        rows.append(("Post-hoc test", {"auto": "auto: paired t tests with the correction after RM-ANOVA; Nemenyi "
                                               "(all pairs) or Bonferroni-Dunn (against the baseline) after Friedman",
                                       "none": "none"}.get(t["posthoc"], test_name("posthoc", t["posthoc"], cited=False))))
    if t["pairwise"] == "auto" or omnibus == "auto":
        rows.append(("Selection", "fixed: the previous report's choices are kept where it has the analysis (each analysis says so)" if t["selection"] == "fixed"
                     else "auto: chosen from this data; changes since the previous report are flagged"))
    if t["design"] != "items":
        methods = t["cv_methods"] or {"5x2cv": ["5x2cv_t", "5x2cv_f"], "kfold": ["kfold_t"],
                                      "resampled": ["corrected_resampled_t"]}[t["design"]]
        rows.append(("Cross-validation tests", ", ".join(test_name("cv", m, cited=False) for m in methods)
                     + (f"; n_train = {t['n_train']}, n_test = {t['n_test']}" if t["n_train"] else "")))
    return rows


def label_rows(run: RunSettings, tests: Tests, records: Sequence[Record]) -> Rows:
    """The classification and agreement choices (the spec's, or its sections' defaults)."""
    rows: Rows = []
    if run.classification is not None:
        rows += _classification_rows(run.classification, tests["omnibus"] != "none")
    if run.agreement is not None:
        rows += _agreement_rows(run.agreement, records)
    return rows


def _classification_rows(c: ClassificationSettings, omnibus: bool) -> Rows:
    labels = (", ".join(c.labels) + " (declared)") if c.labels else "in order of first appearance"
    pos = f"; positive class {c.positive_label}" if c.positive_label is not None else ""
    rows = [("Classification metrics", f"labels {labels}{pos}; F-beta with beta = {c.beta:g}; "
             f"{pct(c.ci_level)} percentile bootstrap intervals over items (B = {c.resamples})"
             + ("; level set by classification.ci_level" if c.level_set else ""))]
    rows.append(("Tested as metrics", ", ".join(c.test_metrics) + " (per-item statistics; the pairwise and "
                 "omnibus tests above apply)" if c.test_metrics else "none"))
    cc = "with" if c.mcnemar_correction else "without"
    mc = {"auto": f"auto: exact binomial test when n01 + n10 < 25, otherwise chi-square {cc} continuity "
                  "correction",
          "exact": "exact binomial test", "chi2": f"chi-square {cc} continuity correction"}[c.mcnemar]
    omni = "; after Cochran's Q with three or more systems" if omnibus else ""
    rows.append(("McNemar's test", f"{mc}; on per-item correctness, the correction above over the pairs of each "
                 f"corpus{omni}"))
    return rows


def _agreement_rows(a: AgreementSettings, records: Sequence[Record]) -> Rows:
    level = a.level + (f" ({' < '.join(a.order)})" if a.order else "")
    measures = ", ".join(MEASURE_NAMES[m] for m in a.measures) if a.measures else (
        "default: Cohen's kappa" + (" and linear and quadratic weighted kappa" if a.level != "nominal" else "")
        + "; with three or more annotators also Fleiss' kappa and Krippendorff's alpha")
    rows = [("Agreement", f"{level} labels; {measures}" + ("; each system against gold" if a.systems_vs_gold else ""))]
    levels = sorted({r.ci_level for r in records if isinstance(r, AgreementRecord)})
    if levels:
        rows.append(("Agreement intervals", f"{' and '.join(pct(x) for x in levels)}: kappa ± z SE with the SE "
                     f"under the alternative, and percentile bootstrap over items (B = {a.resamples}); Landis "
                     "and Koch bands"))
    return rows
