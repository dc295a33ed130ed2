"""The paired t test (Student 1908): :func:`sigreport.stats.pairwise.paired_t_family` (a leaderboard of more
than 40 systems: :func:`sigreport.stats.leaderboard.paired_t_family`, from the systems' covariance matrix); with
clusters the clustered paired t (CR1 standard error, t on G - 1 df; Liang and Zeger 1986):
:func:`sigreport.stats.cluster.paired_t_family`."""

from __future__ import annotations

from typing import Any

from sigreport.stats.declaration import NONCENTRAL_T, ExtraColumn, MethodDeclaration, PairwiseInput, plain_phrase


def compute(inp: PairwiseInput) -> tuple[list[Any], list[str]]:
    from sigreport.stats import leaderboard, pairwise

    if inp.clusters is not None:
        return clustered(inp), []
    if inp.strata is not None:
        return stratified(inp), []
    if leaderboard.is_leaderboard(len(inp.systems), inp.scores.shape[0]) and inp.pairs:
        x = inp.scores
        moments = leaderboard.moments_of(inp.differences) if inp.differences is not None else \
            leaderboard.difference_moments(x, [i for i, _ in inp.pairs], [j for _, j in inp.pairs])
        return leaderboard.paired_t_family(x, list(inp.pairs), inp.alternative, inp.alpha, inp.ci_level,
                                           moments), []
    return pairwise.paired_t_family(inp.scores, list(inp.pairs), inp.alternative, inp.alpha, inp.ci_level,
                                    differences=inp.differences), []


def clustered(inp: PairwiseInput) -> list[Any]:
    """The clustered paired t test (CR1 standard error of the mean difference, t on G - 1 df):
    :func:`sigreport.stats.cluster.paired_t_family`."""
    from sigreport.stats import cluster

    g, G = inp.clusters  # type: ignore[misc]
    shapiro = [d.shapiro_pvalue for d in inp.differences] if inp.differences is not None else None
    return cluster.paired_t_family(inp.scores, list(inp.pairs), g, G, inp.alternative, inp.alpha, inp.ci_level,
                                   shapiro=shapiro)


def stratified(inp: PairwiseInput) -> list[Any]:
    """The paired t of a macro average over strata (Welch-Satterthwaite df):
    :func:`sigreport.stats.strata.paired_t_family`."""
    from sigreport.stats import strata

    s, S = inp.strata  # type: ignore[misc]
    shapiro = [d.shapiro_pvalue for d in inp.differences] if inp.differences is not None else None
    return strata.paired_t_family(inp.scores, list(inp.pairs), s, S, inp.alternative, inp.alpha, inp.ci_level,
                                  shapiro=shapiro)


def t_text(p: Any) -> str:
    """'t(2) = 6.38' (a t statistic with its degrees of freedom; without them, the bare statistic)."""
    if p.df is not None:
        return f"t({p.df:g}) = {p.statistic:.2f}"
    return f"statistic = {p.statistic:.3g}"


PAIRED_T = MethodDeclaration(
    kind="pairwise", name="paired_t", display="paired t test", options={},
    applies=("item_mean", "clustered_items", "stratified_items"),
    compute=compute, record="PairwiseRecord", statistic_head=("sym", "t"), estimate_head=("sym", "mean_diff"),
    estimate_words="mean difference",
    extra_columns=(ExtraColumn(head=("text", "Shapiro-Wilk p"), key="shapiro_pvalue", cell="p", decimals=None,
                               labels=None),),
    count_statistic=False, critical_count="never", has_df=True, statistic_text=t_text, notes=(),
    mde=NONCENTRAL_T, methods_phrase=plain_phrase("paired t test"), references=("student1908",), citation=None, bibliography={},
    random=False)

DECLARATIONS = (PAIRED_T,)
