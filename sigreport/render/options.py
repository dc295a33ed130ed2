"""What the renderer is told besides the results: the spec's ``outputs`` section, its baseline and the settings
the report prints that results.json does not hold. Plain frozen data, built from the spec in one place
(:func:`sigreport.api.options.render_options`); the renderer never sees the spec.

A report rendered from a results.json alone gets :class:`RenderOptions` with its defaults: the output defaults
of :mod:`sigreport.defaults` (which the spec's models take theirs from too), no baseline (the report names the
reference system of a family compared against one) and no :class:`RunSettings` (the settings table then holds
what results.json records: alpha, the ``tests`` section, the seed and the data).
"""

from __future__ import annotations

import dataclasses

from sigreport import defaults
from sigreport.render.model import LatexOptions


@dataclasses.dataclass(frozen=True, kw_only=True)
class MainTableOptions:
    """``outputs.main_table``: the metrics and corpora shown and their order (None: every one), what a cell
    shows, whether significance markers are drawn, the rank column (``ub`` or ``none``), the decimals of every value (None: each metric's)."""

    metrics: tuple[str, ...] | None = None
    corpora: tuple[str, ...] | None = None
    cell: str = defaults.MAIN_TABLE_CELL
    markers: bool = defaults.MAIN_TABLE_MARKERS
    rank: str = defaults.MAIN_TABLE_RANK
    decimals: int | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class FigureStyleOptions:
    """``outputs.figure_style``: the width figures are drawn at (``column``, ``text`` or pt), their font
    (``serif``: the page's, ``sans`` or a family) and text size in pt (None: the page's body size minus one)."""

    width: str | float = defaults.FIGURE_WIDTH
    font: str = defaults.FIGURE_FONT
    font_size: float | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class ClassificationSettings:
    """The ``classification`` choices the settings table prints (the section's defaults when it is left out).
    ``ci_level``: the metrics' interval level, ``level_set``: whether ``classification.ci_level`` set it."""

    labels: tuple[str, ...] | None
    positive_label: str | None
    beta: float
    resamples: int
    ci_level: float
    level_set: bool
    mcnemar: str
    mcnemar_correction: bool
    test_metrics: tuple[str, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class AgreementSettings:
    """The ``agreement`` choices the settings table prints (the section's defaults when it is left out)."""

    level: str
    order: tuple[str, ...] | None
    measures: tuple[str, ...] | None
    systems_vs_gold: bool
    resamples: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunSettings:
    """Settings of the run that the report prints and results.json does not hold: ``missing`` (``data.missing``,
    None without a score table), whether some metric is corpus-level, and the classification and agreement
    choices (None where the run has no predictions, or no annotations nor systems against gold); ``cluster``: the
    column ``data.columns.cluster`` names (None without clusters)."""

    missing: str | None = None
    corpus_level: bool = False
    cluster: str | None = None
    classification: ClassificationSettings | None = None
    agreement: AgreementSettings | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class RenderOptions:
    """Everything the renderer reads besides the :class:`~sigreport.results.Results` (see the module docstring).

    ``latex``: ``outputs.latex`` (its ``report`` and ``figure_text`` are the renderer's own); ``html_pairwise``:
    ``outputs.html.pairwise``; ``figures``: the figure kinds drawn; ``formats``: the formats written (a figure
    carries its vector PDF when ``latex`` is among them); ``baseline``: the spec's, tagged in the HTML and
    naming the reference system of families compared against it; ``settings``: None for results read back
    from results.json."""

    main_table: MainTableOptions = MainTableOptions()
    latex: LatexOptions = dataclasses.field(default_factory=LatexOptions)
    html_pairwise: str = defaults.HTML_PAIRWISE
    figures: tuple[str, ...] = defaults.FIGURE_KINDS
    figure_style: FigureStyleOptions = FigureStyleOptions()
    formats: tuple[str, ...] = defaults.FORMATS
    baseline: str | None = None
    settings: RunSettings | None = None
