"""Results: one frozen record per analysis kind, the only home of what an analysis found.

Every record shares a header (:class:`Record`: ``id``, ``kind``, ``metric``, ``corpus``, ``level``,
``method``, ``alpha``, ``selection``, ``warnings``); its other fields are exactly its results.json fields (the
contract in docs/results-json.md: later versions add fields, with a default, and never rename them). Records are
frozen keyword-only dataclasses: they are built by field name, so a field added anywhere shifts nothing. A row
of a pairwise family holds the statistics result itself (:class:`~sigreport.stats.result.PairedTestResult`), and so
do the omnibus records (:class:`RMAnovaRecord` ``anova``, :class:`FriedmanRecord` ``friedman``), so nothing is copied
or lost on the way: such a class names its results.json fields (``json_fields``, the held result flattened). Records are written to results.json by :mod:`sigreport.results.io` and
read back into these classes by :mod:`sigreport.results.reading`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from sigreport.stats.classification import MetricValue
from sigreport.stats.cluster import ClusterSummary
from sigreport.stats.strata import StrataSummary
from sigreport.stats.equivalence import EquivalenceResult
from sigreport.stats.omnibus import FriedmanResult, RMAnovaResult
from sigreport.stats.pairwise import DifferenceSummary, PairedEffectSizes
from sigreport.stats.result import EffectSize, PairedTestResult, finite_or_none, to_jsonable
from sigreport.stats.select import SelectionStep


@dataclasses.dataclass(frozen=True, kw_only=True)
class ConfidenceInterval:
    """A two-sided interval and the level asked for (``None`` bounds where not computable); ``coverage``: the
    interval's achieved coverage when it differs from the level (a discrete test's order-statistic interval: the
    sign test's, Wilcoxon's Hodges-Lehmann), else None."""

    low: float | None
    high: float | None
    level: float
    coverage: float | None = None


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
        if "json_fields" in cls.__dict__:  # a record that holds a stats result names its flattened fields itself
            return
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
    """One system's row of the descriptives; with ``data.columns.cluster`` the interval is cluster-robust (CR1,
    t on G - 1 df) and ``clusters`` holds G, the design effect and the effective number of items (written after
    the other fields, only then); for a macro average over strata, ``mean`` and the interval are the macro
    average's and ``strata`` holds S, the df and the SE (``sd`` and ``median`` stay those of the items).
    ``rank_ub`` and ``tier`` (:mod:`sigreport.results.ranks`: Rank (UB) and tier by the block's primary test, as
    the Conclusions decide) are set, and written last, for a block of 3 or more systems with a primary test, else
    None and not written."""

    system: str
    n: int
    mean: float | None
    sd: float | None
    median: float | None
    ci_low: float | None
    ci_high: float | None
    warnings: tuple[str, ...]
    clusters: ClusterSummary | None = None
    strata: StrataSummary | None = None  # a macro average (metrics.M.average: macro): its mean and interval
    rank_ub: int | None = None
    tier: int | None = None

    json_fields: ClassVar[tuple[str, ...]] = ("system", "n", "mean", "sd", "median", "ci_low", "ci_high", "warnings")

    @property
    def extra(self) -> dict[str, Any]:
        """The fields written after ``json_fields``: clusters and strata where the design has them, then the rank
        and tier where the block is ranked."""
        out = {k: v for k, v in (("clusters", self.clusters), ("strata", self.strata)) if v is not None}
        if self.rank_ub is not None:
            out.update(rank_ub=self.rank_ub, tier=self.tier)
        return out


@dataclasses.dataclass(frozen=True, kw_only=True)
class AnswerVariance:
    """results.json ``answers`` of a descriptives record (several answers per question, data.columns.sample), per
    system: the questions, the answers per question (fewest, most, mean), the variance between questions
    (``sigma_b2``) and within a question (``sigma_w2``), the standard error of the mean of the question means
    (``se``), and the standard error with twice the mean answers per question and with infinitely many (Miller
    2024, sec. 4: Var(mean) = (sigma_b2 + sigma_w2 / K) / n); None where not computable."""

    system: str
    questions: int
    answers_min: int
    answers_max: int
    answers_mean: float
    sigma_b2: float | None
    sigma_w2: float | None
    se: float | None
    se_double_answers: float | None
    se_infinite_answers: float | None


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
    # how the systems' intervals are made: "t" (the mean's t interval), "bootstrap_percentile" (a corpus-level
    # metric), or for a binary metric the proportion interval of tests.proportion_ci ("wilson", ...); None in
    # documents written before the field
    ci_method: str | None = None
    answers: tuple[AnswerVariance, ...] = ()  # several answers per question: the variance's parts, per system


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
    equivalence: EquivalenceResult | None = None  # TOST and non-inferiority against metrics.M.margin

    json_fields: ClassVar[tuple[str, ...]] = (
        "a", "b", "n", "statistic", "df", "pvalue", "pvalue_adjusted", "significant", "estimate", "ci_low",
        "ci_high", "critical_value", "effect_size", "warnings", "differences", "effect_sizes", "mde")
    # fields written only when set, after the test's own (so a report without them keeps its bytes)
    WHEN_SET: ClassVar[tuple[str, ...]] = ("equivalence",)
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

    @property
    def extra(self) -> dict[str, Any]:
        """What results.json writes after :attr:`json_fields`: the test's method-specific values, then the
        :attr:`WHEN_SET` fields that are set."""
        if self.equivalence is None:
            return self.test.extra
        return {**self.test.extra, "equivalence": self.equivalence}

    @property
    def ci(self) -> ConfidenceInterval:
        """The pair's interval at the level asked for (its family's ``ci_level``), with the coverage a discrete
        interval achieves when that differs (results.json: the pair's ``ci_level_achieved``)."""
        achieved = self.test.extra.get("ci_level_achieved")
        coverage = None if achieved is None or abs(float(achieved) - self.test.ci_level) <= 1e-9 else float(achieved)
        return ConfidenceInterval(low=self.test.ci_low, high=self.test.ci_high, level=self.test.ci_level,
                                  coverage=coverage)


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
    # how the pairs' intervals are made when not by the test itself: "newcombe_paired" (a binary metric: Newcombe's
    # 1998 method 10 for the difference of paired proportions); None: each pair's interval is its test's own
    ci_method: str | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class RMAnovaRecord(Record):
    """kind 'omnibus', method 'rm_anova': the test's result (``anova``) and the sphericity decision made on it.

    ``anova`` is :func:`sigreport.stats.omnibus.rm_anova`'s result as the test returned it, its ``warnings`` moved
    to the record's (after the automatic choice's, so they read back as they were written). results.json writes
    it flattened, in :attr:`json_fields` order (its names below read from it); its sums and mean squares are the
    ``table``'s rows and its ``sphericity_detail`` the two ``mauchly_*``/``epsilon_*`` fields, so
    :mod:`sigreport.results.reading` rebuilds it whole.
    """

    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    method: str
    anova: RMAnovaResult
    correction_applied: str | None
    correction_reason: str
    pvalue_corrected: float | None
    significant: bool | None
    selection: AutomaticChoice | None
    warnings: tuple[str, ...]
    mauchly_p: str = "first_order"  # the Mauchly p ('r' or 'first_order') that sphericity: auto compared with alpha

    json_fields: ClassVar[tuple[str, ...]] = (
        "id", "kind", "metric", "corpus", "level", "method", "n", "k", "statistic", "df1", "df2", "pvalue",
        "sphericity", "corrections", "correction_applied", "correction_reason", "pvalue_corrected", "significant",
        "effect_size", "selection", "warnings", "table", "generalized_eta_squared", "mauchly_pvalue_second_order",
        "mauchly_p", "epsilon_hf_uncapped")
    # the fields of ``anova`` written under its own name (the others are written as :attr:`json_fields` name them)
    FROM_RESULT: ClassVar[tuple[str, ...]] = ("n", "k", "statistic", "df1", "df2", "pvalue", "sphericity",
                                              "corrections", "effect_size", "table", "generalized_eta_squared")
    # every name of :attr:`json_fields` that reads from ``anova`` (the record's fields are the others and HOLDS)
    FLATTENED: ClassVar[tuple[str, ...]] = (*FROM_RESULT, "mauchly_pvalue_second_order", "epsilon_hf_uncapped")
    HOLDS: ClassVar[tuple[str, ...]] = ("anova",)  # the fields results.json writes flattened, not by name

    n = property(lambda self: self.anova.n)
    k = property(lambda self: self.anova.k)
    statistic = property(lambda self: self.anova.statistic)
    df1 = property(lambda self: self.anova.df1)
    df2 = property(lambda self: self.anova.df2)
    pvalue = property(lambda self: self.anova.pvalue)
    sphericity = property(lambda self: self.anova.sphericity)
    corrections = property(lambda self: self.anova.corrections)
    effect_size = property(lambda self: self.anova.effect_size)
    table = property(lambda self: self.anova.table)
    generalized_eta_squared = property(lambda self: self.anova.generalized_eta_squared)
    mauchly_pvalue_second_order = property(lambda self: self.anova.sphericity_detail.pvalue_second_order)
    epsilon_hf_uncapped = property(lambda self: self.anova.sphericity_detail.epsilon_hf_uncapped)


@dataclasses.dataclass(frozen=True, kw_only=True)
class FriedmanRecord(Record):
    """kind 'omnibus', method 'friedman' (Demšar 2006): the test's result (``friedman``) and its decision.

    ``friedman`` is :func:`sigreport.stats.omnibus.friedman`'s result, its ``warnings`` moved to the record's (after
    the automatic choice's); ``systems`` names its ``average_ranks`` (column order), which results.json writes as
    one map ``average_ranks`` (system -> rank). results.json writes the result flattened, in :attr:`json_fields`
    order; :mod:`sigreport.results.reading` rebuilds it (the systems are the map's keys).
    """

    id: str
    kind: str
    metric: str
    corpus: str | None
    level: str
    method: str
    friedman: FriedmanResult
    systems: tuple[str, ...]
    significant: bool | None
    selection: AutomaticChoice | None
    warnings: tuple[str, ...]

    json_fields: ClassVar[tuple[str, ...]] = (
        "id", "kind", "metric", "corpus", "level", "method", "n", "k", "statistic", "df", "pvalue", "tie_correction",
        "statistic_uncorrected", "statistic_tie_corrected", "average_ranks", "iman_davenport", "kendall_w",
        "significant", "selection", "warnings")
    # the fields of ``friedman`` written under its own name (``average_ranks`` is written with ``systems``)
    FROM_RESULT: ClassVar[tuple[str, ...]] = ("n", "k", "statistic", "df", "pvalue", "tie_correction",
                                              "statistic_uncorrected", "statistic_tie_corrected", "iman_davenport",
                                              "kendall_w")
    FLATTENED: ClassVar[tuple[str, ...]] = (*FROM_RESULT, "average_ranks")
    HOLDS: ClassVar[tuple[str, ...]] = ("friedman", "systems")

    n = property(lambda self: self.friedman.n)
    k = property(lambda self: self.friedman.k)
    statistic = property(lambda self: self.friedman.statistic)
    df = property(lambda self: self.friedman.df)
    pvalue = property(lambda self: self.friedman.pvalue)
    tie_correction = property(lambda self: self.friedman.tie_correction)
    statistic_uncorrected = property(lambda self: self.friedman.statistic_uncorrected)
    statistic_tie_corrected = property(lambda self: self.friedman.statistic_tie_corrected)
    iman_davenport = property(lambda self: self.friedman.iman_davenport)
    kendall_w = property(lambda self: self.friedman.kendall_w)

    @property
    def average_ranks(self) -> dict[str, float | None]:
        """Each system's average rank (1 = best), by name (None where not a number, as results.json writes it)."""
        return {s: finite_or_none(r) for s, r in zip(self.systems, self.friedman.average_ranks)}


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


@dataclasses.dataclass(frozen=True, kw_only=True)
class PreferenceSystem:
    """One system of a Bradley-Terry fit: its strength (log-ability, the systems' mean 0) with its asymptotic
    standard error and bootstrap percentile interval, its Rank (UB) (1 + the systems whose interval lies wholly
    above its own) and its votes (``wins``, ``losses``, ``ties``; ``win_rate`` = (wins + ties / 2) / votes)."""

    system: str
    strength: float | None
    se: float | None
    ci_low: float | None
    ci_high: float | None
    rank_ub: int | None
    votes: int
    wins: int
    losses: int
    ties: int
    win_rate: float | None


@dataclasses.dataclass(frozen=True, kw_only=True)
class PreferenceRecord(Record):
    """kind 'preferences', method 'bradley_terry': the strengths of the systems from pairwise votes.

    ``ties``: 'davidson' (``nu`` Davidson's tie parameter) or 'split' (``nu`` null); ``identification``:
    'sum_zero' (strengths are relative to the systems' mean); ``unit``: what the bootstrap resampled ('battles'
    or 'items'); ``not_finite``: replicates without a finite maximum (their strengths count as extreme);
    ``win_rates[i][j]``: row i's observed win rate against column j (ties half; null where they never met),
    ``battles[i][j]`` their number of votes, both in ``systems`` order."""

    id: str
    kind: str
    metric: str
    corpus: str | None
    method: str
    ties: str
    identification: str
    nu: float | None
    n_votes: int
    n_ties: int
    n_items: int | None
    judges: dict[str, int]
    unit: str
    n_resamples: int
    ci_level: float
    seed: int
    not_finite: int
    systems: tuple[PreferenceSystem, ...]
    win_rates: tuple[tuple[float | None, ...], ...]
    battles: tuple[tuple[int, ...], ...]
    warnings: tuple[str, ...]


FamilyPair = PairRow | PosthocRow | McNemarPair
"""A pair of a frequentist family: a significance decision after the family's correction (the p-value matrix)."""

@dataclasses.dataclass(frozen=True, kw_only=True)
class ReplicabilityRow:
    """One direction of one pair across corpora: is ``better`` better than ``than``, and on how many corpora.

    ``pvalues``: the one-sided p-value of "``better`` is better" on each corpus (the record's ``corpora`` order;
    None where the corpus's test has none); ``significant_count``: corpora with that p <= alpha (uncorrected);
    ``k_estimate``: Dror et al.'s estimate of the corpora on which ``better`` is better (family-wise error at
    alpha; None without every p-value); ``partial_conjunction``: p^{u/N} for u = 1..N, non-decreasing."""

    better: str
    than: str
    pvalues: tuple[float | None, ...]
    significant_count: int
    k_estimate: int | None
    partial_conjunction: tuple[float | None, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class ReplicabilityRecord(Record):
    """kind 'replicability' (``tests.replicability``): method 'bonferroni' or 'fisher', the partial-conjunction
    procedure of Dror et al. (2017) over the per-corpus tests of ``pairwise_method`` (their one-sided p-values,
    from the two-sided p and the sign of the estimate for a two-sided test), for every pair in both directions."""

    id: str
    kind: str
    metric: str
    corpus: str | None
    method: str
    alpha: float
    pairwise_method: str
    corpora: tuple[str, ...]
    rows: tuple[ReplicabilityRow, ...]
    warnings: tuple[str, ...]


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
    "preferences": {None: PreferenceRecord},
    "replicability": {None: ReplicabilityRecord},
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


WITH_PAIRS: tuple[type[Record], ...] = tuple(
    c for c in RECORD_TYPES if "pairs" in {f.name for f in dataclasses.fields(c)})
"""The record classes that hold a family of pairs (derived from their fields)."""


def pair_count(record: Record) -> int:
    """The pairs a record holds (0 for a record without a family): what writing or sending it costs."""
    return len(record.pairs) if isinstance(record, WITH_PAIRS) else 0  # type: ignore[attr-defined]


def record_type(kind: str, method: Any) -> type[Record] | None:
    """The record class of an analysis of ``kind`` and ``method`` (:data:`RECORD_KINDS`); None for a kind this
    sigreport does not know."""
    by_method = RECORD_KINDS.get(kind)
    if by_method is None:
        return None
    return by_method.get(method if isinstance(method, str) else None, by_method[None])


jsonable = to_jsonable  # records, stats results, numpy values and containers as JSON data
