"""The YAML experiment spec: pydantic models, loading, and errors that point at lines.

``load_spec(path)`` parses the YAML while remembering where every key and value stands, validates
it with the models below (``extra="forbid"``, frozen), checks cross-references, and raises
:class:`SpecError` listing every problem at once, each with its line and field path.
This module knows nothing of data files or statistics.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from sigreport.errors import Problem, SpecError

Alternative = Literal["two-sided", "greater", "less"]
Correction = Literal["holm", "bonferroni", "hochberg", "fdr_bh", "fdr_by", "none"]
PairwiseMethod = Literal["auto", "paired_t", "wilcoxon", "sign", "bootstrap", "permutation"]
OmnibusMethod = Literal["auto", "rm_anova", "friedman", "none"]
PosthocMethod = Literal["auto", "nemenyi", "bonferroni_dunn", "holm", "hochberg", "paired", "none"]
Sphericity = Literal["auto", "greenhouse_geisser", "huynh_feldt", "none"]
Format = Literal["html", "pdf", "latex", "json"]

class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ColumnsSpec(_Model):
    """Names of the score table's columns, when they differ from the defaults."""

    system: str = "system"
    corpus: str = "corpus"
    item: str = "item"
    metric: str = "metric"
    value: str = "value"
    fold: str = Field("fold", description="Cross-validation designs: the fold column.")
    repeat: str = Field("repeat", description="Cross-validation designs: the repetition column.")


class LabelColumnsSpec(_Model):
    """Column names of the predictions and annotations tables, when they differ from the defaults."""

    system: str = "system"
    corpus: str = "corpus"
    item: str = "item"
    gold: str = "gold"
    pred: str = "pred"
    annotator: str = "annotator"
    label: str = "label"


class DataSpec(_Model):
    """Where the scores are and how to read them. Relative paths resolve against the spec's folder."""

    scores: str | None = Field(
        None, description="Long table of per-item scores: .csv, .tsv, .jsonl (or .parquet with pyarrow).")
    columns: ColumnsSpec = Field(default_factory=ColumnsSpec, description="Map the standard column names to yours.")
    missing: Literal["error", "drop_items"] = Field(
        "error", description="A system lacking an item another system has: stop with an error, or drop that item "
        "for every system (the report says how many were dropped).")
    predictions: str | None = Field(None, description="Long table system, corpus, item, gold, pred (labels as text).")
    annotations: str | None = Field(None, description="Long table item, annotator, label (optionally corpus); "
                                    "missing ratings allowed.")
    label_columns: LabelColumnsSpec = Field(default_factory=LabelColumnsSpec,
                                            description="Column names of predictions and annotations.")


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

    @model_validator(mode="after")
    def _aggregate_needs_statistics(self) -> "MetricSpec":
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


class TestsSpec(_Model):
    """Which tests run, with every statistical choice written down."""

    pairwise: PairwiseMethod = Field(
        "paired_t", description="Test for each pair of systems; auto chooses paired t or Wilcoxon (see the report).")
    alternative: Alternative = Field(
        "two-sided", description="Alternative hypothesis for every pair (a vs b, a listed before b). "
        "Choose it before seeing the data.")
    comparisons: Literal["all_pairs", "vs_baseline"] = Field(
        "all_pairs", description="Compare every pair of systems, or every system with the baseline.")
    correction: Correction = Field("holm", description="Multiple-comparison correction over the family.")
    family: Literal["metric_corpus"] = Field(
        "metric_corpus", description="The family a correction runs over: all comparisons of one metric on one corpus.")
    zero_method: Literal["split", "pratt", "wilcox"] = Field(
        "split", description="Wilcoxon zero differences: split their ranks evenly (Demsar 2006), pratt (rank, then "
        "drop), wilcox (drop first, as R).")
    resamples: int = Field(10000, ge=99, le=10_000_000, description="Bootstrap / permutation resamples B.")
    ci_method: Literal["percentile", "bca"] = Field("percentile", description="Bootstrap confidence intervals.")
    omnibus: OmnibusMethod = Field("rm_anova", description="Omnibus test across all systems (three or more).")
    sphericity: Sphericity = Field(
        "auto", description="Sphericity correction for RM-ANOVA. auto: if Mauchly's test rejects at alpha, "
        "Huynh-Feldt when the Greenhouse-Geisser epsilon exceeds 0.75, otherwise Greenhouse-Geisser.")
    tie_correction: bool = Field(
        True, description="Friedman: tie-corrected chi-square (as R's friedman.test) or Demsar's uncorrected one; "
        "the one chosen feeds the Iman-Davenport F.")
    posthoc: PosthocMethod = Field(
        "auto", description="Post-hoc test after the omnibus test: auto fits the omnibus (paired tests after "
        "RM-ANOVA; Nemenyi, or Bonferroni-Dunn against the baseline, after Friedman).")
    selection: Literal["auto", "fixed"] = Field(
        "auto", description="fixed: keep the tests the automatic choice made for the previous report in the output "
        "folder, so that releases stay comparable (the report says when the choice would now differ).")
    level: Literal["items", "corpora"] = Field(
        "items", description="items: per metric and corpus, over items; corpora: one score per system and corpus "
        "(items aggregated by the metric's aggregate), analysed across corpora (Demsar's setting).")
    design: Literal["items", "kfold", "5x2cv", "resampled"] = Field(
        "items", description="Cross-validation designs: the data has fold and repeat columns instead of items.")
    cv_methods: list[Literal["5x2cv_t", "5x2cv_f", "kfold_t", "corrected_resampled_t", "resampled_t"]] | None = Field(
        None, description="Tests for a cross-validation design (default: 5x2cv_t and 5x2cv_f for 5x2cv, kfold_t for "
        "kfold, corrected_resampled_t for resampled).")
    n_train: int | None = Field(None, ge=1, description="Training-set size (corrected resampled t).")
    n_test: int | None = Field(None, ge=1, description="Test-set size (corrected resampled t).")

    @model_validator(mode="after")
    def _consistent(self) -> "TestsSpec":
        if self.design != "items" and (self.n_train is None or self.n_test is None):
            methods = self.cv_methods or (["corrected_resampled_t"] if self.design == "resampled" else [])
            if "corrected_resampled_t" in methods:
                raise ValueError("corrected_resampled_t needs n_train and n_test (Nadeau and Bengio's correction)")
        return self


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
    ci_level: float = Field(0.95, gt=0, lt=1, description="Confidence level of the metric CIs.")
    mcnemar: Literal["auto", "exact", "chi2"] = Field(
        "auto", description="McNemar variant: auto is exact binomial when n01 + n10 < 25, else chi-square with "
        "continuity correction.")
    test_metrics: list[str] = Field(
        default_factory=lambda: ["accuracy"],
        description="Classification metrics that also get the spec's pairwise and omnibus tests (accuracy, "
        "f1 / f<beta> of the positive label, f1_micro, f1_macro, ...).")

    _text = field_validator("labels", "positive_label", mode="before")(_label_text)


class AgreementSpec(_Model):
    """Inter-annotator agreement on data.annotations (and optionally each system against gold)."""

    measures: list[Literal["cohen_kappa", "weighted_kappa_linear", "weighted_kappa_quadratic", "fleiss_kappa",
                           "krippendorff_alpha"]] | None = Field(
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


class OutputsSpec(_Model):
    """Where the report goes and in which formats."""

    dir: str | None = Field(None, description="Report folder (default: reports/<spec file name>/ beside the spec).")
    archive: str | None = Field(None, description="Archive folder of releases (build --release NAME writes "
                                "ARCHIVE/NAME/; default: reports/ beside the spec).")
    formats: list[Format] = Field(default_factory=lambda: ["html", "pdf", "latex", "json"],
                                  description="Formats to write.")

    @field_validator("formats")
    @classmethod
    def _unique(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("formats are listed more than once")
        if not v:
            raise ValueError("at least one format is needed")
        return v


class Spec(_Model):
    """A sigreport experiment spec."""

    title: str = Field(min_length=1, description="Report title.")
    description: str | None = Field(None, description="A paragraph shown under the title.")
    alpha: float = Field(0.05, gt=0, lt=1, description="Significance level.")
    seed: int = Field(0, ge=0, description="Seed of every random choice (resampling); same seed, same report.")
    data: DataSpec
    systems: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="Systems to compare, in the order of every table (default: order of first appearance).")
    baseline: str | None = Field(None, description="The reference system (listed first in pairs).")
    corpora: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="Corpora to analyse (default: all in the data).")
    metrics: dict[str, MetricSpec] = Field(default_factory=dict,
                                           description="Metrics to analyse, by their name in the data.")
    tests: TestsSpec = Field(default_factory=TestsSpec)
    classification: ClassificationSpec | None = Field(None, description="Analyses of data.predictions.")
    agreement: AgreementSpec | None = Field(None, description="Analyses of data.annotations.")
    outputs: OutputsSpec = Field(default_factory=OutputsSpec)

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
            raise ValueError(f"baseline {self.baseline!r} is not one of the systems: {', '.join(self.systems)}")
        if self.tests.comparisons == "vs_baseline" and self.baseline is None:
            raise ValueError("tests.comparisons vs_baseline needs a baseline system")
        if self.data.scores is not None and not self.metrics:
            raise ValueError("metrics: name at least one metric of data.scores")
        if self.data.scores is None and self.metrics:
            raise ValueError("metrics are read from data.scores, which is missing")
        if self.data.scores is None and not self.has_labels():
            raise ValueError("data needs scores (or predictions or annotations)")
        for name, m in self.metrics.items():
            if m.corpus_level and self.tests.pairwise not in ("bootstrap", "permutation"):
                raise ValueError(f"metric {name!r} is corpus-level (aggregate {m.aggregate}): only bootstrap and "
                                 f"permutation apply, not {self.tests.pairwise}")
        if self.classification is not None and self.data.predictions is None:
            raise ValueError("classification needs data.predictions")
        if self.agreement is not None and self.data.annotations is None and not self.agreement.systems_vs_gold:
            raise ValueError("agreement needs data.annotations")
        return self

    def has_labels(self) -> bool:
        """Whether the spec has classification or annotation data."""
        return self.data.predictions is not None or self.data.annotations is not None


# --------------------------------------------------------------------------------------------
# YAML with positions


class _Positions:
    """Line of every key/value in a YAML document, by field path (tuple of keys and indices)."""

    def __init__(self) -> None:
        self.lines: dict[tuple[Any, ...], int] = {}
        self.problems: list[Problem] = []

    def walk(self, node: yaml.Node, path: tuple[Any, ...], source: str) -> None:
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, value_node in node.value:
                key = key_node.value
                if key in seen:
                    self.problems.append(Problem(source, key_node.start_mark.line + 1, _dotted(path + (key,)),
                                                 f"key {key!r} appears more than once"))
                seen.add(key)
                self.lines[path + (key,)] = key_node.start_mark.line + 1
                self.walk(value_node, path + (key,), source)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                self.walk(item, path + (i,), source)

    def line_of(self, path: tuple[Any, ...]) -> int | None:
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return None


def _dotted(path: tuple[Any, ...]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def _allowed_keys(loc: tuple[Any, ...]) -> list[str]:
    """Field names of the model found at ``loc`` (for 'unknown key' messages)."""
    model: Any = Spec
    for part in loc:
        if isinstance(part, int) or model is None:
            continue
        field = model.model_fields.get(part) if hasattr(model, "model_fields") else None
        if field is None:
            # inside a dict of models (metrics.<name>)
            if model is Spec and part in ("metrics",):
                continue
            continue
        ann = field.annotation
        nxt = None
        for cand in (ann, *getattr(ann, "__args__", ())):
            if isinstance(cand, type) and issubclass(cand, BaseModel):
                nxt = cand
            for sub in getattr(cand, "__args__", ()):
                if isinstance(sub, type) and issubclass(sub, BaseModel):
                    nxt = sub
        model = nxt
    return sorted(model.model_fields) if model is not None and hasattr(model, "model_fields") else []


def _message(err: dict[str, Any]) -> str:
    typ = err["type"]
    given = err.get("input")
    ctx = err.get("ctx") or {}
    if typ == "extra_forbidden":
        allowed = _allowed_keys(tuple(err["loc"][:-1]))
        return f"unknown key {err['loc'][-1]!r}" + (f"; allowed: {', '.join(allowed)}" if allowed else "")
    if typ == "missing":
        return "required but missing"
    if typ == "literal_error":
        return f"{given!r} is not allowed; allowed: {ctx.get('expected', '')}"
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    if isinstance(given, (str, int, float, bool)) and typ not in ("string_too_short",):
        return f"{msg} (given: {given!r})"
    return msg


@dataclasses.dataclass(frozen=True)
class SpecFile:
    """A validated spec with where it came from, so later stages can point at its lines."""

    path: Path
    spec: Spec
    lines: dict[tuple[Any, ...], int]

    @property
    def folder(self) -> Path:
        return self.path.resolve().parent

    def line_of(self, *path: Any) -> int | None:
        p = tuple(path)
        while p:
            if p in self.lines:
                return self.lines[p]
            p = p[:-1]
        return None

    def problem(self, message: str, *path: Any) -> Problem:
        return Problem(str(self.path), self.line_of(*path), _dotted(tuple(path)), message)

    def resolve(self, relative: str) -> Path:
        return (self.folder / relative).resolve()


def load_spec(path: str | Path) -> Spec:
    """Read and validate a spec; raise SpecError listing every problem with its line."""
    return load_spec_file(path).spec


def load_spec_file(path: str | Path) -> SpecFile:
    """Like :func:`load_spec`, keeping the file's path and line positions."""
    path = Path(path)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError(source, [Problem(source, None, "", "file not found")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(source, [Problem(source, None, "", f"cannot read: {exc}")]) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        what = getattr(exc, "problem", None) or str(exc)
        raise SpecError(source, [Problem(source, line, "", f"not valid YAML: {what}")]) from None
    positions = _Positions()
    if node is not None:
        positions.walk(node, (), source)
    if positions.problems:
        raise SpecError(source, positions.problems)
    if not isinstance(raw, dict):
        raise SpecError(source, [Problem(source, 1, "", "the spec must be a YAML mapping (key: value lines)")])
    try:
        return SpecFile(path, Spec.model_validate(raw), dict(positions.lines))
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
            problems.append(Problem(source, positions.line_of(loc), _dotted(loc), _message(err)))
        raise SpecError(source, problems) from None


def output_dir(sf: SpecFile) -> Path:
    """Report folder: ``outputs.dir`` (relative to the spec) or ``reports/<spec file name>/`` beside it."""
    if sf.spec.outputs.dir:
        return sf.resolve(sf.spec.outputs.dir)
    return sf.folder / "reports" / sf.path.stem


def json_schema() -> dict[str, Any]:
    """JSON Schema of the spec, for editors (committed as schema/sigreport.schema.json)."""
    schema = Spec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "sigreport spec"
    return schema
