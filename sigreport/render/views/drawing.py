"""A report's figures as tasks, drawn before the report model is built and handed to it.

Why: drawing is most of a large report's render time, and what to draw (each record's figure kinds, whether
the vector PDF is made, the figure style) is known from the records and the options alone. So the figures
are plan tasks, one per record that draws any, run by the build's plan runner (:func:`sigreport.execute.run_plan`,
with its cache and executors; wired in :mod:`sigreport.api.figures`, since render does not import the plan
or execute layers), and :func:`sigreport.render.views.build_report` only places what they drew (its ``drawn``):
a pure function of the results, the options and the drawn figures.

This module says what each task draws (:func:`figure_tasks`), gives the tasks their inputs
(:class:`FigureInputs`: the blocks a task reads, its record and its metric, fingerprinted by content and by
the drawing environment, which makes the task's cache key), draws (:func:`draw_task`, a module function a
worker imports by name) and trusts only figures from a store (:class:`FigureStore`).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Collection, Mapping, Sequence

from sigreport.render.figure_cache import KEY_SCHEMA, Store, content_digest, environment, valid
from sigreport.render.figures import draw_record, figure_plan
from sigreport.render.figures.output import (FigureOutput, FigureStyle, figure_settings, figure_style, font_families,
                                             readable_style, start_figures, style_of)
from sigreport.render.options import RenderOptions
from sigreport.render.views.common import Labels, shown_as_matrix
from sigreport.render.views.labels import matrix_owners
from sigreport.results.collection import MetricInfo, Results
from sigreport.speed.workers import Ready
from sigreport.results.records import (ClassificationRecord, McNemarRecord, PairwiseRecord, PosthocRecord, Record,
                                       pair_count)

Drawn = Mapping[str, tuple[FigureOutput, ...]]  # record id -> its figures, in drawing order
BlockKey = tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class FigureParams:
    """What a figure task draws besides its record: the figure kinds (:func:`kinds_of`), whether PDFs are
    made (LaTeX output only), the style. Plain data: it is part of the task's cache key."""

    kinds: tuple[str, ...]
    pdf: bool
    style: FigureStyle


@dataclasses.dataclass(frozen=True)
class FigureTask:
    """One record's figures to draw: the task's id (``figures/<record id>``), the record's id, what to draw."""

    id: str
    record: str
    params: FigureParams

    @property
    def block(self) -> BlockKey:
        """The block the task reads from :class:`FigureInputs`."""
        return ("figures", self.record)


def labels_of(results: Results, options: RenderOptions) -> Labels:
    """The labels the views (and the figure tasks' matrix rule) read."""
    return Labels(results.metrics, results.alpha, matrix_owners(results.records), options.html_pairwise,
                  options.latex.pairwise, options.baseline)


def figure_style_of(results: Results, options: RenderOptions) -> FigureStyle:
    """The one figure style of a report: the page's and ``outputs.figure_style``, in a font that draws the names."""
    return readable_style(style_of(options.latex.page, options.figure_style), drawn_names(results))


def drawn_names(results: Results) -> list[str]:
    """The names the figures may draw: systems, corpora, metric labels and class labels."""
    labels = [label for r in results.records if isinstance(r, ClassificationRecord) for label in r.labels]
    return [*results.systems, *map(str, results.corpora), *(m.label for m in results.metrics.values()), *labels]


MATRIX_KINDS = ("pairwise", "cv", "posthoc")  # records whose view has the HTML matrix (with_html_matrix)


def in_matrix(record: Record, lab: Labels) -> bool:
    """Whether the record is a family the HTML shows as a p-value matrix (:func:`~.common.shown_as_matrix`;
    the views of :data:`MATRIX_KINDS` follow it). Decided from the record, before its view is built, so
    that the figures can be drawn before the views are."""
    return (record.kind in MATRIX_KINDS and isinstance(record, (PairwiseRecord, PosthocRecord, McNemarRecord))
            and shown_as_matrix(record.pairs, lab.html_pairwise))


def kinds_of(record: Record, kinds: tuple[str, ...], lab: Labels, matrix: bool | None = None) -> tuple[str, ...]:
    """The figure kinds drawn for one record: ``kinds`` without the p-value heat map of a family shown as a
    matrix (``matrix``, else :func:`in_matrix`). The matrix holds the same numbers, bold when significant
    and tinted by direction, so the map would repeat it (without its numbers, beyond 12 systems); drawing
    it cost most of a large report's build (docs/performance.md)."""
    if "pvalues" in kinds and (in_matrix(record, lab) if matrix is None else matrix):
        return tuple(k for k in kinds if k != "pvalues")
    return kinds


def figure_tasks(results: Results, options: RenderOptions = RenderOptions(), figures: Collection[str] | None = None,
                 pdf: bool | None = None) -> tuple[FigureTask, ...]:
    """One task per record that draws a figure, in record order (records that draw nothing, such as
    descriptives, omnibus tests and large families, get none). ``figures``: the kinds drawn (default:
    ``options.figures``); ``pdf``: whether figures carry their vector PDF (default: LaTeX is written)."""
    kinds = options.figures if figures is None else tuple(figures)
    if not kinds:
        return ()
    pdf = "latex" in options.formats if pdf is None else pdf
    lab, fs = labels_of(results, options), figure_style_of(results, options)
    out = []
    for r in results.records:
        mine = kinds_of(r, kinds, lab)
        if figure_plan(r, results, mine):
            out.append(FigureTask(f"figures/{r.id}", r.id, FigureParams(mine, bool(pdf), fs)))
    return tuple(out)


class FigureInputs:
    """The blocks the figure tasks read (a :class:`sigreport.plan.BlockSource`): ``("figures", record id)``
    is the record and its metric's :class:`MetricInfo` (None without a metric), everything a drawing
    function reads. Its fingerprint is a sha256 of their content (:func:`~sigreport.render.figure_cache.content_digest`)
    and of the drawing environment in ``style``'s font (:func:`~sigreport.render.figure_cache.environment`):
    with the task's parameters and the code's version (the plan's content key) that is everything that can
    change a figure's bytes."""

    def __init__(self, results: Results, style: FigureStyle):
        self._records = {r.id: r for r in results.records}
        self._metrics = results.metrics
        self._style = style
        self._prints: dict[BlockKey, str] = {}
        with figure_style(style):
            font_families()  # once, before any worker is forked: every worker inherits the same list

    def lookup(self, key: BlockKey) -> tuple[Record, MetricInfo | None]:
        record = self._records[key[1]]
        return record, self._metrics.get(record.metric) if record.metric else None

    def rows(self, key: BlockKey) -> int:
        """The rows of the record a block holds (its pairs; 0 for a record without): what sending it costs
        (:func:`sigreport.execute.forked.worth_sending`)."""
        return pair_count(self._records[key[1]])

    def fingerprint(self, key: BlockKey) -> str:
        if key not in self._prints:
            record, metric = self.lookup(key)
            with figure_style(self._style):
                env = environment()
            text = "\n".join([KEY_SCHEMA, env, content_digest(record, metric)])
            self._prints[key] = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return self._prints[key]


def draw_task(node_id: str, inputs: tuple[tuple[Record, MetricInfo | None], ...], params: FigureParams,
              deps: tuple[object, ...]) -> tuple[FigureOutput, ...]:
    """A figure task's node function (:class:`sigreport.plan.NodeFunction`): the figures of the record in
    ``inputs`` (one :class:`FigureInputs` block), drawn with ``params``."""
    (record, metric), = inputs
    return draw_record((record, metric, params.kinds, params.pdf, params.style))


def _draw_item(item: tuple[tuple[Record, MetricInfo | None], FigureParams]) -> tuple[FigureOutput, ...]:
    block, params = item
    return draw_task("", (block,), params, ())


def draw_here(results: Results, tasks: Sequence[FigureTask], jobs: int = 1,
              ready: Ready | None = None) -> dict[str, tuple[FigureOutput, ...]]:
    """The figures of ``tasks`` drawn without a plan runner or a cache (a report model made from results
    alone: the notebook, tests, benchmarks), in ``jobs`` forked workers or the workers made ready ahead
    (``ready``, :class:`sigreport.speed.workers.Ready`) when given, else here; done before it returns."""
    if not tasks:
        return {}
    inputs = FigureInputs(results, tasks[0].params.style)
    items = [(inputs.lookup(t.block), t.params) for t in tasks]
    with figure_settings(tasks[0].params.pdf, jobs, ready):
        drawn = start_figures(_draw_item, items)()
    return {t.record: figs for t, figs in zip(tasks, drawn)}


class FigureStore:
    """The figure tasks' view of the build's cache section (``store``): an entry is trusted only when it holds
    figures; ``alternates`` maps a task's key without PDFs to its key with them, so that a build without PDFs
    (HTML only) takes the entry a LaTeX build stored, less its PDF bytes (the SVG does not depend on whether
    the PDF is made: tests/render/test_figures.py checks that)."""

    def __init__(self, store: Store, alternates: Mapping[str, str] | None = None):
        self._store, self._alternates = store, dict(alternates or {})
        self.version = store.version

    def get(self, key: str) -> tuple[bool, object]:
        hit, value = self._store.get(key)
        if hit and valid(value):
            return True, value
        other = self._alternates.get(key)
        if other is not None:
            hit, value = self._store.get(other)
            if hit and valid(value):
                return True, tuple(dataclasses.replace(f, pdf=b"") for f in value)  # type: ignore[union-attr]
        return False, None

    def put(self, key: str, value: object) -> None:
        self._store.put(key, value)
