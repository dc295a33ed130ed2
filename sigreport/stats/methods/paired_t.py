"""The paired t test (Student 1908): :func:`sigreport.stats.pairwise.paired_t_family`."""

from __future__ import annotations

from typing import Any

from sigreport.stats.declaration import NONCENTRAL_T, ExtraColumn, MethodDeclaration, PairwiseInput, plain_phrase


def compute(inp: PairwiseInput) -> tuple[list[Any], list[str]]:
    from sigreport.stats import pairwise

    return pairwise.paired_t_family(inp.scores, list(inp.pairs), inp.alternative, inp.alpha, inp.ci_level,
                                    differences=inp.differences), []


def t_text(p: Any) -> str:
    """'t(2) = 6.38' (a t statistic with its degrees of freedom; without them, the bare statistic)."""
    if p.df is not None:
        return f"t({p.df:g}) = {p.statistic:.2f}"
    return f"statistic = {p.statistic:.3g}"


PAIRED_T = MethodDeclaration(
    kind="pairwise", name="paired_t", display="paired t test", options={}, applies=("item_mean",),
    compute=compute, record="PairwiseRecord", statistic_head=("sym", "t"), estimate_head=("sym", "mean_diff"),
    estimate_words="mean difference",
    extra_columns=(ExtraColumn(head=("text", "Shapiro-Wilk p"), key="shapiro_pvalue", cell="p", decimals=None,
                               labels=None),),
    count_statistic=False, critical_count="never", has_df=True, statistic_text=t_text, notes=(),
    mde=NONCENTRAL_T, methods_phrase=plain_phrase("paired t test"), references=("student1908",), citation=None, bibliography={})

DECLARATIONS = (PAIRED_T,)
