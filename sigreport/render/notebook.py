"""The report in a notebook: what Jupyter shows for a run's results, a built report and a block's decisions.

The same report model and the same formatting as the HTML report (:mod:`.html`: its environment, filters and the
table and figure macros of ``macros.html.j2``), placed by ``notebook.html.j2`` in one ``<div>`` with a stylesheet
scoped to it (``notebook.css``: the report's own ``style.css`` styles the whole page, which a notebook is not).
Names are escaped once, by the templates' autoescape, as in the report; nothing is fetched (the figures are inline
SVG, the stylesheet inline).
"""

from __future__ import annotations

import re

from markupsafe import Markup

from sigreport.render.html import environment
from sigreport.render.model import Column, Int, Num, ReportModel, Table, Text
from sigreport.results.decisions import BlockDecisions


def notebook_html(report: ReportModel, link: str | None = None) -> str:
    """The report's main table(s), key figure and conclusions (folded) as one notebook cell's HTML (``link``: the file URL
    of the report's index.html, when it was written)."""
    return _render(title=report.title, conclusions=report.conclusions, key_figure=report.key_figure,
                   tables=report.main, baseline=report.baseline, version=report.version, link=link)


def decisions_html(block: BlockDecisions) -> str:
    """One block's decisions as a table of the report's kind: the systems best first with their rank, value and the
    systems each is significantly better than, by the primary test (named in the caption)."""
    where = f" \u2014 {block.corpus}" if block.corpus is not None else ""
    test = (f"decisions follow the {block.primary.name}" + (f", {block.primary.adjusted}" if block.primary.adjusted
                                                            else "")) if block.primary else "no test decides here"
    rows = tuple((Int(block.rank(s)), Text(s), Num(block.values.get(s), block.decimals),
                  Text(", ".join(t for t in block.order if t in block.beats.get(s, frozenset())) or "\u2014"))
                 for s in block.order)
    table = Table(key=(block.metric, block.corpus, "decisions"), caption=f"{block.label}{where} "
                  f"({'higher' if block.higher_is_better else 'lower'} is better): {test}.",
                  columns=(Column(Text("Rank")), Column(Text("System"), "l"), Column(Text(block.label)),
                           Column(Text("Significantly better than"), "l", wrap=True)),
                  rows=rows, bold_rows=tuple(i for i, s in enumerate(block.order) if s in block.best),
                  name=f"decisions-{block.metric}-{block.corpus or 'all'}")
    return _render(title=None, conclusions=(), key_figure=None, tables=(table,), baseline=block.baseline,
                   version=None, link=None)


NAMESPACES = re.compile(r' xmlns(?::xlink)?="http://www\.w3\.org/[0-9]{4}/(?:svg|xlink)"')
"""The SVG and XLink namespace declarations of matplotlib's SVG: an HTML parser gives inline SVG both itself
(``xlink:href`` included), so the notebook's markup holds no ``http`` at all (they are names, never fetched)."""


def _render(**context: object) -> str:
    env = environment()
    env.filters["svg"] = lambda svg: Markup(NAMESPACES.sub("", svg or ""))
    css = env.loader.get_source(env, "notebook.css")[0]  # type: ignore[union-attr]
    return env.get_template("notebook.html.j2").render(css=Markup(css), for_print=False, **context)
