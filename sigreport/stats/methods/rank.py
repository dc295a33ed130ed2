"""The Wilcoxon signed-ranks test (Wilcoxon 1945) and the sign test (Dixon and Mood 1946):
:func:`sigreport.stats.rank.wilcoxon`, :func:`sigreport.stats.rank.sign_test`."""

from __future__ import annotations

import math
from typing import Any

from sigreport.stats.declaration import ExtraColumn, MdeRule, MethodDeclaration, PairwiseInput, plain_phrase


def wilcoxon(inp: PairwiseInput) -> tuple[list[Any], list[str]]:
    from sigreport.stats import rank

    t, x = inp.tests, inp.scores
    return [rank.wilcoxon(x[:, i], x[:, j], inp.alternative, t.zero_method, inp.decimals, inp.alpha, mode=t.wilcoxon,
                          correction=t.continuity_correction, ci_level=inp.ci_level) for i, j in inp.pairs], []


def sign(inp: PairwiseInput) -> tuple[list[Any], list[str]]:
    from sigreport.stats import rank

    x = inp.scores
    return [rank.sign_test(x[:, i], x[:, j], inp.alternative, inp.decimals, inp.alpha, inp.ci_level)
            for i, j in inp.pairs], []


def wilcoxon_pvalues(d: Any, alternative: str) -> Any:
    from sigreport.stats import power

    return power.wilcoxon_pvalues(d, alternative)


def sign_pvalues(d: Any, alternative: str) -> Any:
    from sigreport.stats import power

    return power.sign_pvalues(d, alternative)


def wilcoxon_text(p: Any) -> str:
    z = p.extra.get("z")
    return f"T = {p.statistic:g}" + (f", z = {z:.2f}" if z is not None else " (exact)")


def sign_text(p: Any) -> str:
    return f"{p.extra.get('wins')} wins, {p.extra.get('losses')} losses, {p.extra.get('ties')} ties"


def _count(head: str, key: str) -> ExtraColumn:
    return ExtraColumn(head=("text", head), key=key, cell="integer", decimals=None, labels=None)


WILCOXON = MethodDeclaration(
    kind="pairwise", name="wilcoxon", display="Wilcoxon signed-ranks test",
    options={"zero_method": "how zero differences enter the ranks", "wilcoxon": "exact or normal p-values",
             "continuity_correction": "the normal approximation's continuity correction"},
    applies=("item_mean",), compute=wilcoxon, record="PairwiseRecord", statistic_head=("sym", "T"),
    estimate_head=("text", "HL estimate"), estimate_words="Hodges-Lehmann estimate",
    extra_columns=(ExtraColumn(head=("sym", "z"), key="z", cell="statistic", decimals=None, labels=None),
                   ExtraColumn(head=("sym", "R_plus"), key="r_plus", cell="number", decimals=1, labels=None),
                   ExtraColumn(head=("sym", "R_minus"), key="r_minus", cell="number", decimals=1, labels=None),
                   ExtraColumn(head=("text", "p from"), key="exact", cell="flag", decimals=None,
                               labels=("exact", "normal approx."))),
    count_statistic=True, critical_count="when_exact", has_df=False, statistic_text=wilcoxon_text,
    notes=("T = min(R+, R\u2212); crit is the critical T when p is exact, the critical z under the normal "
           "approximation; the estimate is the Hodges-Lehmann pseudo-median of the differences; "
           "effect size is the rank-biserial correlation (R+ \u2212 R\u2212)/(R+ + R\u2212).",),
    mde=MdeRule(rule="simulation", reason=None, pvalues=wilcoxon_pvalues, efficiency=3 / math.pi),
    methods_phrase=plain_phrase("Wilcoxon signed-ranks test"), references=("wilcoxon1945",), citation=None, bibliography={},
    random=False)

SIGN = MethodDeclaration(
    kind="pairwise", name="sign", display="sign test", options={}, applies=("item_mean",), compute=sign,
    record="PairwiseRecord", statistic_head=("text", "wins"), estimate_head=("text", "Median diff."),
    estimate_words="median difference",
    extra_columns=(_count("W", "wins"), _count("L", "losses"), _count("T", "ties")),
    count_statistic=True, critical_count="always", has_df=False, statistic_text=sign_text,
    notes=("W, L, T: items where a wins, loses, ties (ties split evenly between wins and losses, one dropped "
           "when odd, as Dem\u0161ar 2006).",),
    mde=MdeRule(rule="simulation", reason=None, pvalues=sign_pvalues, efficiency=2 / math.pi),
    methods_phrase=plain_phrase("sign test"), references=("dixon1946",), citation=None, bibliography={},
    random=False)

DECLARATIONS = (WILCOXON, SIGN)
