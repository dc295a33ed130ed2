"""The typed Dataset the analyses read: score blocks, predictions, annotations and input file facts.

Frozen dataclasses only; no statistics, no reading. Everything that used to travel in an untyped
``Dataset.extra`` dict has its own field here.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping

import numpy as np

from sigreport.spec import MetricSpec
from sigreport.stats.resampling import CorpusMetric

BlockKey = tuple[str, "str | None"]


@dataclasses.dataclass(frozen=True)
class Block:
    """Scores of one metric on one corpus (or across corpora when ``corpus`` is None).

    ``stats[i, j, :]`` holds the per-item sufficient statistics of system j on item i (one column for a
    mean metric, whose values are then ``scores[i, j]``). ``items`` name the rows: items, corpora
    (level corpora) or ``repeat/fold`` (cross-validation designs). With several training runs per system
    (a ``run`` column), ``runs[j]`` holds system j's statistics per item and run, and ``stats`` their mean
    over the runs, which the tests over items read. With ``data.columns.cluster``, ``clusters[i]`` is item i's
    cluster code into ``cluster_names`` (the clusters of the items kept, in order of first appearance); for a
    macro-averaged metric (``metrics.M.average: macro``) ``strata[i]`` is item i's stratum code likewise.
    """

    metric: str
    corpus: str | None
    systems: tuple[str, ...]
    items: tuple[str, ...]
    stats: np.ndarray
    dropped_items: int = 0
    level: str = "items"
    folds: tuple[tuple[str, str], ...] | None = None
    runs: tuple[np.ndarray, ...] | None = None  # per system (items, its runs, statistics); stats is their mean
    run_names: tuple[tuple[str, ...], ...] | None = None
    n_train: float | None = None  # cross-validation: mean training and test sizes of the folds, when the data has them
    n_test: float | None = None
    clusters: np.ndarray | None = None  # data.columns.cluster: each item row's cluster code, 0..G-1
    cluster_names: tuple[str, ...] | None = None  # the clusters' labels, by code
    strata: np.ndarray | None = None  # a macro average (metrics.M.average: macro): each item row's stratum code
    stratum_names: tuple[str, ...] | None = None

    @property
    def n_clusters(self) -> int | None:
        """G, the number of clusters of the items (None without data.columns.cluster)."""
        return None if self.cluster_names is None else len(self.cluster_names)

    @property
    def cluster_codes(self) -> tuple[np.ndarray, int] | None:
        """(each item's cluster code, G), as :class:`~sigreport.stats.declaration.PairwiseInput` takes them."""
        return None if self.clusters is None or self.cluster_names is None else (self.clusters, len(self.cluster_names))

    @property
    def stratum_codes(self) -> tuple[np.ndarray, int] | None:
        """(each item's stratum code, S) of a macro-averaged metric, as ``PairwiseInput.strata`` takes them."""
        return None if self.strata is None or self.stratum_names is None else (self.strata, len(self.stratum_names))
    # several answers per question (data.columns.sample): items x systems x answers of the first statistic, NaN
    # where a question has fewer answers; ``stats`` holds each question's mean over its answers
    samples: np.ndarray | None = None
    sample_names: tuple[str, ...] | None = None

    @property
    def scores(self) -> np.ndarray:
        """Items x systems values of a mean metric (the first statistic otherwise)."""
        return self.stats[:, :, 0]


@dataclasses.dataclass(frozen=True)
class PredictionGroup:
    """One corpus: ``gold[i]`` and ``pred[i, j]`` are codes into ``labels`` of item i (system j).

    ``labels`` are this corpus's own: the labels that occur in its gold or predicted labels (as scikit-learn
    takes them from ``y_true`` and ``y_pred``), in the table's label order. Several data sets in one
    predictions file do not lend each other their classes."""

    corpus: str
    items: tuple[str, ...]
    labels: tuple[str, ...]
    gold: np.ndarray
    pred: np.ndarray
    dropped_items: int = 0

    def correct(self) -> np.ndarray:
        """(n_items, k_systems) booleans: system j predicted item i's gold label."""
        return self.pred == self.gold[:, None]


@dataclasses.dataclass(frozen=True)
class Predictions:
    """System predictions against gold labels, per corpus (:class:`PredictionGroup`, each with its own
    label set). ``labels``: every label of the table, in order (declared, or of first appearance)."""

    source: str
    labels: tuple[str, ...]
    systems: tuple[str, ...]
    corpora: tuple[str, ...]
    groups: dict[str, PredictionGroup]


@dataclasses.dataclass(frozen=True)
class OutcomeGroup:
    """One corpus of paired yes/no outcomes: ``outcome[i, j]`` is system j's outcome on subject i."""

    corpus: str
    items: tuple[str, ...]
    outcome: np.ndarray
    dropped_items: int = 0

    def correct(self) -> np.ndarray:
        """(n_items, k_systems) booleans, the yes outcomes: what McNemar's test and Cochran's Q compare (the
        name is the predictions' one, whose 'yes' is a right label)."""
        return self.outcome


@dataclasses.dataclass(frozen=True)
class Outcomes:
    """Paired yes/no outcomes of the systems (conditions) on the same subjects, per corpus."""

    source: str
    systems: tuple[str, ...]
    corpora: tuple[str, ...]
    groups: dict[str, OutcomeGroup]


@dataclasses.dataclass(frozen=True)
class PreferenceGroup:
    """The votes: ``a``, ``b`` indices into the systems, ``outcome`` 1 (a won), -1 (b won) or 0 (a tie), one
    per vote in table order; ``item`` codes into ``items`` and ``judge`` codes into ``judges`` when the table
    has those columns (else None and ())."""

    corpus: str
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    items: tuple[str, ...]
    item: np.ndarray | None
    judges: tuple[str, ...]
    judge: np.ndarray | None


@dataclasses.dataclass(frozen=True)
class Preferences:
    """Pairwise preference votes (``data.preferences``): the systems (the spec's order, else first appearance)
    and one group of votes (``corpora`` is its one name, :data:`PREFERENCE_GROUP`)."""

    source: str
    systems: tuple[str, ...]
    corpora: tuple[str, ...]
    groups: dict[str, PreferenceGroup]


PREFERENCE_GROUP = "votes"
"""The one group of data.preferences (its block key and the record's corpus)."""


@dataclasses.dataclass(frozen=True)
class AnnotationGroup:
    """One corpus (``None``: the table has no corpus column): ratings (n_items, n_annotators), -1 = missing.

    ``annotators`` are those with at least one rating in this group.
    """

    corpus: str | None
    items: tuple[str, ...]
    annotators: tuple[str, ...]
    ratings: np.ndarray


@dataclasses.dataclass(frozen=True)
class Annotations:
    """Annotators' ratings, per corpus, as label codes into ``labels``."""

    source: str
    labels: tuple[str, ...]
    values: tuple[float, ...] | None  # numeric value of each label (interval level)
    annotators: tuple[str, ...]
    groups: dict[str | None, AnnotationGroup]


@dataclasses.dataclass(frozen=True)
class DataFile:
    """One input table as results.json's ``data`` section names it: file name, sha256, rows read."""

    file: str
    sha256: str
    rows: int

    def as_dict(self) -> dict[str, object]:
        return {"file": self.file, "sha256": self.sha256, "rows": self.rows}


@dataclasses.dataclass(frozen=True)
class LeftOut:
    """Rows of one data table the spec leaves out along one axis: the ``names`` of ``field`` (``systems``,
    ``corpora`` or ``metrics``) that the table has and the spec does not list, and their ``rows`` of the
    table's ``of``. ``table``: the data key (``scores``, ``predictions``, ``annotations``, ``outcomes``). A row
    may be left out along two axes (a system not listed, on a corpus not listed), so the counts may overlap."""

    field: str
    names: tuple[str, ...]
    rows: int
    table: str = "scores"
    of: int = 0

    def as_dict(self) -> dict[str, object]:
        return {"table": self.table, "field": self.field, "names": list(self.names), "rows": self.rows,
                "of": self.of}


@dataclasses.dataclass(frozen=True)
class Dataset:
    """Everything the analyses need from the data tables, checked and in the spec's order.

    ``source``/``sha256``/``n_rows`` describe the score table (empty when there is none);
    ``files`` the label tables (``predictions``, ``annotations``); ``aggregates`` maps every metric
    to its corpus-level function. ``left_out``: what the score table has that the spec does not list (never
    analysed, so named in validate's and the build's warnings and in the report); ``table_rows``: the score
    table's rows, those analysed (``n_rows``) and those left out.
    """

    source: str
    sha256: str
    systems: tuple[str, ...]
    corpora: tuple[str, ...]
    metrics: tuple[str, ...]
    blocks: dict[BlockKey, Block]
    n_rows: int
    metric_specs: Mapping[str, MetricSpec] = dataclasses.field(default_factory=dict)
    aggregates: Mapping[str, CorpusMetric] = dataclasses.field(default_factory=dict)
    predictions: Predictions | None = None
    annotations: Annotations | None = None
    files: Mapping[str, DataFile] = dataclasses.field(default_factory=dict)
    source_info: Mapping[str, object] = dataclasses.field(default_factory=dict)
    outcomes: Outcomes | None = None
    preferences: Preferences | None = None
    left_out: tuple[LeftOut, ...] = ()
    table_rows: int = 0

    def lookup(self, key: tuple) -> object:
        """The data a plan node reads, by block key: ("scores", metric, corpus) -> Block; ("aggregate",
        metric) -> the metric's CorpusMetric; ("predictions" | "annotations", corpus) -> (table, group)."""
        kind = key[0]
        if kind == "scores":
            return self.blocks[(key[1], key[2])]
        if kind == "aggregate":
            return self.aggregates[key[1]]
        if kind in ("predictions", "annotations", "outcomes", "preferences"):
            table = {"predictions": self.predictions, "annotations": self.annotations, "outcomes": self.outcomes,
                     "preferences": self.preferences}[kind]
            if table is None:
                raise KeyError(key)
            return table, table.groups[key[1]]
        raise KeyError(key)

    def fingerprint(self, key: tuple) -> str:
        """sha256 of the content of a block (for content-addressed caching of the analyses that read it)."""
        h = hashlib.sha256()
        if key[0] == "aggregate":
            fn = self.aggregates[key[1]]
            parts = (self.metric_specs[key[1]].model_dump(mode="json"), fn.name, fn.n_stats, fn.stat_names)
            code = getattr(fn.func, "source_digest", None)  # a user aggregate: its module's bytes
            _digest(h, parts if code is None else (*parts, code))
        elif key[0] in ("predictions", "annotations", "outcomes", "preferences"):  # this corpus's group and the table's shared parts
            table, group = self.lookup(key)  # type: ignore[misc]
            _digest(h, ({f.name: getattr(table, f.name) for f in dataclasses.fields(table) if f.name != "groups"},
                        group))
        else:
            _digest(h, self.lookup(key))
        return h.hexdigest()


def _digest(h: "hashlib._Hash", obj: object) -> None:
    """Feed a stable byte form of data (dataclasses, arrays, containers, scalars) into a hash."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            h.update(f.name.encode())
            _digest(h, getattr(obj, f.name))
    elif isinstance(obj, np.ndarray):
        h.update(f"{obj.dtype.str}{obj.shape}".encode())
        h.update(np.ascontiguousarray(obj).tobytes())
    elif isinstance(obj, Mapping):
        for k in sorted(obj, key=str):
            h.update(repr(k).encode())
            _digest(h, obj[k])
    elif isinstance(obj, (list, tuple)):
        h.update(f"[{len(obj)}".encode())
        if all(type(v) is str for v in obj):  # item names: the bytes the loop below would feed, in one update
            h.update("".join(map(repr, obj)).encode())
            return
        for v in obj:
            _digest(h, v)
    else:
        h.update(repr(obj).encode())
