"""Results -> ReportModel: every view built once, from the records alone.

:func:`build_report` is the one entry point; each kind's view lives in :mod:`.scores` or
:mod:`.labels`. Views read records (typed, or read back from results.json) and ``Results.metrics``;
they import nothing from the analysis, plan, data, spec or statistics layers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from sigreport.render import names
from sigreport.render.model import AnalysisView, Element, ReportModel, Section
from sigreport.render.views.common import Labels
from sigreport.render.views.labels import VIEWS as LABEL_VIEWS
from sigreport.render.views.labels import matrix_owners
from sigreport.render.views.scores import VIEWS as SCORE_VIEWS
from sigreport.render.views.settings import settings_rows

VIEWS = {**SCORE_VIEWS, **LABEL_VIEWS}


def build_report(results: Any, source: str = "results.json") -> ReportModel:
    """The report model of ``results`` (a :class:`sigreport.results.Results`); ``source`` names the spec
    file the report says it was generated from."""
    lab = Labels(results.metrics, results.alpha, matrix_owners(results.records))
    groups: dict[tuple[Any, Any], list[AnalysisView]] = {}
    for r in results.records:
        groups.setdefault((r.metric, r.corpus), []).append(VIEWS[r.kind](r, lab))
    sections = tuple(Section(f"{lab.metric(metric)} \u2014 {lab.corpus(corpus)}", (metric, corpus), tuple(views))
                     for (metric, corpus), views in groups.items())
    return ReportModel(results.title, results.description, tuple(settings_rows(results)), name_parts(sections),
                       tuple(data_files(results.data)), results.seed, results.sigreport_version, source)


def name_parts(sections: tuple[Section, ...]) -> tuple[Section, ...]:
    """Give every section its anchor and every table and figure its unique name (see :mod:`.names`)."""
    anchors = names.assign(s.key for s in sections)
    elements = [e for s in sections for v in s.views for e in v.elements]
    taken = iter(names.unique_in_order([e.key for e in elements]))
    named: dict[int, Element] = {id(e): dataclasses.replace(e, name=next(taken)) for e in elements}
    return tuple(dataclasses.replace(
        s, anchor=names.section_anchor(anchors[s.key]),
        views=tuple(dataclasses.replace(v, elements=tuple(named[id(e)] for e in v.elements)) for v in s.views))
        for s in sections)


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
