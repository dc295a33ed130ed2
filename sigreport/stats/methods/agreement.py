"""The agreement measures of annotators (kind ``agreement``, ``agreement.measures``): each measure's spec value,
display name, options, where it applies, references and record. The computation is
:mod:`sigreport.stats.agreement` (Cohen's and weighted kappa, Fleiss' kappa, Krippendorff's alpha), run by
``sigreport.analyses.labels``, which asks :func:`sigreport.stats.registry.method` for the measure first, so an
undeclared one raises :class:`~sigreport.stats.registry.UnknownMethod` instead of falling through.

References: the methods paragraph cites each measure's ``references`` ("chance-corrected kappa (Cohen 1960)").
The measures' own works (Cohen 1968, Fleiss 1971, Krippendorff 2011, Gwet 2014) are named in their tables' notes;
citing them in the paragraph too would add bibliography entries to every report with agreement."""

from __future__ import annotations

from sigreport.stats.declaration import ProcedureDeclaration, no_mde

NO_MDE = no_mde("an agreement coefficient is an estimate with its interval, not a test of a difference")
RESAMPLES = {"agreement.resamples": "the bootstrap resamples of its percentile interval over items"}
KAPPA_OPTIONS = {**RESAMPLES, "agreement.systems_vs_gold": "also each system's predictions against gold"}


def _declare(name: str, display: str, options: dict[str, str], applies: tuple[str, ...]) -> ProcedureDeclaration:
    """``random``: its bootstrap interval draws from the seed (``agreement.resamples`` is at least 99)."""
    return ProcedureDeclaration(kind="agreement", name=name, spec_name=name, display=display, options=options,
                                applies=applies, record="AgreementRecord", compute=None, mde=NO_MDE,
                                references=("cohen1960",), citation=None, bibliography={}, random=True)


KAPPA_APPLIES = ("annotations", "predictions_vs_gold")
ORDER = {"agreement.order": "the labels' order, lowest first (its weights)"}
DECLARATIONS = (
    _declare("cohen_kappa", "Cohen's kappa", KAPPA_OPTIONS, KAPPA_APPLIES),
    _declare("weighted_kappa_linear", "Weighted kappa (linear weights)", {**KAPPA_OPTIONS, **ORDER}, KAPPA_APPLIES),
    _declare("weighted_kappa_quadratic", "Weighted kappa (quadratic weights)", {**KAPPA_OPTIONS, **ORDER},
             KAPPA_APPLIES),
    _declare("fleiss_kappa", "Fleiss' kappa", RESAMPLES, ("annotations",)),
    _declare("krippendorff_alpha", "Krippendorff's alpha",
             {**RESAMPLES, "agreement.level": "the labels' measurement level (its distance)"}, ("annotations",)),
)
"""In the spec's order (``agreement.measures``)."""
