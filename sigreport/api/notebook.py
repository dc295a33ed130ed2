"""Jupyter displays (``_repr_html_``) of a run's :class:`~sigreport.results.Results`, a block's decisions and a built
:class:`~sigreport.api.Report`: the report's own conclusions, key figure and main table, from the same report model
and escaping as the HTML report (:func:`sigreport.render.notebook.notebook_html`). Registered in
:data:`sigreport.results.collection.NOTEBOOK` on import (the results layer cannot import the renderer)."""

from __future__ import annotations

from pathlib import Path

from sigreport.render.notebook import decisions_html, notebook_html
from sigreport.render.options import RenderOptions
from sigreport.render.views import build_report
from sigreport.results import Results
from sigreport.results.collection import NOTEBOOK

def results_html(results: Results, options: RenderOptions | None = None, link: str | None = None) -> str:
    """A run's results as a notebook shows them (``options``: the spec's, when known; else the defaults, as for a
    report rendered from results.json alone)."""
    opts = options if options is not None else RenderOptions()
    model = build_report(results, figure_pdf=False, options=opts)
    return notebook_html(model, link)


def report_html(path: Path, options: RenderOptions | None) -> str:
    """A built report's display: its results.json rendered as :func:`results_html` does, with a link to its
    index.html; a report without results.json (``--formats`` without json) shows the link alone."""
    from markupsafe import escape

    from sigreport.results.io import read

    index = path / "index.html"
    link = index.resolve().as_uri() if index.is_file() else None
    doc = path / "results.json"
    if doc.is_file():
        return results_html(read(doc), options, link)  # with a leaderboard's pairs side file, if it has one
    where = f'<a href="{escape(link)}">{escape(str(index))}</a>' if link else escape(str(path))
    return f'<div class="sigreport-nb"><p>sigreport report: {where} (no results.json to show)</p></div>'


NOTEBOOK["Results"] = results_html
NOTEBOOK["BlockDecisions"] = decisions_html
