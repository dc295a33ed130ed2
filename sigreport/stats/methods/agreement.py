"""The agreement measures of annotators (kind ``agreement``, ``agreement.measures``): each measure's spec value,
display name, options, where it applies, references, record and ``compute`` (an
:class:`~sigreport.stats.declaration.AgreementInput` -> the call of :mod:`sigreport.stats.agreement`: a kappa of
two raters, or every pair's kappa of three or more; Fleiss' kappa; Krippendorff's alpha). ``sigreport.analyses.labels``
asks :func:`sigreport.stats.registry.method` for the measure and calls its ``compute``, so an undeclared one raises
:class:`~sigreport.stats.registry.UnknownMethod` instead of falling through.

References: the methods paragraph cites each measure's ``references`` ("chance-corrected kappa (Cohen 1960)").
The measures' own works (Cohen 1968, Fleiss 1971, Krippendorff 2011, Gwet 2014) are named in their tables' notes;
citing them in the paragraph too would add bibliography entries to every report with agreement."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sigreport.stats.declaration import AgreementInput, ProcedureDeclaration, no_mde

NO_MDE = no_mde("an agreement coefficient is an estimate with its interval, not a test of a difference")
RESAMPLES = {"agreement.resamples": "the bootstrap resamples of its percentile interval over items"}
KAPPA_OPTIONS = {**RESAMPLES, "agreement.systems_vs_gold": "also each system's predictions against gold"}


KAPPA_WEIGHTS: dict[str, str | None] = {"cohen_kappa": None, "weighted_kappa_linear": "linear",
                                        "weighted_kappa_quadratic": "quadratic"}
"""The two-rater kappas (a pair's agreement matrix and null test) and their weights."""


def kappa(name: str) -> Callable[[AgreementInput], Any]:
    """The kappa ``name`` with its weights (:data:`KAPPA_WEIGHTS`): of two raters one result, of three or more
    every pair's (columns i < j in order, one generator feeding their bootstraps in turn)."""
    weights = KAPPA_WEIGHTS[name]

    def compute(inp: AgreementInput) -> Any:
        from sigreport.stats import agreement as agr

        x = inp.ratings
        if x.shape[1] == 2:
            return agr.cohen_kappa(r1=x[:, 0], r2=x[:, 1], n_labels=inp.n_labels, weights=weights,
                                   annotators=(inp.annotators[0], inp.annotators[1]), alpha_ci=inp.alpha_ci,
                                   n_resamples=inp.resamples, seed=inp.seed, labels=inp.labels)
        return agr.pairwise_kappa_matrix(x, inp.n_labels, weights, inp.annotators, inp.alpha_ci, inp.resamples,
                                         inp.seed, inp.labels)

    return compute


def fleiss(inp: AgreementInput) -> Any:
    """Fleiss' kappa over every rater."""
    from sigreport.stats import agreement as agr

    return agr.fleiss_kappa(inp.ratings, inp.n_labels, inp.annotators, inp.alpha_ci, inp.resamples, inp.seed,
                            inp.labels)


def krippendorff(inp: AgreementInput) -> Any:
    """Krippendorff's alpha at ``agreement.level``: on the labels' values at the interval level when they have
    them, else on their codes."""
    import numpy as np

    from sigreport.stats import agreement as agr

    x = inp.ratings
    if inp.level == "interval" and inp.values is not None:
        vals = np.asarray(inp.values, dtype=float)
        ratings = np.where(x >= 0, vals[np.clip(x, 0, None)], np.nan)
        return agr.krippendorff_alpha(ratings, "interval", values=vals, annotators=inp.annotators,
                                      alpha_ci=inp.alpha_ci, n_resamples=inp.resamples, seed=inp.seed)
    ratings = np.where(x >= 0, x, np.nan).astype(float)
    return agr.krippendorff_alpha(ratings, inp.level, n_labels=inp.n_labels, annotators=inp.annotators,
                                  alpha_ci=inp.alpha_ci, n_resamples=inp.resamples, seed=inp.seed)


def _declare(name: str, display: str, options: dict[str, str], applies: tuple[str, ...],
             compute: Callable[[AgreementInput], Any]) -> ProcedureDeclaration:
    """``random``: its bootstrap interval draws from the seed (``agreement.resamples`` is at least 99)."""
    return ProcedureDeclaration(kind="agreement", name=name, spec_name=name, display=display, options=options,
                                applies=applies, record="AgreementRecord", compute=compute, mde=NO_MDE,
                                references=("cohen1960",), citation=None, bibliography={}, random=True)


KAPPA_APPLIES = ("annotations", "predictions_vs_gold")
ORDER = {"agreement.order": "the labels' order, lowest first (its weights)"}
DECLARATIONS = (
    _declare("cohen_kappa", "Cohen's kappa", KAPPA_OPTIONS, KAPPA_APPLIES, kappa("cohen_kappa")),
    _declare("weighted_kappa_linear", "Weighted kappa (linear weights)", {**KAPPA_OPTIONS, **ORDER}, KAPPA_APPLIES,
             kappa("weighted_kappa_linear")),
    _declare("weighted_kappa_quadratic", "Weighted kappa (quadratic weights)", {**KAPPA_OPTIONS, **ORDER},
             KAPPA_APPLIES, kappa("weighted_kappa_quadratic")),
    _declare("fleiss_kappa", "Fleiss' kappa", RESAMPLES, ("annotations",), fleiss),
    _declare("krippendorff_alpha", "Krippendorff's alpha",
             {**RESAMPLES, "agreement.level": "the labels' measurement level (its distance)"}, ("annotations",),
             krippendorff),
)
"""In the spec's order (``agreement.measures``)."""
