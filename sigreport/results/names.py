"""Display names of every test, correction and procedure a report names: one table, read by the views, the
figures, the conclusions, the release index and the diff alike, so that a test is spelled one way everywhere.

Keys are the method names results.json records (``method`` of a record); :data:`METHOD_NAMES` groups them by
record kind because a key can mean two tests (``holm`` is a correction of a pairwise family and a step-down
post-hoc test on ranks; ``paired_t`` is one pairwise test or a family of post-hoc tests).
"""

from __future__ import annotations

from sigreport.stats import registry
from sigreport.stats.declaration import ALL_KINDS
from sigreport.stats.methods.classification import MCNEMAR_VARIANTS

AUTO_NAME = "automatic choice"  # tests.pairwise: auto, before the data choose
PAIRWISE_NAMES: dict[str, str] = {**{d.name: d.display for d in registry.methods("pairwise")},
                                  **{d.name: d.display for d in registry.methods("cv")}, "auto": AUTO_NAME}
"""Pairwise and cross-validation tests' display names: a view of their declarations (:mod:`sigreport.stats.registry`)."""
POSTHOC_NAMES: dict[str, str] = {d.name: d.display for d in registry.methods("posthoc")}
COCHRAN_Q_NAME: str = registry.method("cochran_q", "cochran_q").display
MCNEMAR_NAME: str = registry.method("mcnemar", "mcnemar").display
OMNIBUS_NAMES: dict[str, str] = {**{d.name: d.display for d in registry.methods("omnibus")},
                                 "cochran_q": COCHRAN_Q_NAME}
BAYESIAN_NAMES: dict[str, str] = {d.name: d.display for d in registry.methods("bayesian")}
CORRECTION_NAMES: dict[str, str] = {d.name: d.display for d in registry.methods("correction")}
"""The corrections' display names: a view of their declarations (:mod:`sigreport.stats.methods.corrections`)."""
SPHERICITY_NAMES: dict[str, str] = {d.name: d.display for d in registry.methods("sphericity")}
"""The sphericity corrections' display names: a view of their declarations (:mod:`sigreport.stats.methods.procedures`)."""
AGREEMENT_NAMES: dict[str, str] = {d.name: d.display for d in registry.methods("agreement")}
"""The agreement measures' display names: a view of their declarations (:mod:`sigreport.stats.methods.agreement`)."""

METHOD_NAMES: dict[str, dict[str, str]] = {
    "pairwise": PAIRWISE_NAMES, "cv": PAIRWISE_NAMES, "posthoc": POSTHOC_NAMES, "omnibus": OMNIBUS_NAMES,
    "cochran_q": {"cochran_q": COCHRAN_Q_NAME}, "bayesian": BAYESIAN_NAMES,
    "mcnemar": {m: MCNEMAR_NAME for m in MCNEMAR_VARIANTS},  # its record's method is the variant asked
    "runs": {"aso": "almost stochastic order over the training runs"},
    "preferences": {d.name: d.display for d in registry.methods("preferences")},
}
"""Record kind -> method -> display name (the one table)."""

NAME_CITATIONS: dict[tuple[str, str], str] = {
    **{d.key: d.citation for kind in ALL_KINDS for d in registry.methods(kind) if d.citation},
    ("runs", "aso"): "Dror et al. 2019"}
"""(kind, method) -> the in-text citation a display name carries where nothing else cites the test (a view's
heading, a conclusion): these names do not say whose test it is. Kept apart from the names so that the methods
paragraph, which cites every test once through its reference list, names them without it."""


def correction_name(name: str) -> str:
    """The display name of correction ``name`` ("Holm"); :class:`~sigreport.stats.registry.UnknownMethod` naming
    the declared ones for any other (a correction is built in: results.json never records an undeclared one)."""
    return registry.method("correction", name).display


def sphericity_name(name: str) -> str:
    """The display name of sphericity correction ``name`` ("Greenhouse-Geisser"); :class:`~sigreport.stats.registry.
    UnknownMethod` naming the declared ones for any other (no fallback to the key)."""
    return registry.method("sphericity", name).display


def agreement_name(measure: str) -> str:
    """The display name of agreement measure ``measure`` ("Fleiss' kappa"); :class:`~sigreport.stats.registry.
    UnknownMethod` naming the declared ones for any other (no fallback to the key)."""
    return registry.method("agreement", measure).display


def test_name(kind: str, method: str | None, cited: bool = True) -> str:
    """The display name of the test a record of ``kind`` ran with ``method``; ``cited``: followed by its
    citation of :data:`NAME_CITATIONS` (or its declaration's), "(Rubin 1981)", when it has one.

    A pairwise or cross-validation test is its declaration's name. A name no table knows is shown as the key
    itself: that happens only to a results.json read back (the diff, the archive) whose method came from a
    plugin not installed here, or from a later sigreport; a build never meets it (its methods are declared)."""
    if kind == "cochran_q":
        return COCHRAN_Q_NAME
    if kind in ("pairwise", "cv") and method is not None and method != "auto" and method in registry.names(kind):
        d = registry.method(kind, method)
        return f"{d.display} ({d.citation})" if cited and d.citation else d.display
    name = METHOD_NAMES.get(kind, {}).get(str(method), str(method))
    cite = NAME_CITATIONS.get((kind, str(method))) if cited else None
    return f"{name} ({cite})" if cite else name
