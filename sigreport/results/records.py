"""Results: one frozen record per analysis kind, the only home of what an analysis found.

Every record shares a header (:class:`Record`: ``id``, ``kind``, ``metric``, ``corpus``, ``level``,
``method``, ``alpha``, ``selection``, ``warnings``); its other fields are exactly its results.json fields (the
contract in docs/results-json.md: later versions add fields, with a default, and never rename them). Records are
frozen keyword-only dataclasses: they are built by field name, so a field added anywhere shifts nothing. A row
of a pairwise family holds the statistics result itself (:class:`~sigreport.stats.result.PairedTestResult`), so
nothing is copied or lost on the way. Records are written to results.json by :mod:`sigreport.results.io` and
read back into these classes by :mod:`sigreport.results.reading`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from sigreport.stats.classification import MetricValue
from sigreport.stats.omnibus import AnovaRow, CorrectedF, ImanDavenport, SphericityResult
from sigreport.stats.pairwise import DifferenceSummary, PairedEffectSizes
from sigreport.stats.result import EffectSize, PairedTestResult, to_jsonable
from sigreport.stats.select import SelectionStep


@dataclasses.dataclass(frozen=True, kw_only=True)
class ConfidenceInterval:
    """A two-sided interval and its level (``None`` bounds where not computable)."""

    low: float | None
    high: float | None
    level: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class Record:
    """The header every analysis record has: ``id``, ``kind``, ``metric``, ``corpus``, ``warnings`` as fields;
    ``level`` (the unit analysed: items, corpora or folds), ``method`` (the test), ``alpha`` and ``selection`` (how
    an automatic choice was made) as fields where the kind has them, else ``None`` (set below the classes, once
    they are made: a value here would be every subclass's default, and a kind's required field optional).

    A record class lists its results.json fields itself, in their order, header fields included (a dataclass
    puts inherited fields first, results.json puts them where the class does): those are its ``json_fields``,
    written and read back (:mod:`sigreport.results.io`, :mod:`sigreport.results.reading`)."""

    HEADER_OPTIONAL: ClassVar[tuple[str, ...]] = ("level", "method", "alpha", "selection")
    json_fields: ClassVar[tuple[str, ...]] = ()

    id: str
    kind: str
    metric: str | None
    corpus: str | None
    warnings: tuple[str, ...]
    level: ClassVar[str | None]
    method: ClassVar[str | None]
    alpha: ClassVar[float | None]
    selection: ClassVar[AutomaticChoice | ModelChoice | None]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("__annotations__", {})
        cls.json_fields = tuple(name for name, hint in own.items() if not str(hint).startswith("ClassVar"))


@dataclasses.dataclass(frozen=True, kw_only=True)
class AutomaticChoice:
    """results.json ``selection`` of a test chosen by ``auto``: the method, the checks that led to it (in order) and
    why; with a previous report, its method (``previous_method``) and whether ``selection: fixed`` kept it
    (``pinned``), written only then."""

    method: str
    steps: tuple[SelectionStep, ...]
    reason: str
    previous_method: str | None = None
    pinned: bool | None = None

    json_fields: ClassVar[tuple[str, ...]] = ("method", "steps", "reason")

    @property
    def extra(self) -> dict[str, Any]:
        """The fields written after ``json_fields``: the previous report's choice, when there was one."""
        if self.previous_method is None:
            return {}
        return {"previous_method": self.previous_method, "pinned": self.pinned}


@dataclasses.dataclass(frozen=True, kw_only=True)
class ModelChoice:
    """results.json ``selection`` of a Bayesian record whose model ``tests.bayesian.model: auto`` chose: the model
    and why (``steps``: empty, the choice is one rule)."""

    method: str
    reason: str
    steps: tuple[SelectionStep, ...] = ()


@dataclasses.dataclass(frozen=True, kw_only=True)
class SystemSummary:
    """A system's descriptives on one metric and corpus; ``rank_ub`` and ``tier`` (:mod:`sigreport.results.ranks`:
    Rank (UB) and tier by the block's primary test, as the Conclusions decide) are set, and written after
    ``warnings``, for a block of 3 or more systems with a primary test, else None and not written."""

    system: str
    n: int
    mean: float | None
    sd: float | None
    median: float | None
    ci_low: float | None
    ci_high: float | None
    warnings: tuple[str, ...]
    rank_ub: int | None = None
    tier: int | None = None

    json_fields: ClassVar[tuple[str, ...]] = ("system", "n", "mean", "sd", "median", "ci_low", "ci_high", "warnings")

    @property
    def extra(self) -> dict[str, Any]:
        """The fields written after ``json_fields``: the rank and tier, when the block is ranked."""
        if self.rank_ub is None:
            return {}
        return {"rank_ub": self.rank_ub, "tier": self.tier}


@dataclasses.dataclass(frozen=True, kw_only=True)
class DescriptivesRecord(Record):
    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    ci_level: float
    n_items: int
    dropped_items: int
    aggregate: str
    systems: tuple[SystemSummary, ...]
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class DetectableDifference:
    """results.json ``mde`` of a pair: the smallest true difference a - b its test detects with probability
    ``power`` at level ``alpha`` (``value`` in the metric's units, ``dz`` in SDs of the differences; None where not
    computable, with the reason in ``warnings``); ``method``: how (see :mod:`sigreport.analyses.power`)."""

    value: float | None
    dz: float | None
    power: float
    alpha: float
    method: str
    warnings: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, kw_only=True)
class PairRow:
    """One row of a pairwise family: the test of a vs b (a - b) and its correction over the family.

    ``test`` is the statistics result as the test returned it; the flat names below (``n``,
    ``statistic``, ``ci_low``, ...) are the results.json fields of the pair and read from it.
    """

    a: str
    b: str
    test: PairedTestResult
    pvalue_adjusted: float | None
    significant: bool | None
    differences: DifferenceSummary | None = None  # SD, SE and Shapiro-Wilk of a - b (per-item designs)
    effect_sizes: PairedEffectSizes | None = None  # d_z, g_z, d_av, g_av with CIs (paired t)
    mde: DetectableDifference | None = None  # the smallest true difference the test detects (tests.power)

    json_fields: ClassVar[tuple[str, ...]] = (
        "a", "b", "n", "statistic", "df", "pvalue", "pvalue_adjusted", "significant", "estimate", "ci_low",
        "ci_high", "critical_value", "effect_size", "warnings", "differences", "effect_sizes", "mde")
    # the fields of ``test`` that are not in results.json's pair: the family's (its record's) fields
    FROM_RECORD: ClassVar[tuple[str, ...]] = ("method", "alternative", "ci_level")

    n = property(lambda self: self.test.n)
    statistic = property(lambda self: self.test.statistic)
    df = property(lambda self: self.test.df)
    pvalue = property(lambda self: self.test.pvalue)
    estimate = property(lambda self: self.test.estimate)
    ci_low = property(lambda self: self.test.ci_low)
    ci_high = property(lambda self: self.test.ci_high)
    critical_value = property(lambda self: self.test.critical_value)
    effect_size = property(lambda self: self.test.effect_size)
    warnings = property(lambda self: self.test.warnings)
    extra = property(lambda self: self.test.extra)

    @property
    def ci(self) -> ConfidenceInterval:
        return ConfidenceInterval(low=self.test.ci_low, high=self.test.ci_high, level=self.test.ci_level)


@dataclasses.dataclass(frozen=True, kw_only=True)
class PairwiseRecord(Record):
    """kind 'pairwise' (items or corpora) or 'cv' (cross-validation designs)."""

    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    method: str
    alternative: str
    comparisons: str
    correction: str
    family: str
    family_size: int
    alpha: float
    ci_level: float
    pairs: tuple[PairRow, ...]
    selection: AutomaticChoice | None
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class RMAnovaRecord(Record):
    """kind 'omnibus', method 'rm_anova'."""

    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    method: str
    n: int
    k: int
    statistic: float | None
    df1: float | None
    df2: float | None
    pvalue: float | None
    sphericity: SphericityResult
    corrections: dict[str, CorrectedF]
    correction_applied: str | None
    correction_reason: str
    pvalue_corrected: float | None
    significant: bool | None
    effect_size: EffectSize | None
    selection: AutomaticChoice | None
    warnings: tuple[str, ...]
    # the ANOVA table, generalized eta squared, R's Mauchly p and which p drove sphericity: auto
    table: tuple[AnovaRow, ...] = ()
    generalized_eta_squared: EffectSize | None = None
    mauchly_pvalue_second_order: float | None = None
    mauchly_p: str = "first_order"  # the Mauchly p ('r' or 'first_order') that sphericity: auto compared with alpha
    epsilon_hf_uncapped: float | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class FriedmanRecord(Record):
    """kind 'omnibus', method 'friedman' (Demšar 2006)."""

    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    method: str
    n: int
    k: int
    statistic: float | None
    df: float | None
    pvalue: float | None
    tie_correction: bool
    statistic_uncorrected: float | None
    statistic_tie_corrected: float | None
    average_ranks: dict[str, float | None]
    iman_davenport: ImanDavenport
    kendall_w: float | None
    significant: bool | None
    selection: AutomaticChoice | None
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class PosthocRow:
    a: str
    b: str
    statistic: float | None
    rank_difference: float | None
    pvalue: float | None
    pvalue_adjusted: float | None
    significant: bool | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class PosthocRecord(Record):
    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    method: str
    after: str
    omnibus_significant: bool | None
    critical_difference: float | None
    q_alpha: float | None
    control: str | None
    alpha: float
    average_ranks: dict[str, float | None]
    pairs: tuple[PosthocRow, ...]
    selection: AutomaticChoice | None
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class ConfusionMatrix:
    """Counts of items: rows the gold label, columns the predicted label, both in ``labels`` order."""

    labels: tuple[str, ...]
    matrix: tuple[tuple[int, ...], ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class SystemClassification:
    system: str
    n: int
    confusion_matrix: ConfusionMatrix
    metrics: dict[str, MetricValue]


@dataclasses.dataclass(frozen=True, kw_only=True)
class ClassificationRecord(Record):
    """kind 'classification'. Metric names: accuracy; precision, recall, specificity, f<beta> per class
    (``<name>_<label>``), averaged (``_macro``, ``_micro``, ``_weighted``) and, with a positive label,
    plain (that class)."""

    id: str
    kind: str
    metric: str
    corpus: str
    labels: tuple[str, ...]
    positive_label: str | None
    beta: float
    f_name: str
    ci_level: float
    ci_method: str
    n_resamples: int
    n_items: int
    dropped_items: int
    systems: tuple[SystemClassification, ...]
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class McNemarPair:
    """McNemar's test of a vs b: n01 = items a got wrong and b got right, n10 = a right and b wrong."""

    a: str
    b: str
    n: int
    n00: int
    n01: int
    n10: int
    n11: int
    accuracy_a: float | None
    accuracy_b: float | None
    statistic: float | None
    df: float | None
    pvalue: float | None
    pvalue_adjusted: float | None
    exact: bool
    continuity_correction: bool
    significant: bool | None
    critical_value: float | None
    reason: str
    warnings: tuple[str, ...]
    # chi-square without continuity correction and Cochran's Q of the two systems (they are equal)
    statistic_uncorrected: float | None = None
    pvalue_uncorrected: float | None = None
    cochran_q: float | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class McNemarRecord(Record):
    id: str
    kind: str
    metric: str
    corpus: str
    method: str
    comparisons: str
    correction: str
    family: str
    family_size: int
    alpha: float
    after: str | None
    omnibus_significant: bool | None
    pairs: tuple[McNemarPair, ...]
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class CochranQRecord(Record):
    id: str
    kind: str
    metric: str
    corpus: str
    n: int
    k: int
    accuracy: dict[str, float | None]
    statistic: float | None
    df: float
    pvalue: float | None
    significant: bool | None
    alpha: float
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class AgreementPair:
    """One coefficient between two raters (annotators, or a system and the gold labels)."""

    a: str
    b: str
    value: float | None
    observed_agreement: float | None
    expected_agreement: float | None
    se: float | None
    ci_low: float | None
    ci_high: float | None
    bootstrap_ci_low: float | None
    bootstrap_ci_high: float | None
    interpretation: str | None
    n_items: int
    matrix: tuple[tuple[int, ...], ...] | None
    warnings: tuple[str, ...]
    # Cohen's (weighted) kappa: SE under kappa = 0, z and two-sided p (Fleiss, Cohen & Everitt 1969)
    se_null: float | None = None
    z_null: float | None = None
    pvalue_null: float | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class AgreementRecord(Record):
    """kind 'agreement': one measure on one corpus.

    ``source``: 'annotations' or 'systems_vs_gold'. ``level``: the measurement level the measure
    treats the labels at (Cohen and Fleiss: nominal; weighted kappa: ordinal; Krippendorff: the spec's).
    ``value_kind``: 'coefficient' (one coefficient), 'mean_of_pairs' (Light's kappa: the mean of the
    pairwise kappas in ``pairs``; no SE), 'per_pair' (systems vs gold: only ``pairs``, ``value`` null).
    ``matrix``: the agreement matrix of two annotators (rows ``annotators[0]``, columns
    ``annotators[1]``, labels in ``labels`` order), else null. ``ci_low``/``ci_high``: Wald interval
    from ``se`` (the standard error under the alternative) for kappas, bootstrap percentile for alpha
    (``ci_method``); ``bootstrap_ci_*``: percentile bootstrap over items.
    """

    id: str
    kind: str
    metric: str
    corpus: str | None
    source: str
    measure: str
    level: str
    labels: tuple[str, ...]
    annotators: tuple[str, ...]
    value: float | None
    value_kind: str
    observed_agreement: float | None
    expected_agreement: float | None
    se: float | None
    se_null: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    ci_method: str
    bootstrap_ci_low: float | None
    bootstrap_ci_high: float | None
    interpretation: str | None
    n_items: int
    n_resamples: int
    matrix: tuple[tuple[int, ...], ...] | None
    pairs: tuple[AgreementPair, ...]
    warnings: tuple[str, ...]
    # Cohen's (weighted) kappa of two annotators: z = value / se_null and its two-sided p (R irr::kappa2)
    z_null: float | None = None
    pvalue_null: float | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class BayesianPair:
    """Posterior probabilities of a - b (oriented so that 'better' follows the metric's direction)."""

    a: str
    b: str
    n: int
    estimate: float | None
    p_a_better: float | None
    p_equivalent: float | None
    p_b_better: float | None
    decision: str
    mc_se: float | None
    warnings: tuple[str, ...]
    # the frequentist test of the same pair (pairwise or cv record of this metric and corpus), after its correction
    frequentist_method: str | None = None
    frequentist_pvalue_adjusted: float | None = None
    frequentist_significant: bool | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class BayesianRecord(Record):
    """kind 'bayesian': method 'signed_rank' or 'bayesian_bootstrap' (items, corpora; ``selection`` says why
    when ``tests.bayesian.model`` is auto) or 'correlated_t' (cross-validation folds).

    ``rope`` is the half-width of the region of practical equivalence in the metric's units;
    ``decision_level`` the posterior probability a decision needs; ``n_samples``, ``prior_strength``
    belong to the signed-rank test, ``n_samples`` and ``seed`` to it and to the Bayesian bootstrap, ``rho`` to
    the correlated t test (else null). ``posterior``: how the posterior was computed, ``monte_carlo`` or
    ``normal`` (a normal approximation; ``n_samples`` is then null); null for the correlated t test.
    """

    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    method: str
    comparisons: str
    rope: float
    decision_level: float
    n_samples: int | None
    posterior: str | None
    prior_strength: float | None
    rho: float | None
    seed: int | None
    pairs: tuple[BayesianPair, ...]
    warnings: tuple[str, ...]
    selection: ModelChoice | None = None  # tests.bayesian.model: auto: the model chosen and why


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunSummary:
    """One system's runs: its value in each run (the metric over the items, one score per run) and their
    mean, standard deviation (ddof 1), smallest and largest."""

    system: str
    runs: tuple[str, ...]
    values: tuple[float | None, ...]
    mean: float | None
    sd: float | None
    min: float | None
    max: float | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunPair:
    """a vs b over runs and items: the difference of their means with its two-level bootstrap interval, and
    almost stochastic order both ways (``eps_min_ab``: of a over b, at ``aso_confidence``, Bonferroni over the
    family's pairs); ``decision``: ``a_better`` (eps_min_ab < tau), ``b_better`` (eps_min_ba < tau) or
    ``undecided``."""

    a: str
    b: str
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    se: float | None
    eps_min_ab: float | None
    eps_min_ba: float | None
    violation_ratio: float | None
    decision: str
    warnings: tuple[str, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunsRecord(Record):
    """kind 'runs': several training runs per system on one metric and corpus (a ``run`` column)."""

    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    n_items: int
    ci_level: float
    n_resamples: int
    tau: float
    aso_confidence: float
    aso_resamples: int
    systems: tuple[RunSummary, ...]
    pairs: tuple[RunPair, ...]
    warnings: tuple[str, ...]


FamilyPair = PairRow | PosthocRow | McNemarPair
"""A pair of a frequentist family: a significance decision after the family's correction (the p-value matrix)."""

RECORD_KINDS: dict[str, dict[str | None, type[Record]]] = {
    "descriptives": {None: DescriptivesRecord},
    "pairwise": {None: PairwiseRecord},
    "cv": {None: PairwiseRecord},
    "omnibus": {"friedman": FriedmanRecord, None: RMAnovaRecord},
    "posthoc": {"paired_t": PairwiseRecord, None: PosthocRecord},  # paired t tests after the RM-ANOVA, or rank tests
    "classification": {None: ClassificationRecord},
    "mcnemar": {None: McNemarRecord},
    "cochran_q": {None: CochranQRecord},
    "agreement": {None: AgreementRecord},
    "bayesian": {None: BayesianRecord},
    "runs": {None: RunsRecord},
}
"""The one registry of analysis kinds: each kind's record class, by method where a kind's methods make different
records (``None``: every other method). results.json is read back through it (:func:`record_type`), the views
are keyed by its kinds (``tests/results/test_record_kinds.py`` checks that every kind has one)."""

RECORD_TYPES: tuple[type[Record], ...] = tuple(dict.fromkeys(c for by in RECORD_KINDS.values() for c in by.values()))
"""Every record class, once."""
for _cls in RECORD_TYPES:
    for _name in Record.HEADER_OPTIONAL:
        if _name not in {f.name for f in dataclasses.fields(_cls)}:
            setattr(_cls, _name, None)


def record_type(kind: str, method: Any) -> type[Record] | None:
    """The record class of an analysis of ``kind`` and ``method`` (:data:`RECORD_KINDS`); None for a kind this
    sigreport does not know."""
    by_method = RECORD_KINDS.get(kind)
    if by_method is None:
        return None
    return by_method.get(method if isinstance(method, str) else None, by_method[None])


jsonable = to_jsonable  # records, stats results, numpy values and containers as JSON data
