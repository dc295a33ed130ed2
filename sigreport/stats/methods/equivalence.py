"""Equivalence (TOST) and non-inferiority beside the paired t test, when a metric has a margin
(:mod:`sigreport.stats.equivalence`; Schuirmann 1987, Lakens 2017, Wellek 2010).

t-based only: the two one-sided tests read the paired t test's mean difference, its SE and df (so they
match statsmodels' ``ttost_paired`` and R's one-sided ``t.test``). A margin on a metric tested with another
pairwise method is refused by the spec (``metrics.M.margin``), not approximated.
"""

from __future__ import annotations

from typing import Any

from sigreport.stats.declaration import EquivalenceDeclaration


def compute(estimate: list[float | None], se: list[float | None], df: list[float | None], margin: float,
            alpha: float, higher_is_better: bool) -> list[Any]:
    from sigreport.stats.equivalence import equivalence_results

    return equivalence_results(estimate, se, df, margin, alpha, higher_is_better)


def sentence(alpha: float, margins: str) -> str:
    return (f"With a margin of equivalence ({margins}), each pair was also tested for equivalence by two one-sided "
            f"t tests (TOST: the difference within plus or minus the margin; p the larger one-sided p-value; "
            f"interval at {1 - 2 * alpha:.0%}, 1 - 2 alpha) and for non-inferiority (the first system, or the system "
            f"compared with the baseline, not worse by more than the margin; one-sided at alpha = {alpha:g}), both "
            "corrected over the family as the pairwise tests")


TOST = EquivalenceDeclaration(
    name="tost", display="equivalence (TOST) and non-inferiority t tests", methods=("paired_t",), compute=compute,
    interval="the two-sided 1 - 2 alpha interval of the mean difference (its ends: the one-sided 1 - alpha bounds)",
    methods_sentence=sentence, references=("schuirmann1987", "lakens2017", "wellek2010"))

DECLARATIONS = (TOST,)
