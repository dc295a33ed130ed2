"""The spec's pydantic models: every section of a spec file, its defaults, ranges and cross-field rules.

Each model refuses unknown keys, is immutable and strict (no silent coercion); cross-references (a baseline
among the systems, a ROPE on a tested metric, tests that respect clusters or strata) are checked after
validation and raised at the field they belong to (:class:`_At`), so that the message names its line.
"""

from __future__ import annotations

import copy
import difflib
import functools
import typing
from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag, field_validator, model_validator

from sigreport import defaults
from sigreport.errors import did_you_mean
from sigreport.spec.base import _At, _Model
from sigreport.spec.sources import FORMATS, format_of, path_fields, scores_source, source_metrics
from sigreport.spec.sources.declaration import SourceFormat
from sigreport.spec.sources.table import TableSource
from sigreport.stats import proportion, registry
from sigreport.stats.methods import replicability as replicability_methods
from sigreport.stats.methods.classification import MCNEMAR_VARIANTS

Alternative = Literal["two-sided", "greater", "less"]
Correction = Literal[registry.spec_names("correction")]  # type: ignore[valid-type]  # the declared corrections
PairwiseMethod = Literal[("auto", *registry.names("pairwise"))]  # type: ignore[valid-type]  # the declared tests
CVMethod = Literal[registry.names("cv")]  # type: ignore[valid-type]
ProportionMethod = Literal[proportion.NAMES]  # type: ignore[valid-type]  # the declared proportion intervals
ReplicabilityMethod = Literal[replicability_methods.NAMES]  # type: ignore[valid-type]  # the declared combinations
OmnibusMethod = Literal[("auto", *registry.spec_names("omnibus"), "none")]  # type: ignore[valid-type]  # declared
PosthocMethod = Literal[("auto", *registry.spec_names("posthoc"), "none")]  # type: ignore[valid-type]  # declared
McNemarVariant = Literal[MCNEMAR_VARIANTS]  # type: ignore[valid-type]  # its declaration's variants
Family = Literal["metric_corpus", "metric", "corpus", "all"]
Sphericity = Literal[("auto", *registry.spec_names("sphericity"))]  # type: ignore[valid-type]  # declared
AgreementMeasure = Literal[registry.spec_names("agreement")]  # type: ignore[valid-type]  # the declared measures
Format = Literal[defaults.FORMATS]  # type: ignore[valid-type]  # the output formats: one list, in sigreport.defaults

class ColumnsSpec(_Model):
    """Names of the score table's columns, when they differ from the defaults."""

    system: str = "system"
    corpus: str = "corpus"
    item: str = "item"
    metric: str = "metric"
    value: str = "value"
    fold: str = Field("fold", description="Cross-validation designs: the fold column.")
    repeat: str = Field("repeat", description="Cross-validation designs: the repetition column.")
    run: str = Field("run", description="Several training runs per system (a seed or run id), used when the table "
                     "has this column: the tests over items take each system's scores averaged over its runs, and "
                     "the runs are compared by a two-level bootstrap and almost stochastic order (tests.runs).")
    sample: str | None = Field(
        None, description="Several answers of a system to the same question (the k-th sample of an LLM at a "
        "temperature, an epoch of Inspect): the column numbering them. Scores are averaged within question (per "
        "system) before inference, and the report splits the variance of a mean into its between-question and "
        "within-question parts (Miller 2024, sec. 4). Not a training run (that is run). Default: none.")
    n_train: str = Field("n_train", description="Cross-validation designs: optional column of each fold's training "
                         "size (with n_test; the corrected resampled t and the correlated Bayesian t use their means).")
    n_test: str = Field("n_test", description="Cross-validation designs: optional column of each fold's test size.")
    cluster: str | None = Field(
        None, description="Column of each item's cluster (items sharing a passage, an image, a task family): every "
        "system's mean and every paired difference get the CR1 cluster-robust standard error with t intervals on "
        "G - 1 degrees of freedom, paired_t becomes the clustered paired t, bootstrap and permutation resample and "
        "sign-flip whole clusters, the minimum detectable difference uses the design effect. An item has one "
        "cluster. Default: none (items independent).")
    stratum: str | None = Field(
        None, description="Column of each item's stratum (MMLU's subjects, a benchmark's task families): a metric "
        "with average: macro is the mean of its per-stratum means, with its interval and tests respecting the "
        "strata (the bootstrap resamples within strata). An item has one stratum. Default: none.")


class LabelColumnsSpec(_Model):
    """Column names of the predictions and annotations tables, when they differ from the defaults."""

    system: str = "system"
    corpus: str = "corpus"
    item: str = "item"
    gold: str = "gold"
    pred: str = "pred"
    annotator: str = "annotator"
    label: str = "label"


class PreferenceColumnsSpec(_Model):
    """Column names of data.preferences, when they differ from the defaults."""

    a: str = Field("a", description="The first system of the comparison.")
    b: str = Field("b", description="The second system.")
    winner: str = Field("winner", description="Which won: the text a, b or tie (case-insensitive).")
    item: str = Field("item", description="Optional: the prompt (item) voted on; with it the bootstrap resamples "
                      "items, each with all its votes.")
    judge: str = Field("judge", description="Optional: who voted (a person or an LLM judge); counted and reported.")


def corpus_level_default(raw: Any) -> Any:
    """A raw spec whose metrics include a corpus-level one (an aggregate other than mean: sacrebleu's BLEU,
    chrF, TER, ratio, f_beta) and that leaves ``tests.pairwise`` out gets ``auto`` instead of the default
    paired t, which cannot apply to a value that is not a mean of per-item scores: auto's choice for such a
    metric is approximate randomization with the paired bootstrap's interval (docs/calibration_corpus.md),
    for a mean metric paired t or Wilcoxon, and the report's settings and methods say which ran. Specs that
    set ``tests.pairwise``, or have only mean metrics, are left as they are."""
    if not isinstance(raw, dict) or not isinstance(raw.get("metrics"), dict):
        return raw
    corpus_level = any(m.corpus_level if isinstance(m, MetricSpec) else
                       isinstance(m, dict) and m.get("aggregate", "mean") != "mean" for m in raw["metrics"].values())
    tests = raw.get("tests", {})
    if not corpus_level:
        return raw
    if isinstance(tests, dict) and "pairwise" not in tests:
        return {**raw, "tests": {**tests, "pairwise": "auto"}}
    if isinstance(tests, TestsSpec) and "pairwise" not in tests.model_fields_set:
        return {**raw, "tests": tests.model_copy(update={"pairwise": "auto"})}
    return raw


ScoresSource = scores_source(FORMATS)  # rebuilt by register_format
OutcomesSource = Annotated[
    Annotated[str, Tag("path")] | Annotated[TableSource, Tag("table")],
    Discriminator(format_of, custom_error_type="source_format",
                  custom_error_message="expected a file name or a mapping with format: table"),
]


class DataSpec(_Model):
    """Where the scores are and how to read them. Relative paths resolve against the spec's folder."""

    scores: ScoresSource | None = Field(
        None, description="Long table of per-item scores: .csv, .tsv, .jsonl (or .parquet with pyarrow); or a "
        "mapping naming its format and how to read it.")
    columns: ColumnsSpec = Field(default_factory=ColumnsSpec, description="Map the standard column names to yours.")
    missing: Literal["error", "drop_items"] = Field(
        "error", description="A system lacking an item another system has: stop with an error, or drop that item "
        "for every system (the report says how many were dropped).")
    predictions: str | None = Field(None, description="Long table system, corpus, item, gold, pred (labels as text).")
    annotations: str | None = Field(None, description="Long table item, annotator, label (optionally corpus); "
                                    "missing ratings allowed.")
    label_columns: LabelColumnsSpec = Field(default_factory=LabelColumnsSpec,
                                            description="Column names of predictions and annotations.")
    outcomes: OutcomesSource | None = Field(
        None, description="Paired yes/no outcomes without gold labels: system (the condition), item (the subject), "
        "value (1/0, true/false or yes/no), optionally corpus; long or wide (one row per subject, one column per "
        "system), as data.scores. Analysed with McNemar's test for every pair and Cochran's Q.")
    outcome_columns: ColumnsSpec = Field(default_factory=ColumnsSpec,
                                         description="Column names of data.outcomes, when they differ from the defaults.")
    preferences: str | None = Field(
        None, description="Pairwise preference votes (A vs B, by people or LLM judges): one row per vote with "
        "columns a, b, winner (a, b or tie) and optionally item and judge; analysed with Bradley-Terry strengths "
        "(tests.preferences).")
    preference_columns: PreferenceColumnsSpec = Field(
        default_factory=PreferenceColumnsSpec, description="Column names of data.preferences, when they differ "
        "from the defaults.")

    @model_validator(mode="after")
    def _design_columns_of_scores(self) -> "DataSpec":
        for key in ("cluster", "stratum"):
            if getattr(self.outcome_columns, key) is not None:
                raise _At(("outcome_columns", key), f"{key} columns apply to data.scores (data.columns.{key}); "
                          "McNemar's test and Cochran's Q on outcomes treat subjects as independent")
        return self

    @property
    def source(self) -> _Model | None:
        """``scores`` as a source model (a plain file name is a long table); its ``format`` names its
        declaration in :data:`sigreport.spec.sources.FORMATS`."""
        if self.scores is None:
            return None
        return TableSource(path=self.scores) if isinstance(self.scores, str) else self.scores

    def named_files(self) -> list[str]:
        """Every path the data section names (relative to the spec's folder; globs as written)."""
        out = [f for f in (self.predictions, self.annotations, self.preferences) if f]
        if self.outcomes is not None:
            out.append(self.outcomes if isinstance(self.outcomes, str) else self.outcomes.path or "")
        source = self.source
        for name in path_fields():
            value = getattr(source, name, None)
            if isinstance(value, str):
                out.append(value)
            elif isinstance(value, dict):
                out += [v for v in value.values() if isinstance(v, str)]
            elif isinstance(value, list):
                out += [v for v in value if isinstance(v, str)]
        return out


class MetricSpec(_Model):
    """One evaluation metric present in the score table."""

    label: str | None = Field(None, description="Name shown in reports (default: the metric's key).")
    higher_is_better: bool = Field(description="Direction of the metric; required, sigreport never guesses.")
    decimals: int = Field(4, ge=0, le=12, description="Decimals shown for this metric's values; Wilcoxon and sign "
                          "tests round differences to this precision (or `precision`) before ranking.")
    precision: int | None = Field(None, ge=0, le=15, description="Decimals the metric is really measured to "
                                  "(default 12): differences are rounded to it before ranking.")
    aggregate: str = Field(
        "mean", description="How per-item values make the corpus score: mean (default); ratio (sum of the first "
        "statistic over sum of the second); f_beta (from tp, fp, fn statistics); or a user function "
        "'package.module:function' taking totals (..., n_statistics) and the item count.")
    statistics: list[str] | None = Field(
        None, description="For ratio, f_beta and user aggregates: the names (in the data's metric column) of the "
        "per-item sufficient statistics, in the order the aggregate expects.")
    beta: float = Field(1.0, gt=0, description="beta of f_beta.")
    average: Literal["micro", "macro"] = Field(
        "micro", description="micro (default): the mean over items; macro: the mean of the per-stratum means "
        "(data.columns.stratum), every stratum weighing the same, its standard error sqrt(sum_s SE_s^2) / S with "
        "Welch-Satterthwaite degrees of freedom, paired_t on the per-item differences likewise, bootstrap "
        "resampled within strata.")
    pass_at_k: list[Annotated[int, Field(ge=1)]] | None = Field(
        None, description="With data.columns.sample and 0/1 answers: adds one metric per k, named '<metric>_pass@k', "
        "the unbiased pass@k of Chen et al. (2021) per question (1 - C(n - c, k)/C(n, k), n answers of which c "
        "correct), with intervals over questions and paired tests between systems like any mean metric. A k above "
        "some question's number of answers is an error.")
    binary: bool | None = Field(
        None, description="The metric is a proportion (every per-item score 0 or 1: accuracy, exact match, pass@1 "
        "of one answer): each system's interval is then tests.proportion_ci and each pair's interval of the "
        "difference Newcombe's (1998) paired score interval. Default: detected (every per-item score of the metric "
        "on the corpus is 0 or 1); false: the mean's t interval even for 0/1 data; true: required, a score other "
        "than 0 or 1 is an error. Mean metrics only.")
    margin: float | None = Field(
        None, gt=0, description="Margin of equivalence D (> 0, in the metric's units; direction from "
        "higher_is_better): each pair also gets the TOST equivalence test (within +-D; 1 - 2 alpha interval) and the "
        "one-sided non-inferiority test (not worse than the other system, or the baseline, by more than D), "
        "corrected over the family as the pairwise tests; t-based: needs tests.pairwise: paired_t. sigreport gate "
        "reads it.")

    @model_validator(mode="after")
    def _aggregate_needs_statistics(self) -> "MetricSpec":
        if self.pass_at_k is not None and (self.aggregate != "mean" or len(set(self.pass_at_k)) != len(self.pass_at_k)
                                           or not self.pass_at_k):
            raise ValueError("pass_at_k is a list of distinct k >= 1, for a metric with aggregate mean")
        if self.binary and self.aggregate != "mean":
            raise ValueError("binary: true goes with aggregate mean (a proportion of 0/1 items), not "
                             f"{self.aggregate}")
        need = {"ratio": 2, "f_beta": 3}
        if self.aggregate in need and (self.statistics is None or len(self.statistics) != need[self.aggregate]):
            raise ValueError(f"aggregate {self.aggregate} needs statistics: a list of {need[self.aggregate]} names "
                             f"({'numerator, denominator' if self.aggregate == 'ratio' else 'tp, fp, fn'})")
        if self.aggregate not in ("mean", "ratio", "f_beta"):
            if ":" not in self.aggregate:
                raise ValueError(f"aggregate {self.aggregate!r} is not allowed; allowed: mean, ratio, f_beta or "
                                 "'package.module:function'")
            if not self.statistics:
                raise ValueError("a user aggregate needs statistics: the names of its per-item statistics")
        if self.aggregate == "mean" and self.statistics:
            raise ValueError("statistics go with aggregate ratio, f_beta or a user function, not mean")
        return self

    @property
    def corpus_level(self) -> bool:
        return self.aggregate != "mean"


class BayesianSpec(_Model):
    """Bayesian comparison with a ROPE (Benavoli et al. 2017; Corani and Benavoli 2015)."""

    rope: dict[str, Annotated[float, Field(ge=0)]] = Field(
        description="Per metric (its key under metrics): half-width of the region of practical equivalence, in "
        "the metric's units; differences within [-rope, rope] count as equivalent. Metrics left out get no "
        "Bayesian comparison.")
    level: float = Field(0.95, gt=0.5, lt=1, description="Posterior probability a decision needs.")
    model: Literal["auto", "signed_rank", "bayesian_bootstrap"] = Field(
        "auto", description="Items and corpora: signed_rank (Benavoli et al. 2017), bayesian_bootstrap (the posterior "
        "of the mean difference, Rubin 1981), or auto: bayesian_bootstrap when the scores are binary or mostly tied "
        "(at most two distinct values, or more than half of some pair's differences zero), where the signed-rank "
        "posterior would count every tie as practically equivalent; signed_rank otherwise. Cross-validation "
        "designs always use the correlated t test.")
    samples: int = Field(50000, ge=1000, le=10_000_000, description="Posterior samples (signed-rank test, Bayesian "
                         "bootstrap).")
    prior_strength: float = Field(0.5, ge=0, description="Signed-rank test: weight of the prior pseudo-observation "
                                  "at 0 (baycomp's default 0.5).")
    method: Literal["auto", "monte_carlo", "normal"] = Field(
        "auto", description="Signed-rank posterior: monte_carlo (samples posterior weights, exact up to Monte Carlo "
        "error), normal (large-n normal approximation: exact mean, delta-method covariance, integrated exactly, no "
        "samples; within 0.0012 of Monte Carlo from n = 5,000 in benchmarks/bench_bayes.py --accuracy) or auto "
        "(monte_carlo up to n = 5,000 paired values, normal above). The correlated t test is exact either way.")


class RunsSpec(_Model):
    """How several training runs per system are compared (a ``run`` column in the scores)."""

    tau: float = Field(0.2, gt=0, le=0.5, description="Almost stochastic order: A is declared almost "
                       "stochastically larger than B when eps_min < tau (Ulmer et al. 2022 recommend 0.2; 0.5 is "
                       "the weakest claim).")
    resamples: int = Field(1000, ge=99, le=1_000_000, description="Bootstrap iterations of eps_min's confidence "
                           "bound (deepsig's num_bootstrap_iterations).")


def power_range_message(power: float, alpha: float) -> str:
    """Why a power at or below alpha is refused (``tests.power``, ``sigreport power --power``): a test at level
    alpha rejects with probability alpha when the difference is zero, so every difference would be
    "detectable" with that power and the minimum detectable difference is no answer."""
    return (f"the power must lie strictly between alpha ({alpha:g}) and 1; given {power:g} (a test at level "
            f"alpha rejects with probability alpha even when the systems do not differ)")


class PreferencesSpec(_Model):
    """How data.preferences is analysed: Bradley-Terry strengths, their bootstrap intervals and Rank (UB)."""

    ties: Literal["davidson", "split"] = Field(
        "davidson", description="Ties: Davidson's (1970) model (one tie parameter nu), or split (a tie counts half "
        "a win for each side, the plain Bradley-Terry model).")
    resamples: int = Field(1000, ge=99, le=1_000_000, description="Bootstrap replicates B of the strengths' "
                           "intervals (Chatbot Arena uses 1,000).")
    unit: Literal["auto", "battles", "items"] = Field(
        "auto", description="What the bootstrap resamples: battles (votes), or items (each prompt with all its "
        "votes, a cluster bootstrap); auto: items when the table has an item column, else battles.")


class TestsSpec(_Model):
    """Which tests run, with every statistical choice written down."""

    pairwise: PairwiseMethod = Field(
        "paired_t", description="Test for each pair of systems (default paired_t; auto when a metric is corpus-level); "
        "auto chooses paired t or Wilcoxon, and approximate randomization for a corpus-level metric (see the report). "
        "bootstrap: null-shifted paired bootstrap; bootstrap_t: studentized paired bootstrap (mean metrics only; "
        "holds alpha at small n, docs/calibration.md).")
    alternative: Alternative = Field(
        "two-sided", description="Alternative hypothesis for every pair (a, b), tested on a - b: greater means a "
        "scores higher than b. Pairs are (a, b) with a before b in table order (all_pairs) or (system, baseline) "
        "(vs_baseline), so there greater means the system scores higher than the baseline (whatever the metric's "
        "direction). Choose it before seeing the data.")
    comparisons: Literal["all_pairs", "vs_baseline"] = Field(
        "all_pairs", description="Compare every pair of systems (a before b in table order), or every other system "
        "with the baseline as pairs (system, baseline).")
    correction: Correction = Field("holm", description="Multiple-comparison correction over the family (hommel: "
                                   "Hommel 1988, R's p.adjust).")
    family: Family = Field(
        "metric_corpus", description="The family a correction runs over: metric_corpus (all comparisons of one metric "
        "on one corpus), metric (one metric over all corpora), corpus (every metric of one corpus) or all (every "
        "pairwise test in the report).")
    mauchly_p: Literal["r", "first_order"] = Field(
        "r", description="Mauchly p-value that drives sphericity: auto. r: with the second-order term, as R's "
        "mauchly.test, car, afex and pingouin (default); first_order: the chi-square p SPSS prints (the default "
        "before sigreport 0.x). Both are in results.json.")
    wilcoxon: Literal["auto", "exact", "normal"] = Field(
        "auto", description="Wilcoxon null distribution: auto (exact without ties or zeros up to 50 pairs, else "
        "normal), exact (exact conditional distribution, also with ties and zeros, up to 400 pairs), normal.")
    continuity_correction: bool = Field(
        True, description="Continuity correction of the Wilcoxon normal approximation (R's correct = TRUE).")
    zero_method: Literal["split", "zsplit", "pratt", "wilcox"] = Field(
        "split", description="Wilcoxon zero differences: split their ranks evenly, an odd zero dropped (Demsar "
        "2006), the normal p with the conditional variance (the zeros' halves fixed); zsplit: every zero split, "
        "the unconditional variance N(N+1)(2N+1)/24 with the tie correction (Demsar's formula; scipy's "
        "zero_method='zsplit'); pratt (rank, then drop); wilcox (drop first, as R).")
    resamples: int = Field(10000, ge=99, le=10_000_000, description="Bootstrap / permutation resamples B.")
    ci_method: Literal["percentile", "bca"] = Field("percentile", description="Bootstrap confidence intervals.")
    proportion_ci: ProportionMethod = Field(
        proportion.DEFAULT, description="Interval of each system's proportion for a binary metric (metrics.M.binary, "
        "detected by default): wilson (default; Wilson 1927, recommended at every n by Brown, Cai and DasGupta "
        "2001), clopper_pearson (exact, conservative), jeffreys (equal-tailed, Brown et al.'s boundary "
        "modification) or wald (p ± z√(p(1 − p)/n): of zero width at 0% and 100%, shown with a "
        "warning; for comparison only).")
    omnibus: OmnibusMethod = Field("rm_anova", description="Omnibus test across all systems (three or more).")
    sphericity: Sphericity = Field(
        "auto", description="Sphericity correction for RM-ANOVA. auto: if Mauchly's test (p as mauchly_p) rejects at "
        "alpha, "
        "Huynh-Feldt when the Greenhouse-Geisser epsilon exceeds 0.75, otherwise Greenhouse-Geisser.")
    tie_correction: bool = Field(
        True, description="Friedman: tie-corrected chi-square (as R's friedman.test) or Demsar's uncorrected one; "
        "the one chosen feeds the Iman-Davenport F.")
    posthoc: PosthocMethod = Field(
        "auto", description="Post-hoc test after the omnibus test: auto fits the omnibus (paired tests after "
        "RM-ANOVA; Nemenyi, or Bonferroni-Dunn against the baseline, after Friedman). holm and hochberg compare "
        "with the baseline (without one, holm runs on all pairs); shaffer and bergmann_hommel: all pairs, z tests "
        "on average ranks (Garcia and Herrera 2008); Bergmann-Hommel up to 10 systems, above that Shaffer with a "
        "warning.")
    selection: Literal["auto", "fixed"] = Field(
        "auto", description="fixed: keep the tests the automatic choice made for the previous report in the output "
        "folder, so that releases stay comparable (the report says when the choice would now differ).")
    level: Literal["items", "corpora"] = Field(
        "items", description="items: per metric and corpus, over items; corpora: one score per system and corpus "
        "(items aggregated by the metric's aggregate), analysed across corpora (Demsar's setting).")
    design: Literal["items", "kfold", "5x2cv", "resampled"] = Field(
        "items", description="Cross-validation designs: the data has fold and repeat columns instead of items.")
    cv_methods: list[CVMethod] | None = Field(
        None, description="Tests for a cross-validation design (default: 5x2cv_t and 5x2cv_f for 5x2cv, kfold_t for "
        "kfold, corrected_resampled_t for resampled).")
    n_train: Annotated[int, Field(ge=1)] | dict[str, Annotated[int, Field(ge=1)]] | None = Field(
        None, description="Training-set size (corrected resampled t, correlated Bayesian t): one number, or one per "
        "corpus; n_train and n_test columns in the data (one pair per fold) take precedence.")
    n_test: Annotated[int, Field(ge=1)] | dict[str, Annotated[int, Field(ge=1)]] | None = Field(
        None, description="Test-set size: one number, or one per corpus (as n_train).")
    ci_level: float | None = Field(
        None, gt=0, lt=1, description="Level of every confidence interval of the report (descriptives, every pairwise "
        "and cross-validation test, effect sizes, classification metrics, agreement). Default: 1 - alpha, so that "
        "an interval excludes zero exactly when the test at alpha rejects (for the t-based tests; the others are "
        "their nearest counterpart).")
    runs: RunsSpec = Field(default_factory=RunsSpec, description="Several training runs per system (a run "
                           "column): almost stochastic order's threshold and bootstrap.")
    power: float | None = Field(
        0.8, gt=0, lt=1, description="Power (above alpha, below 1) of the minimum detectable difference reported for "
        "every pair of an item-level pairwise family: the smallest true mean difference its test detects with this probability at "
        "the level the correction asks of a pair (alpha / m; null: not computed). Card et al. (2020) use 0.8.")
    replicability: ReplicabilityMethod | None = Field(
        None, description="Replicability across corpora (two or more, tests.level: items): for each pair and "
        "direction, the partial-conjunction procedure of Dror et al. (2017) over the corpora's one-sided p-values "
        "with Bonferroni or Fisher combination: the count of corpora where a is significantly better, the estimate k "
        "('a beats b on at least k of N corpora', family-wise error at alpha) and p^{u/N}. Default: off.")
    bayesian: BayesianSpec | None = Field(
        None, description="Bayesian comparison of every pair with a region of practical equivalence: the Bayesian "
        "signed-rank test (items or corpora) or the correlated Bayesian t test (cross-validation designs).")
    preferences: PreferencesSpec = Field(default_factory=PreferencesSpec, description="Bradley-Terry analysis of "
                                         "data.preferences: the ties model, the bootstrap's B and unit.")

    @model_validator(mode="after")
    def _consistent(self) -> "TestsSpec":
        if (self.n_train is None) != (self.n_test is None) or (
                isinstance(self.n_train, dict) and isinstance(self.n_test, dict) and set(self.n_train) != set(self.n_test)):
            raise ValueError("n_train and n_test go together (for the same corpora)")
        return self

    def sizes_of(self, corpus: str) -> tuple[int, int] | None:
        """(n_train, n_test) the spec gives for a corpus, or None."""
        train, test = self.n_train, self.n_test
        if isinstance(train, dict) and isinstance(test, dict):
            return (train[corpus], test[corpus]) if corpus in train and corpus in test else None
        if isinstance(train, int) and isinstance(test, int):
            return train, test
        return None


def _label_text(v: Any) -> Any:
    """Labels are text: YAML numbers (1, 2.5) become '1', '2.5'; YAML booleans (yes, no, true) are refused."""
    if isinstance(v, list):
        return [_label_text(x) for x in v]
    if isinstance(v, bool):
        raise ValueError(f"YAML reads {v!r} as a boolean (yes/no/true/false/on/off): quote the label, e.g. 'yes'")
    if isinstance(v, (int, float)):
        return str(v)
    return v


class ClassificationSpec(_Model):
    """Analyses of predicted labels against gold labels (data.predictions)."""

    labels: list[str] | None = Field(
        None, description="The label set in display order (default: order of first appearance); a label outside "
        "it is an error.")
    positive_label: str | None = Field(None, description="Positive class for binary precision, recall, F.")
    beta: float = Field(1.0, gt=0, description="beta of the F-measure (1 gives F1).")
    resamples: int = Field(1000, ge=99, le=1_000_000, description="Bootstrap resamples for metric CIs.")
    ci_level: float | None = Field(None, gt=0, lt=1, description="Confidence level of the metric CIs (default: "
                                   "tests.ci_level, else 1 - alpha; a level set here overrides it and is printed).")
    mcnemar: McNemarVariant = Field(
        "auto", description="McNemar variant: auto is exact binomial when n01 + n10 < 25, else chi-square "
        "(with continuity correction unless mcnemar_correction is false).")
    mcnemar_correction: bool = Field(
        True, description="Continuity correction of McNemar's chi-square (R's mcnemar.test correct = TRUE).")
    test_metrics: list[str] = Field(
        default_factory=lambda: ["accuracy"],
        description="Classification metrics that also get the spec's pairwise and omnibus tests (accuracy, "
        "f1 / f<beta> of the positive label, f1_micro, f1_macro, ...).")

    _text = field_validator("labels", "positive_label", mode="before")(_label_text)


class AgreementSpec(_Model):
    """Inter-annotator agreement on data.annotations (and optionally each system against gold)."""

    measures: list[AgreementMeasure] | None = Field(
        None, description="Default: Cohen's kappa (and weighted kappas for ordinal labels) for two annotators; "
        "pairwise Cohen's kappa, Fleiss' kappa and Krippendorff's alpha for three or more.")
    level: Literal["nominal", "ordinal", "interval"] = Field("nominal", description="Measurement level of labels.")
    order: list[str] | None = Field(None, description="Ordinal labels: their order, lowest first.")
    systems_vs_gold: bool = Field(False, description="Also kappa between each system's predictions and gold.")
    resamples: int = Field(1000, ge=99, le=1_000_000, description="Bootstrap resamples for agreement CIs.")

    _text = field_validator("order", mode="before")(_label_text)

    @model_validator(mode="after")
    def _order(self) -> "AgreementSpec":
        if self.level == "ordinal" and not self.order:
            raise ValueError("ordinal labels need their order (agreement.order)")
        return self


FigureKind = Literal["cd", "forest", "pvalues", "confusion", "winrates", "leaderboard"]


class MainTableSpec(_Model):
    """The main results table (systems x (metric, corpus)) at the top of the report and in main.tex/md/csv."""

    metrics: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="Metrics shown, in this order (default: every metric of the spec).")
    corpora: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="Corpora shown, in this order (default: every corpus analysed).")
    cell: Literal["value", "value_ci", "value_sd"] = Field(
        defaults.MAIN_TABLE_CELL, description="What a cell shows: the mean (or corpus-level value), with its confidence interval, "
        "or with the standard deviation over items.")
    markers: bool = Field(defaults.MAIN_TABLE_MARKERS, description="Significance markers from the corrected pairwise decisions.")
    rank: Literal["ub", "none"] = Field(
        defaults.MAIN_TABLE_RANK, description="A rank column for 3 or more systems: ub = Rank (UB), 1 + the number "
        "of systems the primary test finds significantly better (corrected; ties share); none = no rank column.")
    decimals: int | None = Field(None, ge=0, le=10, description="Decimals of every value (default: the metric's).")

    @field_validator("metrics", "corpora")
    @classmethod
    def _no_duplicates(cls, v: list[str] | None) -> list[str] | None:
        if v is not None and len(set(v)) != len(v):
            raise ValueError(f"listed more than once: {', '.join(sorted({x for x in v if v.count(x) > 1}))}")
        if v is not None and not v:
            raise ValueError("name at least one, or leave the field out for all")
        return v


PagePreset = Literal["article10", "acl", "ieee", "neurips", "lncs"]


class PageSpec(_Model):
    """A page of your own for the LaTeX tables and figures (widths as pdflatex prints \\the\\columnwidth)."""

    columnwidth: float = Field(gt=50, le=2000, description="\\columnwidth in pt (on a one-column page, the text "
                               "width).")
    textwidth: float = Field(gt=50, le=2000, description="\\textwidth in pt.")
    fontsize: float = Field(10.0, ge=8, le=14, description="The body text size in pt (the tables are set in "
                            "\\small: 9pt for a 10pt body, 10pt for 11pt, 10.95pt for 12pt).")

    @model_validator(mode="after")
    def _widths(self) -> "PageSpec":
        if self.textwidth < self.columnwidth:
            raise ValueError(f"textwidth ({self.textwidth:g}) is narrower than columnwidth ({self.columnwidth:g})")
        return self


class LatexSpec(_Model):
    """How the LaTeX tables are set for a paper (the fit rule is in docs/latex.md)."""

    page: PagePreset | PageSpec = Field(
        defaults.LATEX_PAGE, description="The page the tables and figures are set for: article10 (10pt two-column "
        "article), acl (ACL's 11pt two-column page), ieee (IEEEtran conference), neurips (NeurIPS' one-column "
        "page), lncs (Springer LNCS), or {columnwidth, textwidth, fontsize} in pt.")
    @field_validator("page", mode="wrap")
    @classmethod
    def _page(cls, v: Any, handler: Any) -> Any:
        """One message per problem: a preset name, or the mapping's own problems (not both union members')."""
        presets = typing.get_args(PagePreset)
        if isinstance(v, str):
            if v not in presets:
                raise ValueError(f"{v!r} is not a page preset; allowed: {', '.join(presets)}, or a mapping "
                                 "{columnwidth, textwidth, fontsize}")
            return v
        if isinstance(v, PageSpec):
            return v
        if not isinstance(v, dict):
            raise ValueError(f"expected a preset name ({', '.join(presets)}) or a mapping {{columnwidth, textwidth, "
                             "fontsize}")
        return PageSpec.model_validate(v)

    float: Literal["auto", "table", "table*", "none"] = Field(
        defaults.LATEX_FLOAT, description="The float of every table: auto (table when it fits the page's column, table* when "
        "it fits the text width, else panels of one float), table, table*, or none (a bare tabular for you to "
        "wrap).")
    siunitx: bool = Field(defaults.LATEX_SIUNITX, description="Numeric columns as siunitx S columns (needs \\usepackage{siunitx}).")
    pairwise: Literal["rows", "matrix", "auto"] = Field(
        defaults.LATEX_PAIRWISE, description="Pairwise tables: auto (one row per pair with the estimate, its interval, the "
        "adjusted p-value and the better system; a lower-triangle matrix beyond 40 pairs or when the rows do not "
        "fit), matrix (the lower-triangle matrix: sign of the difference and adjusted p-value, or the sign and "
        "a significance mark when the p-values do not fit), or rows (one row per pair with every statistic). "
        "Except with rows, the per-pair table of paired differences and effect sizes of a family of more than "
        "40 pairs is left out (results.json always has it).")
    caption_prefix: str = Field(defaults.LATEX_CAPTION_PREFIX, description="Text put before every table caption.")
    label_prefix: str | None = Field(
        defaults.LATEX_LABEL_PREFIX, pattern=r"^[A-Za-z0-9:_.-]*$", description="Put before every table and figure name in its \\label "
        "(letters, digits, : _ . -). Default: tab:<report>- and fig:<report>-, <report> the spec file's name, so "
        "that two reports can go into one paper.")
    graphics_dir: str | None = Field(
        None, pattern=r"^[A-Za-z0-9_./-]*$", description="The folder the figure snippets take their PDFs from. "
        "Default: \\sigreportdir/figures, \\sigreportdir defined by the snippet as the report folder's path "
        "relative to the paper (. unless you \\newcommand it before \\input).")


class HtmlSpec(_Model):
    """How the HTML report (and the PDF made from it) shows pairwise families."""

    pairwise: Literal["rows", "matrix", "auto"] = Field(
        defaults.HTML_PAIRWISE, description="Pairwise and post-hoc families: rows (one row per pair with every statistic), matrix "
        "(a k x k matrix of adjusted p-values, significant ones marked with the direction), or auto (the matrix for "
        "a family of every pair of more than 40 pairs, i.e. 10 or more systems; rows otherwise).")


class FigureStyleSpec(_Model):
    """How the figures are drawn for print: at the page's column or text width (outputs.latex.page), with
    text at the paper's size, in its font where matplotlib has it."""

    width: Literal["column", "text"] | Annotated[float, Field(gt=50, le=2000)] = Field(
        defaults.FIGURE_WIDTH, description="Width the figures are drawn at: column (the page's \\columnwidth; a figure whose "
        "text cannot fit it at font_size goes to the text width, as figure*), text (\\textwidth, figure*), or a "
        "width in pt.")
    @field_validator("width", mode="wrap")
    @classmethod
    def _width(cls, v: Any, handler: Any) -> Any:
        """One message per problem (not both union members')."""
        if isinstance(v, str) and v not in ("column", "text"):
            raise ValueError(f"{v!r} is not allowed; allowed: column, text, or a width in pt")
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            raise ValueError("expected column, text, or a width in pt")
        if not isinstance(v, str) and not 50 < v <= 2000:
            raise ValueError(f"a width of {v:g}pt is outside 50 to 2000pt")
        return v if isinstance(v, str) else float(v)

    font_size: float | None = Field(None, ge=6, le=14, description="Text size in pt at the drawn width "
                                    "(default: the page's body size minus 1, at least 8).")
    font: str = Field(defaults.FIGURE_FONT, min_length=1, pattern=r"^[A-Za-z0-9 _.-]+$", description="serif (the paper's "
                      "font where matplotlib ships it: Computer Modern for article10 and lncs, STIX (Times-like) "
                      "for acl, ieee and neurips), sans or sans-serif (DejaVu Sans), monospace (DejaVu Sans Mono), "
                      "or a font family matplotlib knows on this machine (another name is an error); DejaVu fills "
                      "in any glyph the font lacks.")

    @field_validator("font")
    @classmethod
    def _font(cls, v: str) -> str:
        """A family matplotlib does not know was left out of the figures' font list and DejaVu Sans drawn instead,
        with no word: refused, naming the closest installed families. matplotlib (its font list, read from its
        cache: no fontconfig) is imported only when a family is named, so ``validate`` of other specs pays nothing."""
        if v in defaults.GENERIC_FONTS:
            return v
        installed = installed_fonts()
        if v in installed:
            return v
        close = [n for n in installed if n.casefold() == v.casefold()] or difflib.get_close_matches(v, installed, 3, 0.0)
        raise ValueError(f"not a font family matplotlib knows on this machine (of {len(installed)}); closest: "
                         f"{', '.join(close) or 'none'}; or one of {', '.join(defaults.GENERIC_FONTS)}")


@functools.lru_cache(maxsize=1)
def installed_fonts() -> tuple[str, ...]:
    """The font families matplotlib knows on this machine (the figures are drawn in one of them), sorted."""
    from matplotlib import font_manager

    return tuple(sorted({f.name for f in font_manager.fontManager.ttflist}))


class OutputsSpec(_Model):
    """Where the report goes, in which formats, and which paper-ready parts it has."""

    dir: str | None = Field(None, description="Report folder (default: reports/<spec file name>/ beside the spec).")
    archive: str | None = Field(None, description="Archive folder of releases (build --release NAME writes "
                                "ARCHIVE/NAME/; default: reports/ beside the spec).")
    formats: list[Format] = Field(default_factory=lambda: list(defaults.FORMATS),
                                  description="Formats to write.")
    main_table: MainTableSpec = Field(default_factory=MainTableSpec)
    latex: LatexSpec = Field(default_factory=LatexSpec)
    html: HtmlSpec = Field(default_factory=HtmlSpec)
    figures: list[FigureKind] = Field(
        default_factory=lambda: list(defaults.FIGURE_KINDS),
        description="Figure kinds drawn: cd (critical-difference diagrams), forest (pairwise differences with "
        "intervals), pvalues (heatmaps of adjusted p-values), confusion (confusion matrices), winrates (the "
        "win-rate matrix of preference votes), leaderboard (each system's value and interval by tier, for 6 or "
        "more ranked systems, and the Bradley-Terry strengths of 6 or more systems' votes); [] for none.")
    figure_style: FigureStyleSpec = Field(default_factory=FigureStyleSpec)

    @field_validator("formats")
    @classmethod
    def _unique(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("formats are listed more than once")
        if not v:
            raise ValueError("at least one format is needed")
        return v

    @field_validator("figures")
    @classmethod
    def _unique_figures(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("figure kinds are listed more than once")
        return v


class OutcomesSpec(_Model):
    """McNemar's test and Cochran's Q on paired yes/no outcomes (data.outcomes)."""

    mcnemar: McNemarVariant = Field(
        "auto", description="McNemar variant: auto is exact binomial when n01 + n10 < 25, else chi-square.")
    mcnemar_correction: bool = Field(True, description="Continuity correction of McNemar's chi-square "
                                     "(R's mcnemar.test correct = TRUE).")


def interval_level(ci_level: float | None, alpha: float | None) -> float:
    """The one rule of a report's interval level: ``tests.ci_level``, else ``1 - alpha`` (``alpha`` None: the
    spec's default). :meth:`Spec.interval_level` applies it to a spec; ``sigreport diff`` and the trends to a
    results.json whose records do not hold their ``ci_level`` (hand-made or partial)."""
    if ci_level is not None:
        return float(ci_level)
    return 1.0 - float(alpha if alpha is not None else Spec.model_fields["alpha"].default)


class StrictSpec(_Model):
    """Notes ``--strict`` accepts (``strict.allow``)."""

    allow: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="Notes that --strict accepts: each entry is a piece of text (case "
        "sensitive) of a note as --strict lists it, 'ANALYSIS: NOTE' (e.g. 'agreement/' for every note of the "
        "agreement analyses, or 'lack a rating from' for that note wherever it is). The notes still appear in the "
        "report; an entry that matches no note fails --strict (a stale entry is said, not kept silently).")


class Spec(_Model):
    """A sigreport experiment spec."""

    title: str = Field(min_length=1, description="Report title.")
    description: str | None = Field(None, description="A paragraph shown under the title.")
    alpha: float = Field(0.05, gt=0, lt=1, description="Significance level.")
    seed: int = Field(0, ge=0, description="Seed of every random choice (resampling); same seed, same report.")
    data: DataSpec = Field(default_factory=DataSpec, description="The data tables (leave out when data frames "
                           "are given to the Python API).")
    systems: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="Systems to compare, in the order of every table (default: order of first appearance).")
    baseline: str | None = Field(
        None, description="The reference system. With tests.comparisons vs_baseline the pairs are (system, "
        "baseline): estimates are system minus baseline and alternative greater means the system scores higher "
        "than the baseline; with all_pairs it keeps its place in the table order.")
    corpora: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="Corpora to analyse (default: all in the data).")
    metrics: dict[str, MetricSpec] = Field(default_factory=dict,
                                           description="Metrics to analyse, by their name in the data.")
    tests: TestsSpec = Field(default_factory=TestsSpec)
    classification: ClassificationSpec | None = Field(None, description="Analyses of data.predictions.")
    agreement: AgreementSpec | None = Field(None, description="Analyses of data.annotations.")
    outcomes: OutcomesSpec | None = Field(None, description="Options of the analyses of data.outcomes.")
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)
    strict: StrictSpec = Field(default_factory=StrictSpec, description="What --strict accepts.")

    @model_validator(mode="before")
    @classmethod
    def _with_source_metrics(cls, raw: Any) -> Any:
        """The metrics a native source defines (sacrebleu's), unless the spec defines them; a partial entry
        under ``metrics`` overrides their fields (label, decimals)."""
        if not isinstance(raw, dict) or not isinstance(raw.get("data"), dict):
            return corpus_level_default(raw)
        found = source_metrics(raw["data"].get("scores"))
        given = raw.get("metrics") if raw.get("metrics") is not None else {}
        if not found or not isinstance(given, dict):
            return corpus_level_default(raw)
        merged = {**found, **{k: ({**found[k], **v} if k in found and isinstance(v, dict) else v)
                              for k, v in given.items()}}
        return corpus_level_default({**raw, "metrics": merged})

    @field_validator("systems", "corpora")
    @classmethod
    def _no_duplicates(cls, v: list[str] | None) -> list[str] | None:
        if v is not None:
            dup = sorted({x for x in v if v.count(x) > 1})
            if dup:
                raise ValueError(f"listed more than once: {', '.join(dup)}")
        return v

    @model_validator(mode="after")
    def _cross_references(self) -> "Spec":
        if self.baseline is not None and self.systems is not None and self.baseline not in self.systems:
            raise ValueError(f"baseline {self.baseline!r} is not one of the systems{did_you_mean(self.baseline, self.systems)}: "
                             f"{', '.join(self.systems)}")
        if self.tests.comparisons == "vs_baseline" and self.baseline is None:
            raise ValueError("tests.comparisons vs_baseline needs a baseline system")
        if self.data.scores is not None and not self.metrics:
            raise ValueError("metrics: name at least one metric of data.scores")
        for name, m in self.metrics.items():
            if m.corpus_level and self.tests.pairwise == "bootstrap_t":
                raise _At(("tests", "pairwise"), f"bootstrap_t studentizes a mean of per-item scores; metric {name!r} "
                          f"is corpus-level (aggregate {m.aggregate}): use bootstrap or permutation")
            if m.corpus_level and self.tests.pairwise != "auto" and \
                    "corpus_level" not in registry.method("pairwise", self.tests.pairwise).applies:
                raise _At(("tests", "pairwise"), f"metric {name!r} is corpus-level (aggregate {m.aggregate}): only "
                          f"resampling tests apply, not {self.tests.pairwise}; set tests.pairwise: auto "
                          "(approximate randomization with the bootstrap's interval), permutation or bootstrap")
        self._clustered_tests()
        self._stratified_tests()
        for name, m in self.metrics.items():
            if m.margin is not None:
                from sigreport.stats.methods.equivalence import TOST

                if self.tests.pairwise not in TOST.methods or self.tests.design != "items":
                    raise _At(("metrics", name, "margin"), f"a margin's equivalence and non-inferiority tests are "
                              f"t-based ({', '.join(TOST.methods)} on items); tests.pairwise is "
                              f"{self.tests.pairwise}" + (f" and tests.design {self.tests.design}"
                                                          if self.tests.design != "items" else "")
                              + ": set tests.pairwise: paired_t, or leave the margin out")
        if self.tests.replicability is not None and (self.tests.level != "items" or self.tests.design != "items"):
            raise _At(("tests", "replicability"), "replicability combines each corpus's item-level pairwise tests: "
                      f"it needs tests.level: items and tests.design: items (given level {self.tests.level}, design "
                      f"{self.tests.design})")
        if self.tests.power is not None and not self.alpha < self.tests.power:
            raise _At(("tests", "power"), power_range_message(self.tests.power, self.alpha))
        if self.tests.pairwise == "bootstrap_t" and self.tests.ci_method == "bca":
            raise _At(("tests", "ci_method"), "bootstrap_t gives the studentized interval; ci_method bca belongs to "
                      "pairwise: bootstrap")
        if self.tests.bayesian is not None:
            unknown = [m for m in self.tests.bayesian.rope if m not in self.metrics]
            if unknown:
                raise _At(("tests", "bayesian", "rope", unknown[0]),
                          f"a ROPE on {', '.join(map(repr, unknown))}{did_you_mean(unknown[0], self.metrics)}, "
                          "which is not a tested metric (metrics: "
                          f"{', '.join(self.metrics) or 'none'})")
            corpus_level = [m for m in self.tests.bayesian.rope if self.metrics[m].corpus_level]
            if corpus_level and self.tests.level == "items" and self.tests.design == "items":
                raise _At(("tests", "bayesian", "rope", corpus_level[0]),
                          f"metric {corpus_level[0]!r} is corpus-level: the Bayesian signed-rank test needs per-item "
                          "scores (use tests.level: corpora, or no ROPE for it)")
        return self

    def _clustered_tests(self) -> None:
        """With ``data.columns.cluster``: every test the spec asks for must respect the clusters (its declaration
        applies to ``clustered_items``); the others are refused, naming why."""
        cluster = self.data.columns.cluster
        if cluster is None:
            return
        t = self.tests
        if t.level != "items" or t.design != "items":
            raise _At(("data", "columns", "cluster"), f"clusters ({cluster!r}) group items: they need tests.level "
                      f"items and tests.design items, not level {t.level}, design {t.design}")
        if t.pairwise != "auto" and "clustered_items" not in registry.method("pairwise", t.pairwise).applies:
            ok = ", ".join(d.name for d in registry.methods("pairwise") if "clustered_items" in d.applies)
            raise _At(("tests", "pairwise"), f"{t.pairwise} has no clustered version (it treats items as "
                      "independent) and cannot respect the "
                      f"clusters of data.columns.cluster ({cluster!r}); use one of {ok} (or auto)")
        for name, m in self.metrics.items():
            if m.corpus_level:
                raise _At(("metrics", name), f"metric {name!r} is corpus-level: clustered inference "
                          f"(data.columns.cluster) is implemented for means of per-item scores only")
        for key in ("omnibus", "posthoc"):
            if key in t.model_fields_set and getattr(t, key) != "none":
                raise _At(("tests", key), f"{getattr(t, key)} treats items as independent and cannot respect the "
                          f"clusters of data.columns.cluster ({cluster!r}); set tests.{key}: none (with clusters "
                          "the omnibus and post-hoc tests are not run)")
        if t.bayesian is not None:
            raise _At(("tests", "bayesian"), "the Bayesian tests treat items as independent and cannot respect the "
                      f"clusters of data.columns.cluster ({cluster!r}); remove tests.bayesian")
        margins = [name for name, m in self.metrics.items() if m.margin is not None]
        if margins:
            raise _At(("metrics", margins[0], "margin"), "the equivalence and non-inferiority tests treat items as "
                      f"independent and cannot respect the clusters of data.columns.cluster ({cluster!r}) yet; leave "
                      "the margin out with clusters")

    def _stratified_tests(self) -> None:
        """A macro average (``metrics.M.average: macro``) needs ``data.columns.stratum`` and tests that respect
        the strata (declarations that apply to ``stratified_items``); not with clusters (not implemented)."""
        macro = [name for name, m in self.metrics.items() if m.average == "macro"]
        if not macro:
            return
        t = self.tests
        if self.data.columns.stratum is None:
            raise _At(("metrics", macro[0], "average"), f"metric {macro[0]!r} is a macro average over strata: name "
                      "the strata's column in data.columns.stratum")
        if self.data.columns.cluster is not None:
            raise _At(("metrics", macro[0], "average"), "a macro average with clustered items (data.columns.cluster) "
                      "is not implemented; use one of them")
        if t.level != "items" or t.design != "items":
            raise _At(("metrics", macro[0], "average"), f"a macro average over strata needs tests.level items and "
                      f"tests.design items, not level {t.level}, design {t.design}")
        for name in macro:
            if self.metrics[name].corpus_level:
                raise _At(("metrics", name, "average"), f"metric {name!r} is corpus-level: a macro average is a "
                          "mean of per-item scores per stratum")
            if self.metrics[name].margin is not None:
                raise _At(("metrics", name, "margin"), f"metric {name!r} is a macro average over strata: its "
                          "equivalence and non-inferiority tests (per-item t) do not respect the strata yet; leave the "
                          "margin out")
        if t.pairwise != "auto" and "stratified_items" not in registry.method("pairwise", t.pairwise).applies:
            ok = ", ".join(d.name for d in registry.methods("pairwise") if "stratified_items" in d.applies)
            raise _At(("tests", "pairwise"), f"{t.pairwise} does not respect the strata of the macro average of "
                      f"{macro[0]!r}; use one of {ok} (or auto)")
        for key in ("omnibus", "posthoc"):
            if key in t.model_fields_set and getattr(t, key) != "none":
                raise _At(("tests", key), f"{getattr(t, key)} compares items, not the macro average of {macro[0]!r}; "
                          f"set tests.{key}: none (the omnibus and post-hoc tests are not run on macro averages)")
        if t.bayesian is not None and any(m in t.bayesian.rope for m in macro):
            raise _At(("tests", "bayesian"), f"the Bayesian tests compare items, not the macro average of "
                      f"{macro[0]!r}; no ROPE for it")

    def data_problems(self, frames: Any = ()) -> list[tuple[tuple[Any, ...], str]]:
        """(field path, message) of what the data section lacks, given the roles of the data frames passed to
        the Python API (a frame stands in for a table the spec does not name)."""
        has = {r: getattr(self.data, r) is not None or r in frames
               for r in ("scores", "predictions", "annotations", "outcomes", "preferences")}
        out: list[tuple[tuple[Any, ...], str]] = []
        if not has["scores"] and self.metrics:
            out.append((("metrics",), "metrics are read from data.scores, which is missing"))
        if not any(has.values()):
            out.append((("data",), "data needs scores (or predictions, annotations, outcomes or preferences)"))
        if self.outcomes is not None and not has["outcomes"]:
            out.append((("outcomes",), "outcomes needs data.outcomes"))
        if self.classification is not None and not has["predictions"]:
            out.append((("classification",), "classification needs data.predictions"))
        if self.agreement is not None and not has["annotations"] and not self.agreement.systems_vs_gold:
            out.append((("agreement",), "agreement needs data.annotations"))
        return out

    def interval_level(self) -> float:
        """The level of every interval of the report: ``tests.ci_level``, else ``1 - alpha`` (the one rule,
        :func:`interval_level`; a ``classification.ci_level`` overrides it for the classification metrics alone)."""
        return interval_level(self.tests.ci_level, self.alpha)

    def has_labels(self) -> bool:
        """Whether the spec has classification, annotation or paired-outcome data."""
        return self.data.predictions is not None or self.data.annotations is not None or self.data.outcomes is not None


def register_format(declaration: SourceFormat) -> None:
    """Add (or replace) an input format at run time and rebuild the models holding ``data.scores``, so that
    validation, messages and the JSON Schema know it, as they know the formats of
    :data:`sigreport.spec.sources.FORMATS`."""
    FORMATS[declaration.name] = declaration
    rebuild_scores_source()


def rebuild_scores_source() -> None:
    """Rebuild ``data.scores``' tagged union from :data:`sigreport.spec.sources.FORMATS` as it is now (after a
    format is registered, or a registration undone), and the models that hold it."""
    global ScoresSource
    ScoresSource = scores_source(FORMATS)
    field = copy.copy(DataSpec.model_fields["scores"])
    field.annotation = ScoresSource | None  # type: ignore[assignment]
    DataSpec.model_fields["scores"] = field
    DataSpec.model_rebuild(force=True)
    Spec.model_rebuild(force=True)
