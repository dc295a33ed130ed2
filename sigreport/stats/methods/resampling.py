"""The paired bootstrap, the studentized paired bootstrap (Efron and Tibshirani 1993) and the paired
permutation test, approximate randomization (Noreen 1989): :func:`sigreport.stats.resampling.paired_resampling`
over the corpus's shared replicates (``PairwiseInput.resample``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from sigreport.stats.declaration import NONCENTRAL_T, ExtraColumn, MethodDeclaration, PairwiseInput

SMALL_BOOTSTRAP_N = 50  # below this the calibration study (docs/calibration.md) finds the bootstrap test liberal
SMALL_CORPUS_BOOTSTRAP_N = 100  # the same for corpus-level metrics (docs/calibration_corpus.md)
SMALL_CLUSTER_BOOTSTRAP_G = 100  # the cluster bootstrap: liberal at G = 20 and 50 clusters (docs/calibration.md)
CLUSTER_BOOTSTRAP_LIBERAL = "type I error 0.078 at G = 20 and 0.065 at G = 50 clusters, docs/calibration.md"
BOOTSTRAP_LIBERAL = {  # what the calibration studies measured, for the warning
    False: "type I error about 0.07 at n = 20, docs/calibration.md",
    True: "type I error 0.072 (BLEU-like) and 0.073 (F1-like) at n = 20, 0.062 (F1-like) at n = 50, "
          "docs/calibration_corpus.md",
}


def _options(inp: PairwiseInput) -> dict[str, Any]:
    return dict(alternative=inp.alternative, alpha=inp.alpha, ci_level=inp.ci_level)


def bootstrap(inp: PairwiseInput) -> tuple[list[Any], list[str]]:
    res = inp.resample("bootstrap", ci_method=inp.tests.ci_method, **_options(inp))
    warnings = list(res.warnings)
    if inp.strata is not None:
        warnings.append(f"the bootstrap within {inp.strata[1]} strata is liberal for a macro average (type I error "
                        "0.060 to 0.079 with strata of 5 to 60 items, docs/calibration.md: each stratum's plug-in "
                        "variance is (n_s - 1)/n_s too small); the paired t of the macro average holds its level")
        return list(res.pairs), warnings
    if inp.clusters is not None:
        if inp.clusters[1] < SMALL_CLUSTER_BOOTSTRAP_G:
            warnings.append(f"only {inp.clusters[1]} clusters: the null-shifted bootstrap of whole clusters is "
                            f"liberal with few clusters ({CLUSTER_BOOTSTRAP_LIBERAL}); the clustered paired t and "
                            "the cluster permutation test hold their level")
        return list(res.pairs), warnings
    n = inp.stats.shape[0]
    small = SMALL_CORPUS_BOOTSTRAP_N if inp.corpus_level else SMALL_BOOTSTRAP_N
    if n < small:
        warnings.append(f"only {n} items: the null-shifted bootstrap test is liberal at small n "
                        f"({BOOTSTRAP_LIBERAL[inp.corpus_level]}); the permutation test holds its level")
    return list(res.pairs), warnings


def bootstrap_t(inp: PairwiseInput) -> tuple[list[Any], list[str]]:
    res = inp.resample("bootstrap_t", ci_method="studentized", **_options(inp))
    return list(res.pairs), list(res.warnings)


def permutation(inp: PairwiseInput) -> tuple[list[Any], list[str]]:
    """A randomization test has no interval: each pair gets the paired bootstrap's, over the same items."""
    res = inp.resample("permutation", ci_method=inp.tests.ci_method, **_options(inp))
    boot = inp.resample("bootstrap", ci_method=inp.tests.ci_method, **_options(inp))
    return [with_bootstrap_interval(p, b) for p, b in zip(res.pairs, boot.pairs)], list(res.warnings)


def with_bootstrap_interval(perm: Any, boot: Any) -> Any:
    """A permutation result with the paired bootstrap's interval of the same difference (percentile or BCa,
    as ``tests.ci_method``): the p-value from the test that holds its level, the interval from the resampling
    that estimates the difference's spread."""
    extra = {**perm.extra, "ci_method": boot.extra.get("ci_method"), "ci_from": "bootstrap"}
    return dataclasses.replace(perm, ci_low=boot.ci_low, ci_high=boot.ci_high, ci_level=boot.ci_level,
                               warnings=perm.warnings + tuple(w for w in boot.warnings if "interval" in w),
                               extra=extra)


def delta_text(p: Any) -> str:
    return f"\u0394 = {p.statistic:.4g} (B = {p.extra.get('n_resamples')})"


def bootstrap_t_text(p: Any) -> str:
    return f"t = {p.statistic:.2f} (bootstrap-t, B = {p.extra.get('n_resamples')})"


def phrase(display: str, intervals: bool) -> Any:
    """'the two-sided paired bootstrap', then '(B = 1000 resamples shared by the systems, percentile intervals)'."""

    def words(side: str, tests: Mapping[str, Any]) -> tuple[str, str]:
        after = f" (B = {tests.get('resamples', '?')} resamples shared by the systems" + (
            f", {tests.get('ci_method', 'percentile')} intervals)" if intervals else ")")
        return f"the {side} {display}", after
    return words


EXTRA = (ExtraColumn(head=("text", "B"), key="n_resamples", cell="integer", decimals=None, labels=None),
         ExtraColumn(head=("text", "MC s.e. of p"), key="mc_se", cell="p", decimals=None, labels=None))
RESAMPLES = {"resamples": "B, the number of resamples"}
MDE = NONCENTRAL_T  # the closed form is the resampling tests' large-sample equivalent (analyses/power.py)


def _declare(*, name: str, display: str, options: dict[str, str], applies: tuple[str, ...], compute: Any,
             stat: tuple[Any, str], text: Any, note: str, intervals: bool) -> MethodDeclaration:
    return MethodDeclaration(
        kind="pairwise", name=name, display=display, options=options, applies=applies, compute=compute,
        record="PairwiseRecord", statistic_head=stat, estimate_head=("sym", "delta_ab"), estimate_words="difference",
        extra_columns=EXTRA, count_statistic=False, critical_count="never", has_df=False, statistic_text=text,
        notes=(note,), mde=MDE, methods_phrase=phrase(display, intervals),
        references=("noreen1989",) if name == "permutation" else ("efron1993",), citation=None,
        bibliography={}, random=True)


BOOTSTRAP = _declare(
    name="bootstrap", display="paired bootstrap", options={**RESAMPLES, "ci_method": "percentile or BCa intervals"},
    applies=("item_mean", "corpus_level", "clustered_items", "stratified_items"), compute=bootstrap,
    stat=("sym", "Delta"), text=delta_text,
    note="Paired bootstrap over items (the same resampled items for every system); two-sided "
    "p = (#{|\u0394* \u2212 \u0394| \u2265 |\u0394|} + 1)/(B + 1) (null-shifted); MC s.e. is the "
    "Monte Carlo standard error of p.", intervals=True)
BOOTSTRAP_T = _declare(
    name="bootstrap_t", display="studentized paired bootstrap (bootstrap-t)", options=RESAMPLES,
    applies=("item_mean",), compute=bootstrap_t, stat=("sym", "t"), text=bootstrap_t_text,
    note="Studentized paired bootstrap over items: t = mean(d)/SE(d) is compared with "
    "t* = (mean(d*) \u2212 mean(d))/SE(d*) of every replicate; the interval is the studentized "
    "(bootstrap-t) interval; MC s.e. is the Monte Carlo standard error of p.", intervals=False)
PERMUTATION = _declare(
    name="permutation", display="paired permutation test (approximate randomization)",
    options={**RESAMPLES, "ci_method": "the paired bootstrap interval shown beside it"},
    applies=("item_mean", "corpus_level", "clustered_items", "stratified_items"), compute=permutation,
    stat=("sym", "Delta"), text=delta_text,
    note="Approximate randomization: the two systems' outputs are swapped per item at random; "
    "p = (#{|\u0394perm| \u2265 |\u0394|} + 1)/(B + 1), exact enumeration when 2^n \u2264 B. "
    "A randomization test has no interval: the interval shown is the paired bootstrap's, over the "
    "same items.", intervals=False)

DECLARATIONS = (BOOTSTRAP, BOOTSTRAP_T, PERMUTATION)
