"""What sigreport knows about a method, written once: :class:`MethodDeclaration`.

A method's spec name, its options, where it applies, the function that computes it, its record kind, its
display name, the heads of its table, its minimum-detectable-difference rule, its methods-paragraph phrase and
its references live in one frozen object, declared beside the method (a built-in's in
:mod:`sigreport.stats.methods`, a plugin's in its own module) and collected by :mod:`sigreport.stats.registry`.
The spec's allowed values and JSON Schema, the analysis dispatch, the views, LaTeX, the methods paragraph, the
power step and ``sigreport methods`` all read the declarations, so a method someone forgets to describe fails
:func:`check` (and the test that runs it over the registry) instead of printing "Statistic".

Every field is required (no default hides a missing value). Heads are plain data, ``("sym", "t")`` or
``("text", "HL estimate")``: the renderer maps them to its cells, and this module stays below it (no numpy
either: the spec imports the registry, and ``sigreport schema`` imports neither numpy nor scipy).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import numpy as np

    from sigreport.stats.result import PairedTestResult

Kind = Literal["pairwise", "cv"]
KINDS: tuple[str, ...] = ("pairwise", "cv")
"""The kinds of method a :class:`MethodDeclaration` can be (the record kind of the family it gives): the ones
whose computation is the declaration's (and a plugin's)."""
ProcedureKind = Literal["omnibus", "posthoc", "bayesian", "preferences", "correction", "mcnemar", "cochran_q",
                        "sphericity", "agreement"]
PROCEDURE_KINDS: tuple[str, ...] = ("omnibus", "posthoc", "bayesian", "preferences", "correction", "mcnemar",
                                    "cochran_q", "sphericity", "agreement")
"""The kinds a :class:`ProcedureDeclaration` describes (built in only, not open to plugins yet): their names,
references, options and records are declared. ``omnibus``, ``posthoc`` and ``correction`` also declare their
computation (``compute``: :class:`OmnibusInput`, :class:`PosthocInput`, or (p-values) -> adjusted p-values) and
their spec value (``spec_name``); the others' computation is still run by ``sigreport.analyses``.
``preferences``: models of pairwise preference votes (``data.preferences``: Bradley-Terry); ``correction``: the
multiple-comparison corrections of a family (``tests.correction``); ``mcnemar`` and ``cochran_q``: the
classification tests on per-item correctness; ``sphericity``: the RM-ANOVA's sphericity corrections
(``tests.sphericity``, applied by the ``rm_anova`` declaration's compute); ``agreement``: the agreement measures
of annotators (``agreement.measures``; ``compute``: :class:`AgreementInput` -> its result)."""
OUTSIDE_TESTS: tuple[str, ...] = ("mcnemar", "cochran_q", "agreement")
"""The kinds whose options are spec paths from the top (``classification.mcnemar``), not under ``tests``."""
COMPUTED_KINDS: tuple[str, ...] = ("omnibus", "posthoc", "correction", "agreement")
"""The procedure kinds whose declaration's ``compute`` the analyses call (and whose spec values it gives)."""
SPEC_VALUED_KINDS: tuple[str, ...] = COMPUTED_KINDS + ("sphericity",)
"""The procedure kinds whose declarations give the spec's values (``spec_name``); ``sphericity`` without a
``compute`` of its own (the RM-ANOVA's compute applies the correction)."""
ALL_KINDS: tuple[str, ...] = KINDS + PROCEDURE_KINDS

Head = tuple[Literal["sym", "text"], str]
"""A column head: a symbol of :data:`sigreport.render.model.SYMBOLS` ("t", "delta_ab", ...) or plain text."""

APPLIES = ("item_mean", "corpus_level", "folds", "corpora", "clustered_items", "stratified_items", "preference_votes",
           "item_correctness", "family", "annotations", "predictions_vs_gold")
"""Where a method applies: a mean of per-item scores, a corpus-level metric (computed from summed per-item
statistics: only resampling tests), cross-validation folds, one score per corpus (``tests.level: corpora``),
items in clusters (``data.columns.cluster``: the method reads ``PairwiseInput.clusters`` or resamples through
``PairwiseInput.resample``, which then draws whole clusters; a method without it is refused with clusters), a
macro average over strata (``metrics.M.average: macro``: the method reads ``PairwiseInput.strata`` or resamples
through ``PairwiseInput.resample``, which then resamples within strata), pairwise preference votes
(``data.preferences``), each item's correctness of a classifier (``tests.classification``: McNemar, Cochran's Q),
the p-values of a family of comparisons (a correction, ``tests.family``), the labels of two or more annotators
(``data.annotations``: an agreement measure), each system's predicted labels against gold
(``agreement.systems_vs_gold``)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class ExtraColumn:
    """A column of a method's own per-pair values (a field of the pair's ``extra`` in results.json)."""

    head: Head
    key: str
    cell: Literal["p", "statistic", "integer", "df", "number", "flag"]
    decimals: int | None  # "number": its decimals
    labels: tuple[str, str] | None  # "flag": the text when true, when false


@dataclasses.dataclass(frozen=True, kw_only=True)
class MdeRule:
    """How ``tests.power`` finds a pair's minimum detectable difference for this method.

    ``noncentral_t``: the paired t test's closed form with the SD of the pair's differences; ``simulation``: a
    seeded simulation from the pair's differences with ``pvalues`` (``pvalues(d, alternative)`` over simulated
    data sets, rows), or beyond the budget the closed form over the square root of ``efficiency`` (the test's
    asymptotic relative efficiency to the t test); ``none``: no MDE, for the stated ``reason``."""

    rule: Literal["noncentral_t", "simulation", "none"]
    reason: str | None
    pvalues: Callable[..., Any] | None
    efficiency: float | None

    def text(self) -> str:
        return f"none: {self.reason}" if self.rule == "none" else self.rule

    @property
    def random(self) -> bool:
        """Whether the MDE depends on the seed (a simulation's data sets are drawn from it)."""
        return self.rule == "simulation"


NONCENTRAL_T = MdeRule(rule="noncentral_t", reason=None, pvalues=None, efficiency=None)


def no_mde(reason: str) -> MdeRule:
    return MdeRule(rule="none", reason=reason, pvalues=None, efficiency=None)


@dataclasses.dataclass(frozen=True, kw_only=True)
class PairwiseInput:
    """What a pairwise test is given: one metric on one corpus, every pair of its family.

    ``scores``: items x systems (a corpus-level metric's per-item values are not meaningful: use ``stats``
    and ``aggregate``); ``tests``: the spec's ``tests`` options by name (a method reads the ones it declares in
    ``options``); ``resample(method, **options)``: the corpus's shared bootstrap or permutation replicates run
    through :func:`sigreport.stats.resampling.paired_resampling` (the seed contract of docs/methods.md),
    systems named; ``differences``: each pair's SD, SE and Shapiro-Wilk, computed once (None for a
    corpus-level metric); ``seed``: this analysis's own seed; ``clusters``: each item's cluster code (0..G-1)
    and G when the data has ``data.columns.cluster``, else None (then ``resample`` resamples whole clusters);
    ``strata``: each item's stratum code (0..S-1) and S for a macro average (``metrics.M.average: macro``), else
    None (then ``resample`` gives the macro average's replicates, bootstrap counts drawn within strata)."""

    scores: np.ndarray
    stats: np.ndarray
    aggregate: Any
    systems: tuple[str, ...]
    pairs: tuple[tuple[int, int], ...]
    alternative: str
    alpha: float
    ci_level: float
    decimals: int
    corpus_level: bool
    tests: Any
    seed: int
    differences: Sequence[Any] | None
    resample: Callable[..., Any]
    clusters: tuple[np.ndarray, int] | None
    strata: tuple[np.ndarray, int] | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class CVInput:
    """What a cross-validation test is given for one pair: both systems' per-fold scores in data order,
    ``grid`` (repeats x folds of row indices, or None when the folds do not form a full grid, with the counts
    of repeats and folds found), the train and test sizes when known, the alternative, alpha and level."""

    a: np.ndarray
    b: np.ndarray
    grid: np.ndarray | None
    repeats: int
    folds: int
    sizes: tuple[float, float] | None
    alternative: str
    alpha: float
    ci_level: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class OmnibusInput:
    """What an omnibus test is given: items x systems, the metric's direction (the ranks), the spec's
    ``tests.tie_correction``, ``tests.sphericity`` and ``tests.mauchly_p``, and alpha (Mauchly's test)."""

    scores: np.ndarray
    higher_is_better: bool
    tie_correction: bool
    sphericity: str
    mauchly_p: str
    alpha: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class PosthocInput:
    """What a post-hoc test is given: the systems' average ranks and the number of items (the rank tests), the
    control system's index (None: all pairs), alpha; the scores, pairs, alternative and level (paired tests)."""

    ranks: np.ndarray | None
    n: int
    control: int | None
    alpha: float
    scores: np.ndarray
    pairs: tuple[tuple[int, int], ...]
    alternative: str
    ci_level: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class AgreementInput:
    """What an agreement measure is given: ``ratings`` items x raters of label codes (-1: not rated), the number
    of labels and their names, the raters' names, each label's value (an interval level's, else None), the
    measurement level (``agreement.level``), 1 - the interval level, the bootstrap resamples and the seed (or
    the generator a caller shares over several calls)."""

    ratings: np.ndarray
    n_labels: int
    labels: tuple[str, ...]
    annotators: tuple[str, ...]
    values: Sequence[float] | None
    level: str
    alpha_ci: float
    resamples: int
    seed: Any  # int | np.random.Generator


@dataclasses.dataclass(frozen=True, kw_only=True)
class MethodDeclaration:
    """One method, everything sigreport knows about it (see the module docstring)."""

    kind: Kind
    name: str
    display: str
    options: Mapping[str, str]  # spec option (tests.<name>) -> what it does for this method
    applies: tuple[str, ...]  # of APPLIES
    compute: Callable[..., Any]  # pairwise: (PairwiseInput) -> (results, warnings); cv: (CVInput) -> CVTestResult
    record: str  # the class of its record (results.records): "PairwiseRecord" for a pairwise or CV family
    statistic_head: Head
    estimate_head: Head
    estimate_words: str  # the estimate in a sentence: "mean difference", "Hodges-Lehmann estimate"
    extra_columns: tuple[ExtraColumn, ...]
    count_statistic: bool  # statistic is a count or a rank sum (shown as an integer)
    critical_count: Literal["always", "when_exact", "never"]  # when the critical value is a count too
    has_df: bool  # its statistic has degrees of freedom (the df column; "t(df) = ...")
    statistic_text: Callable[[Any], str]  # (a pair's test result) -> "t(2) = 6.38", for the plain sentences
    notes: tuple[str, ...]  # notes under its table
    mde: MdeRule
    methods_phrase: Callable[[str, Mapping[str, Any]], tuple[str, str]]  # (side, tests) -> (before cite, after)
    references: tuple[str, ...]  # bibliography keys (render.views.methods.REFERENCES, or this one's bibliography)
    bibliography: Mapping[str, tuple[str, str, str]]  # entries it adds: key -> (in-text, full text, BibTeX entry)
    citation: str | None  # in-text citation its display name carries where nothing else cites it; None: none
    random: bool  # its result depends on the seed (resamples, random swaps): the methods paragraph states the seed

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.name)


@dataclasses.dataclass(frozen=True, kw_only=True)
class ProcedureDeclaration:
    """An omnibus, post-hoc or Bayesian procedure: what the report, the methods paragraph, results.json's
    reading and ``sigreport methods`` know of it (see :data:`PROCEDURE_KINDS`)."""

    kind: ProcedureKind
    name: str  # the method results.json records
    spec_name: str | None  # its value in the spec (tests.omnibus, .posthoc, .correction, .sphericity,
    # agreement.measures); None: not one
    display: str
    options: Mapping[str, str]
    applies: tuple[str, ...]
    record: str  # the class of its record (results.records): "PosthocRecord", "PairwiseRecord", ...
    compute: Callable[..., Any] | None  # COMPUTED_KINDS: the one call of the procedure; None for the others
    mde: MdeRule
    references: tuple[str, ...]
    citation: str | None
    bibliography: Mapping[str, tuple[str, str, str]]
    random: bool  # its result depends on the seed (bootstrap intervals, posterior samples), as MethodDeclaration's

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.name)


Declaration = MethodDeclaration | ProcedureDeclaration

REQUIRED_NONEMPTY = ("kind", "name", "display", "applies", "record", "statistic_head", "estimate_head",
                     "estimate_words", "references")
"""Fields that must not be empty (options, extra columns and notes may be: a test without options)."""


def check(d: Declaration, references: Sequence[str] | None = None) -> list[str]:
    """What is wrong with declaration ``d``: an empty field, an unknown kind or place, a head that is not a
    pair, a reference not in ``references`` (the bibliography's keys, when given)."""
    if isinstance(d, ProcedureDeclaration):
        return _check_procedure(d, references)
    where = f"{d.kind}/{d.name}" if isinstance(d, MethodDeclaration) else repr(d)
    if not isinstance(d, MethodDeclaration):
        return [f"{where}: not a MethodDeclaration"]
    bad = []
    for f in dataclasses.fields(d):
        value = getattr(d, f.name)
        if f.name in REQUIRED_NONEMPTY and (value is None or value == "" or value == ()):
            bad.append(f"{where}: {f.name} is empty")
    if d.kind not in KINDS:
        bad.append(f"{where}: kind {d.kind!r} is not one of {', '.join(KINDS)}")
    if not re.fullmatch(r"[a-z0-9_]+", d.name):
        bad.append(f"{where}: name {d.name!r} is not a spec name")
    bad += [f"{where}: applies to {a!r}, not one of {', '.join(APPLIES)}" for a in d.applies if a not in APPLIES]
    for head in (d.statistic_head, d.estimate_head, *(c.head for c in d.extra_columns)):
        if not (isinstance(head, tuple) and len(head) == 2 and head[0] in ("sym", "text") and head[1]):
            bad.append(f"{where}: head {head!r} is not ('sym' or 'text', name)")
    for c in d.extra_columns:
        if c.cell == "number" and c.decimals is None or c.cell == "flag" and c.labels is None:
            bad.append(f"{where}: extra column {c.key!r} lacks its decimals or labels")
    if not isinstance(d.random, bool):
        bad.append(f"{where}: random is not True or False")
    for name in ("compute", "statistic_text", "methods_phrase"):
        if not callable(getattr(d, name)):
            bad.append(f"{where}: {name} is not callable")
    if d.mde.rule == "none" and not d.mde.reason:
        bad.append(f"{where}: an MDE rule of none states its reason")
    if d.mde.rule == "simulation" and (d.mde.pvalues is None or not d.mde.efficiency):
        bad.append(f"{where}: a simulated MDE needs its p-value function and efficiency")
    for k, entry in d.bibliography.items():
        if not (isinstance(entry, tuple) and len(entry) == 3 and all(isinstance(x, str) and x for x in entry)):
            bad.append(f"{where}: bibliography entry {k!r} is not (in-text, full reference, BibTeX)")
    if references is not None:
        references = [*references, *d.bibliography]
        bad += [f"{where}: reference {k!r} is not in the bibliography" for k in d.references if k not in references]
    return bad


NOTHING_DONE = (("correction", "none"), ("sphericity", "none"))
"""No correction (of a family's p-values, of the degrees of freedom) cites nothing: nothing is done."""


def _check_procedure(d: ProcedureDeclaration, references: Sequence[str] | None) -> list[str]:
    where = f"{d.kind}/{d.name}"
    bad = [f"{where}: {name} is empty" for name in ("kind", "name", "display", "applies", "record", "references")
           if getattr(d, name) in (None, "", ()) and not (name == "references" and d.key in NOTHING_DONE)]
    if d.kind not in PROCEDURE_KINDS:
        bad.append(f"{where}: kind {d.kind!r} is not one of {', '.join(PROCEDURE_KINDS)}")
    if not isinstance(d.random, bool):
        bad.append(f"{where}: random is not True or False")
    bad += [f"{where}: applies to {a!r}, not one of {', '.join(APPLIES)}" for a in d.applies if a not in APPLIES]
    if d.mde.rule == "none" and not d.mde.reason:
        bad.append(f"{where}: an MDE rule of none states its reason")
    if d.kind in COMPUTED_KINDS and not (callable(d.compute) and d.spec_name):
        bad.append(f"{where}: a {d.kind} procedure declares its compute and its spec name")
    if d.kind not in COMPUTED_KINDS and d.compute is not None or d.kind not in SPEC_VALUED_KINDS and d.spec_name:
        bad.append(f"{where}: a {d.kind} procedure is run by sigreport.analyses (compute and spec_name None)")
    if references is not None:
        known = [*references, *d.bibliography]
        bad += [f"{where}: reference {k!r} is not in the bibliography" for k in d.references if k not in known]
    return bad


def plain_phrase(display: str) -> Callable[[str, Mapping[str, Any]], tuple[str, str]]:
    """The methods paragraph's phrase "the two-sided paired t test" for a display name, nothing after the
    citation."""
    return lambda side, tests: (f"the {side} {display}", "")


@dataclasses.dataclass(frozen=True, kw_only=True)
class EquivalenceDeclaration:
    """An equivalence and non-inferiority procedure run beside a pairwise test when a metric has a margin
    (``metrics.M.margin``): its name, the pairwise methods whose pairs it reads (``methods``: any other is
    refused by the spec, with exit 2), ``compute`` (estimates, SEs, df, margin, alpha, direction -> one
    result per pair), the interval it states, its methods sentence and its references (keys of the
    bibliography)."""

    name: str
    display: str
    methods: tuple[str, ...]  # spec names of the pairwise tests it applies to
    compute: Callable[..., Any]
    interval: str  # the interval it reports, in words
    methods_sentence: Callable[[float, str], str]  # (alpha, "the margins ...") -> the sentence before its citations
    references: tuple[str, ...]

    def require(self, method: str) -> None:
        """Raise :class:`ValueError` naming the methods it applies to when ``method`` is not one of them."""
        if method not in self.methods:
            raise ValueError(f"{self.display} reads the pairs of {', '.join(self.methods)}, not {method}")
