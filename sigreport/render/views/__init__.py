"""Results -> ReportModel: every view built once, from the records alone.

:func:`build_report` is the one entry point; each kind's view lives in :mod:`.scores` or
:mod:`.labels`. Views read typed records (built by the analyses, or read back from results.json into the
same classes) and ``Results.metrics``; they import nothing from the analysis, plan, data or spec layers.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from sigreport.speed.workers import Ready, Waiting
from sigreport.render import names
from sigreport.render.figures import KINDS, figure_plan
from sigreport.render.figure_cache import start_cached
from sigreport.render.figures.output import (FigureOutput, figure_settings, figure_style, missing_warning,
                                             readable_style, style_of)
from sigreport.render.model import AnalysisView, Element, Figure, ReportModel, Section, Table
from sigreport.render.options import RenderOptions
from sigreport.render.views.common import Labels, shown_as_matrix
from sigreport.render.views.conclusions import conclusions, report_baseline
from sigreport.render.views.labels import VIEWS as LABEL_VIEWS
from sigreport.render.views.labels import matrix_owners
from sigreport.render.views.methods import methods
from sigreport.render.views.main import columns_of, main_tables
from sigreport.render.views.preferences import VIEWS as PREFERENCE_VIEWS
from sigreport.render.views.scores import VIEWS as SCORE_VIEWS
from sigreport.render.views.settings import settings_rows, with_why_p
from sigreport.results.collection import Results
from sigreport.results.decisions import BlockDecisions, decide
from sigreport.results.ranks import LEADERBOARD_MIN
from sigreport.results.records import ClassificationRecord, McNemarRecord, PairwiseRecord, PosthocRecord, Record

VIEWS = {**SCORE_VIEWS, **LABEL_VIEWS, **PREFERENCE_VIEWS}


def build_report(results: Results, source: str = "results.json",
                 figures: Collection[str] | None = None, figure_pdf: bool | None = None,
                 figure_jobs: int = 1, figure_workers: Ready | None = None,
                 options: RenderOptions = RenderOptions()) -> ReportModel:
    """The report model of ``results`` (a :class:`sigreport.results.Results`) with ``options`` (the spec's
    outputs, baseline and settings, :func:`sigreport.api.options.render_options`; the defaults for results
    read back from results.json alone); ``source`` names the spec file the report says it was generated from;
    ``figures``: the figure kinds drawn (default: ``options.figures``); ``figure_pdf``: whether figures also
    carry their vector PDF (needed by LaTeX output only; default: whether ``options.formats`` has latex);
    ``figure_jobs``: worker processes that may draw them (same bytes as drawing here), while this process
    builds the views; ``figure_workers``: workers forked and warmed ahead to draw them in."""
    latex = options.latex
    lab = Labels(results.metrics, results.alpha, matrix_owners(results.records), options.html_pairwise,
                 latex.pairwise, options.baseline)
    kinds = options.figures if figures is None else tuple(figures)
    pdf = "latex" in options.formats if figure_pdf is None else figure_pdf
    matrix = [in_matrix(r, lab) for r in results.records]
    fs = readable_style(style_of(latex.page, options.figure_style), drawn_names(results))
    with figure_settings(pdf, figure_jobs, figure_workers), figure_style(fs):
        drawing = draw_records(results, [kinds_of(r, kinds, lab, m) for r, m in zip(results.records, matrix)]
                               ) if kinds else None
        try:
            views = [with_why_p(VIEWS[r.kind](r, lab), r) for r in results.records]
            decisions = decide(results, options.baseline)  # once: the conclusions, main table and key figure read it
            main = main_tables(results, lab, decisions, options.main_table)
            said = conclusions(results, lab, decisions, options.main_table)
        except BaseException:  # the workers are stopped, not waited for, whatever happened here
            if drawing is not None:
                drawing.cancel()
            raise
        drawn = drawing() if drawing is not None else None
    if drawn is not None:
        views = [with_figures(view, figs, m) for view, figs, m in zip(views, drawn, matrix)]
    groups: dict[tuple[str | None, str | None], list[AnalysisView]] = {}
    for r, view in zip(results.records, views):
        groups.setdefault((r.metric, r.corpus), []).append(view)
    sections, main = name_parts(tuple(Section(f"{lab.metric(metric)} \u2014 {lab.corpus(corpus)}", (metric, corpus),
                                              tuple(views)) for (metric, corpus), views in groups.items()), main)
    model = ReportModel(title=results.title, description=results.description,
                        settings=tuple(settings_rows(results, options)), sections=sections,
                        data_files=tuple(data_files(results.data)), seed=results.seed,
                        version=results.sigreport_version, source=source, main=main, conclusions=said)
    latex = dataclasses.replace(latex, report=report_name(source, results.title), figure_text=fs.size)
    blocks = [*(c.dec for c in columns_of(results, options.main_table, decisions)),
              *(d for d in decisions if d.primary is not None and d.primary.kind == "preferences")]  # as said
    return dataclasses.replace(model, key_figure=key_figure(model, blocks, lab),
                               baseline=report_baseline(results, decisions, options), latex=latex,
                               methods=methods(results, decisions))


def drawn_names(results: Results) -> list[str]:
    """The names the figures may draw: systems, corpora, metric labels and class labels."""
    labels = [label for r in results.records if isinstance(r, ClassificationRecord) for label in r.labels]
    return [*results.systems, *map(str, results.corpora), *(m.label for m in results.metrics.values()), *labels]


def report_name(source: str, title: str) -> str:
    """The report's name in LaTeX labels: the spec file's stem (``summarization``), or for a report rendered
    from results.json alone the first words of its title, as a slug of letters, digits and ``-``."""
    stem = source.rsplit("/", 1)[-1].split(".")[0]
    if not stem or stem == "results":
        stem = "-".join(title.split()[:3])
    return re.sub(r"[^A-Za-z0-9]+", "-", stem).strip("-").lower()[:40] or "report"


def in_matrix(record: Record, lab: Labels) -> bool:
    """Whether the record is a family the HTML shows as a p-value matrix (:func:`~.common.shown_as_matrix`;
    the views of :data:`MATRIX_KINDS` follow it). Decided from the record, before its view is built, so
    that the figures are drawn while the views are."""
    return (record.kind in MATRIX_KINDS and isinstance(record, (PairwiseRecord, PosthocRecord, McNemarRecord))
            and shown_as_matrix(record.pairs, lab.html_pairwise))


MATRIX_KINDS = ("pairwise", "cv", "posthoc")  # records whose view has the HTML matrix (with_html_matrix)


def kinds_of(record: Record, kinds: tuple[str, ...], lab: Labels, matrix: bool | None = None) -> tuple[str, ...]:
    """The figure kinds drawn for one record: ``kinds`` without the p-value heat map of a family shown as a
    matrix (``matrix``, else :func:`in_matrix`). The matrix holds the same numbers, bold when significant
    and tinted by direction, so the map would repeat it (without its numbers, beyond 12 systems); drawing
    it cost most of a large report's build (docs/performance.md)."""
    if "pvalues" in kinds and (in_matrix(record, lab) if matrix is None else matrix):
        return tuple(k for k in kinds if k != "pvalues")
    return kinds


def draw_records(results: Results, kinds: Sequence[tuple[str, ...]]) -> Waiting[list[tuple[FigureOutput, ...]]]:
    """Begin drawing every record's figures (``kinds[i]``: the kinds drawn for record i) and return the
    function that waits for them, in record order: from the build's figure cache where it has them
    (:func:`~sigreport.render.figure_cache.start_cached`), the rest drawn in worker processes when the
    settings allow (see :func:`~sigreport.render.figures.output.start_figures`), else when waited for.
    Records that draw nothing (descriptives, omnibus tests, large families) are not even looked up."""
    records = results.records
    drawn = [i for i, (r, k) in enumerate(zip(records, kinds)) if figure_plan(r, results, k)]
    waiting = start_cached([records[i] for i in drawn], results.metrics, [kinds[i] for i in drawn])

    def wait() -> list[tuple[FigureOutput, ...]]:
        out: list[tuple[FigureOutput, ...]] = [()] * len(records)
        for i, figs in zip(drawn, waiting()):
            out[i] = figs
        return out

    return Waiting(wait, waiting.cancel)


def with_figures(view: AnalysisView, outs: tuple[FigureOutput, ...], matrix: bool) -> AnalysisView:
    """The view with its record's figures (``outs``, drawn by :func:`draw_records`) appended. The forest plot
    of a family shown as a matrix (``matrix``, :func:`in_matrix`; 10 systems: 45 intervals) is left out of
    the PDF (``screen_only``): at a printed figure's height its rows are ~2 pt high, unreadable, and it cost
    the PDF more than the rest of its page. On screen it stays: the only per-pair estimates the HTML shows."""
    figs = tuple(Figure((f.name,), f.caption, f.svg, f.pdf, screen_only=matrix and f.name.startswith("forest-"),
                        env=f.env) for f in outs)
    lost = "".join(dict.fromkeys("".join(f.missing for f in outs)))  # characters drawn as boxes
    warn = (missing_warning(lost),) if lost else ()
    return dataclasses.replace(view, elements=view.elements + figs, warnings=view.warnings + warn) if figs else view


def key_figure(model: ReportModel, blocks: Sequence[BlockDecisions], lab: Labels) -> Figure | None:
    """The figure shown beside the Conclusions: the one that shows the decisions they state, i.e. of the
    first block (``blocks``: in the Conclusions' order) whose primary test has one: for 6 or more ranked systems
    compared in all pairs the leaderboard (values, intervals, tiers: :data:`~sigreport.results.ranks.LEADERBOARD_MIN`;
    against a baseline the Conclusions name the baseline's comparisons, which the figures below show), else the
    critical-difference
    diagram where the primary test is a post-hoc test after Friedman, else the forest plot of the primary
    family. A block whose primary test has no such figure (not drawn, or a family too large for a forest
    plot) is skipped rather than shown with another test's figure, which could contradict the sentences.

    Preference votes (a Bradley-Terry block, after the metrics) follow the same rule: for 6 or more systems the
    leaderboard of their strengths, intervals and tiers (the decisions the Conclusions state, which the win-rate
    matrix does not show: it is the votes, not the intervals that decide); with fewer, the win-rate matrix."""
    figures = {v.id: [e for e in v.elements if isinstance(e, Figure)] for s in model.sections for v in s.views}
    boards = {s.key: f for s in model.sections for v in s.views if v.kind in ("descriptives", "preferences")
              for f in figures[v.id] if str(f.key[0]).startswith("leaderboard-")}
    for dec in blocks:
        if dec.primary is None:
            continue
        board = boards.get((dec.metric, dec.corpus))
        if board is not None and dec.baseline is None and dec.ranks is not None and \
                len(dec.ranks.systems) >= LEADERBOARD_MIN:  # all pairs: the tiers the Conclusions state
            where = f"{lab.metric(dec.metric)} on {lab.corpus(dec.corpus)}"
            return dataclasses.replace(board, caption=f"The tiers of the Conclusions for {where} "
                                       f"({dec.primary.name}). {board.caption}")
        prefix = "cd-" if dec.primary.kind == "posthoc" and dec.primary.method != "paired_t" else \
            "winrates-" if dec.primary.kind == "preferences" else "forest-"  # votes under 6 systems: their matrix
        fig = next((f for f in figures.get(dec.primary.id, ()) if f.key[0] and str(f.key[0]).startswith(prefix)),
                   None)
        if fig is not None:
            where = f"{lab.metric(dec.metric)} on {lab.corpus(dec.corpus)}"
            return dataclasses.replace(fig, caption=f"The decisions of the Conclusions for {where} "
                                       f"({dec.primary.name}). {fig.caption}")
    return None


def name_parts(sections: tuple[Section, ...], main: tuple[Table, ...] = ()
               ) -> tuple[tuple[Section, ...], tuple[Table, ...]]:
    """Give every section its anchor and every table and figure its unique name (see :mod:`.names`): the
    sections' parts by their keys, then the main tables (named ``main``, ``main-<metric>``) with the sections'
    tables in one :func:`~sigreport.render.names.distinct` pass, so that no two table files (``tables/``,
    compared without case) or HTML ids share a name; a name that collides with none stays as it was."""
    anchors = names.assign(s.key for s in sections)
    elements = [e for s in sections for v in s.views for e in v.elements]
    taken = names.unique_in_order([e.key for e in elements])
    tables = names.distinct([(("main", *t.key), t.name) for t in main]
                            + [(("part", n), n) for e, n in zip(elements, taken) if isinstance(e, Table)])
    named: dict[int, Element] = {id(e): renamed(e, tables[("part", n)] if isinstance(e, Table) else n)
                                 for e, n in zip(elements, taken)}
    return tuple(dataclasses.replace(
        s, anchor=names.section_anchor(anchors[s.key]),
        views=tuple(dataclasses.replace(v, elements=tuple(named[id(e)] for e in v.elements)) for v in s.views))
        for s in sections), tuple(dataclasses.replace(t, name=tables[("main", *t.key)]) for t in main)


def renamed(e: Element, name: str) -> Element:
    """``e`` under its unique name; a figure's SVG ids, prefixed with the name it was drawn under, follow it
    (two figures whose drawn names collide would otherwise share ids on one page)."""
    if isinstance(e, Figure) and e.svg and e.key and e.key[0] != name:
        old, new = (re.sub(r"[^A-Za-z0-9_-]", "-", str(n)) for n in (e.key[0], name))
        svg = e.svg.replace(f'id="{old}-', f'id="{new}-').replace(f'href="#{old}-', f'href="#{new}-')
        return dataclasses.replace(e, name=name, svg=svg.replace(f"url(#{old}-", f"url(#{new}-"))
    return dataclasses.replace(e, name=name)


def data_files(info: Mapping[str, Any]) -> list[str]:
    """'name (sha256 abc…)' for every input table, for the report's footer."""
    out = []
    if info.get("scores"):
        out.append(f"{info['scores']} (sha256 {str(info['sha256'])[:12]})")
    for key in ("predictions", "annotations"):
        v = info.get(key)
        if isinstance(v, Mapping) and v.get("file"):
            out.append(f"{v['file']} (sha256 {str(v.get('sha256', ''))[:12]})")
    return out
