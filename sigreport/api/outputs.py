"""A build's results as files: results.json, the HTML page, the PDF, the LaTeX tables, the paper files.

Rendering libraries (jinja2, matplotlib, WeasyPrint) are imported only for the formats that need them: a
``--formats json`` build renders nothing.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sigreport.api.progress import Progress, phase
from sigreport.errors import Problem
from sigreport.execute import Cache
from sigreport.results import Results
from sigreport.results.io import PAIRS_FILE, to_json_files
from sigreport.results.records import pair_count
from sigreport.spec import Spec
from sigreport.speed import workers

if TYPE_CHECKING:  # rendering (jinja2, matplotlib) is imported only by builds that render
    from sigreport.render.model import ReportModel

def write_report(res: Results, spec: Spec, source: str, dest: Path, formats: list[str],
                 templates: str | Path | None = None, notices: list[Problem] | None = None,
                 progress: Progress | None = None, jobs: int = 1, cache: Cache | None = None,
                 figure_workers: workers.Ready | None = None, release: Any = None) -> list[str]:
    """Render every requested format of ``res`` into ``dest`` (a fresh folder). Returns the files written.
    ``spec``: the spec whose outputs the report follows (:func:`sigreport.api.options.render_options`);
    ``source``: the spec file's name, which the report says it was made from. ``jobs``: worker processes
    that may draw the figures (the build's --jobs; same bytes). ``cache``: the build's cache, whose
    ``figures`` section keeps drawn figures between builds (same bytes); ``figure_workers``: workers forked
    ahead to draw the figures in (:func:`sigreport.api.running.figure_workers_ahead`); ``release``: the
    :class:`~sigreport.archive.releases.ReleaseContext` the report names at its top.

    Warnings about the output itself (characters LaTeX cannot print) are appended to ``notices``.
    """
    shown = [f for f in WRITERS if f in formats and f != "pdf"]
    phase(progress, f"writing {', '.join(shown)}" if shown else "writing the PDF")
    if set(formats) <= {"json"}:
        return WRITERS["json"](Writing(results=res, dest=dest))  # nothing to render: jinja2, matplotlib not imported
    written = []
    json_done: workers.Waiting[object] = workers.Waiting(lambda: None)
    bare = Writing(results=res, dest=dest)  # results.json needs no report model
    first = json_first(res)
    try:
        if "json" in formats and first:  # in a forked process, while this one draws and renders
            json_done = workers.in_background(lambda: WRITERS["json"](bare), jobs > 1)
        model = report_model(res, spec, source, formats, jobs, cache, figure_workers, release)
        writing = Writing(results=res, dest=dest, model=model, templates=templates, notices=notices,
                          progress=progress, others=bool(shown))
        if "json" in formats and not first:  # in a forked process, while this one renders
            json_done = workers.in_background(lambda: WRITERS["json"](bare), jobs > 1)
        if "json" in formats:
            written.append("results.json")
        written += render_formats(writing, formats)
    except BaseException:  # stopped, not waited for: it must not write into the folder being removed
        json_done.cancel()
        raise
    json_done()
    if "json" in formats and (dest / PAIRS_FILE).exists():  # written with results.json, in the staging folder
        written.append(PAIRS_FILE)
    return written


JSON_FIRST_PAIRS = 20_000
"""The pairs (over every family) beyond which results.json is written by a process forked before the figures
are drawn (:func:`json_first`)."""


def json_first(res: Results) -> bool:
    """Whether results.json's forked writer starts before the figures (else once they are drawn, beside the
    HTML and LaTeX): when the results hold more than :data:`JSON_FIRST_PAIRS` pairs.

    Why: writing results.json is about the pairs; with few (a 1M-row report's 9,500: 0.4 s) it lasts as long as
    the HTML and LaTeX after the figures, so it is begun then and takes no core from the figure workers; with
    many (a 1,000-system leaderboard's 499,500: 20 s) it outlasts everything after the analyses, so it is begun
    before the figures (51 s against 60 s for that build, back to back)."""
    return sum(pair_count(r) for r in res.records) > JSON_FIRST_PAIRS


def report_model(res: Results, spec: Spec, source: str, formats: list[str], jobs: int, cache: Cache | None,
                 figure_workers: workers.Ready | None, release: Any) -> ReportModel:
    """The report model of ``res``, its figures drawn as plan tasks (or taken from the cache's ``figures``
    section: :func:`sigreport.api.figures.draw_figures`), with the release it is named as (see
    :func:`write_report`)."""
    from sigreport.api.figures import draw_figures
    from sigreport.api.options import render_options
    from sigreport.render.views import ReportParts, assemble, report_parts

    options = render_options(spec, formats)
    parts: list[ReportParts] = []  # the views, made here while the workers draw the figures
    # the figure tasks: cache hits, the rest drawn (in workers); their vector PDF only for LaTeX
    drawn = draw_figures(res, options, "latex" in formats, jobs, cache, figure_workers,
                         meanwhile=lambda: parts.append(report_parts(res, options)))
    model = assemble(res, parts[0], drawn, source, options)
    if release is None:
        return model
    from sigreport.render.model import ReleaseInfo

    return dataclasses.replace(model, release=ReleaseInfo(release.name, release.previous, release.previous_page,
                                                          release.diff, release.index))


def render_formats(writing: Writing, formats: list[str]) -> list[str]:
    """Write the rendered formats of ``formats`` (every writer but results.json's, in :data:`WRITERS` order) and
    the paper files; the files written."""
    assert writing.model is not None
    written = []
    for name, write in WRITERS.items():
        if name != "json" and name in formats:
            written += write(writing)
    return written + write_paper_files(writing.model, writing.dest, formats)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Writing:
    """What a format's writer is given: the results, the report model (None when only results.json is written:
    nothing is rendered then), the report folder being filled, the user's templates; ``notices`` collects
    warnings about the output itself; ``others``: formats other than the PDF are written too (the PDF's
    progress line then comes on its own)."""

    results: Results
    dest: Path
    model: ReportModel | None = None
    templates: str | Path | None = None
    notices: list[Problem] | None = None
    progress: Progress | None = None
    others: bool = False


def write_json(writing: Writing) -> list[str]:
    """results.json (needs no report model)."""
    text, side = to_json_files(writing.results)
    (writing.dest / "results.json").write_text(text, encoding="utf-8")
    if side is None:
        return ["results.json"]
    (writing.dest / PAIRS_FILE).write_bytes(side)  # the pairs of a results.json beyond 100 MB (results.io)
    return ["results.json", PAIRS_FILE]


def write_html(writing: Writing) -> list[str]:
    """The HTML page, index.html."""
    from sigreport.render.html import render_html

    assert writing.model is not None
    (writing.dest / "index.html").write_text(render_html(writing.model, writing.templates), encoding="utf-8")
    return ["index.html"]


def write_pdf(writing: Writing) -> list[str]:
    """The PDF report, report.pdf, made from the model's print page."""
    from sigreport.render.pdf import report_pdf

    assert writing.model is not None
    if writing.others:
        phase(writing.progress, "writing the PDF")
    report_pdf(writing.model, writing.dest / "report.pdf", writing.templates)
    return ["report.pdf"]


def write_latex(writing: Writing) -> list[str]:
    """One LaTeX file per table under tables/ with its README (characters LaTeX cannot print: a notice)."""
    from sigreport.render.latex import render_latex

    assert writing.model is not None
    out = render_latex(writing.model, writing.dest / "tables", writing.templates)
    warning = out.warning()
    if warning and writing.notices is not None:
        writing.notices.append(Problem("tables", None, "", warning))
    return [f"tables/{n}" for n in out.files] + ["tables/README.txt"]


WRITERS: dict[str, Callable[[Writing], list[str]]] = {
    "json": write_json, "html": write_html, "pdf": write_pdf, "latex": write_latex}
"""Every output format's writer, keyed by its name in :data:`sigreport.defaults.FORMATS` (the spec's allowed
values, the command line's and the API's; ``tests/api/test_outputs.py`` checks that the two name the same
formats), in the order a build writes them: results.json first (in the background while the others render),
then the HTML, the PDF and the LaTeX tables; the paper files (:func:`write_paper_files`) after them."""


def write_paper_files(model: ReportModel, dest: Path, formats: list[str]) -> list[str]:
    """main.md, main.csv and methods.md (with any format but json alone), and with latex the figures as
    vector PDFs, one ``figures/<name>.tex`` snippet each and ``figures/README.txt``. Returns the files written."""
    from sigreport.render.figure_files import write_figures
    from sigreport.render.markdown import csv_text, markdown

    written = []
    if model.main and set(formats) - {"json"}:
        (dest / "main.md").write_text(markdown(model.main), encoding="utf-8")
        (dest / "main.csv").write_text(csv_text(model.main), encoding="utf-8")
        written += ["main.md", "main.csv"]
    if model.methods is not None and set(formats) - {"json"}:
        from sigreport.render.views.methods import markdown as methods_markdown

        (dest / "methods.md").write_text(methods_markdown(model.methods), encoding="utf-8")
        written.append("methods.md")
    if "latex" in formats and model.figures():
        written += write_figures(model.figures(), dest / "figures", model.latex)
    return written
