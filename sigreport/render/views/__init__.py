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

from sigreport.speed.workers import Ready
from sigreport.render import names
from sigreport.render.figures.output import FigureOutput, missing_warning
from sigreport.render.model import AnalysisView, Element, Figure, ReportModel, Section, Table
from sigreport.render.options import RenderOptions
from sigreport.render.views.common import Labels
from sigreport.render.views.conclusions import conclusions, report_baseline
from sigreport.render.views.drawing import (MATRIX_KINDS, Drawn, draw_here, drawn_names, figure_style_of,  # noqa: F401 - the names the views had
                                            figure_tasks, in_matrix, kinds_of, labels_of)
from sigreport.render.views.labels import VIEWS as LABEL_VIEWS
from sigreport.render.views.methods import methods
from sigreport.render.views.main import Column_, columns_of, main_tables
from sigreport.render.views.preferences import VIEWS as PREFERENCE_VIEWS
from sigreport.render.views.scores import VIEWS as SCORE_VIEWS
from sigreport.render.views.settings import settings_rows, with_why_p
from sigreport.results.collection import Results
from sigreport.results.decisions import BlockDecisions, Decisions, decide
from sigreport.results.ranks import LEADERBOARD_MIN

VIEWS = {**SCORE_VIEWS, **LABEL_VIEWS, **PREFERENCE_VIEWS}


def build_report(results: Results, source: str = "results.json",
                 figures: Collection[str] | None = None, figure_pdf: bool | None = None,
                 figure_jobs: int = 1, figure_workers: Ready | None = None,
                 options: RenderOptions = RenderOptions(), drawn: Drawn | None = None) -> ReportModel:
    """The report model of ``results`` (a :class:`sigreport.results.Results`) with ``options`` (the spec's
    outputs, baseline and settings, :func:`sigreport.api.options.render_options`; the defaults for results
    read back from results.json alone) and the figures ``drawn``; ``source`` names the spec file the report
    says it was generated from.

    ``drawn``: each record's figures by record id, drawn by the figure tasks of :func:`.drawing.figure_tasks`
    (a build runs them with its plan runner, cache and workers: :mod:`sigreport.api.figures`); with them,
    this is a pure function of the results, the options and the figures, and draws nothing. Without them
    (a report model made from results alone), the tasks are drawn first (:func:`.drawing.draw_here`):
    ``figures``: the figure kinds drawn (default: ``options.figures``); ``figure_pdf``: whether figures also
    carry their vector PDF (needed by LaTeX output only; default: whether ``options.formats`` has latex);
    ``figure_jobs``: worker processes that may draw them (same bytes as drawing here); ``figure_workers``:
    workers forked and warmed ahead to draw them in."""
    if drawn is None:
        drawn = draw_here(results, figure_tasks(results, options, figures, figure_pdf), figure_jobs, figure_workers)
    return render_report(results, drawn, source, options)


def render_report(results: Results, drawn: Drawn, source: str = "results.json",
                  options: RenderOptions = RenderOptions()) -> ReportModel:
    """The report model of ``results`` with ``options`` and the figures ``drawn`` (see :func:`build_report`)."""
    return assemble(results, report_parts(results, options), drawn, source, options)


@dataclasses.dataclass(frozen=True)
class ReportParts:
    """What a report is made of before its figures are placed (:func:`report_parts`): the labels, every
    record's view, the decisions (made once), the main table's columns (found once: the main table, the
    Conclusions, the baseline and the key figure read them), the main tables and the Conclusions."""

    labels: Labels
    views: tuple[AnalysisView, ...]
    decisions: Decisions
    columns: tuple[Column_, ...]
    main: tuple[Table, ...]
    conclusions: tuple[tuple[str, tuple[str, ...]], ...]


def report_parts(results: Results, options: RenderOptions = RenderOptions()) -> ReportParts:
    """Everything of the report that does not need its figures; a build makes it while its figure tasks run in
    worker processes (:func:`sigreport.api.figures.draw_figures`' ``meanwhile``)."""
    lab = labels_of(results, options)
    views = tuple(with_why_p(VIEWS[r.kind](r, lab), r) for r in results.records)
    decisions = decide(results, options.baseline)  # once: the conclusions, main table and key figure read it
    columns = tuple(columns_of(results, options.main_table, decisions))
    return ReportParts(lab, views, decisions, columns, main_tables(results, lab, decisions, options.main_table, columns),
                       conclusions(results, lab, decisions, options.main_table, columns))


def assemble(results: Results, parts: ReportParts, drawn: Drawn, source: str = "results.json",
             options: RenderOptions = RenderOptions()) -> ReportModel:
    """The report model: ``parts`` (:func:`report_parts` of ``results`` and ``options``) with the figures
    ``drawn`` placed in their records' views, the sections and names given, the key figure chosen."""
    lab, decisions, columns = parts.labels, parts.decisions, parts.columns
    views = [with_figures(view, drawn.get(r.id, ()), in_matrix(r, lab)) for view, r in zip(parts.views, results.records)]
    groups: dict[tuple[str | None, str | None], list[AnalysisView]] = {}
    for r, view in zip(results.records, views):
        groups.setdefault((r.metric, r.corpus), []).append(view)
    sections, main = name_parts(tuple(Section(f"{lab.metric(metric)} \u2014 {lab.corpus(corpus)}", (metric, corpus),
                                              tuple(views)) for (metric, corpus), views in groups.items()), parts.main)
    model = ReportModel(title=results.title, description=results.description,
                        settings=tuple(settings_rows(results, options)), sections=sections,
                        data_files=tuple(data_files(results.data)), seed=results.seed,
                        version=results.sigreport_version, source=source, main=main, conclusions=parts.conclusions)
    latex = dataclasses.replace(options.latex, report=report_name(source, results.title),
                                figure_text=figure_style_of(results, options).size)
    blocks = [*(c.dec for c in columns),
              *(d for d in decisions if d.primary is not None and d.primary.kind == "preferences")]  # as said
    return dataclasses.replace(model, key_figure=key_figure(model, blocks, lab),
                               baseline=report_baseline(results, decisions, options, columns), latex=latex,
                               methods=methods(results, decisions))


def report_name(source: str, title: str) -> str:
    """The report's name in LaTeX labels: the spec file's stem (``summarization``), or for a report rendered
    from results.json alone the first words of its title, as a slug of letters, digits and ``-``."""
    stem = source.rsplit("/", 1)[-1].split(".")[0]
    if not stem or stem == "results":
        stem = "-".join(title.split()[:3])
    return re.sub(r"[^A-Za-z0-9]+", "-", stem).strip("-").lower()[:40] or "report"


def with_figures(view: AnalysisView, outs: tuple[FigureOutput, ...], matrix: bool) -> AnalysisView:
    """The view with its record's figures (``outs``, drawn by its figure task) appended. The forest plot
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
