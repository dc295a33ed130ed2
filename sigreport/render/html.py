"""The self-contained HTML report (CSS inline, no external references)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

import jinja2
from markupsafe import Markup, escape

from sigreport.render import loader, names, user_template_errors
from sigreport.render.format import Html
from sigreport.render.model import Cell, Decision, Join, Lines, Pair, ReportModel, Sym, Table, Text
from sigreport.render.views.settings import WHY_P_ANCHOR, WHY_P_NOTE, WHY_P_TITLE


def environment(user_dir: str | Path | None = None) -> jinja2.Environment:
    env = jinja2.Environment(loader=loader("html", user_dir), autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    fmt = Html()
    env.filters.update(cell=fmt.cell, prose=fmt.prose, cell_class=fmt.css_class, svg=fmt.svg,
                       html_id=names.html_id, figure_id=names.figure_id, is_baseline=is_baseline,
                       table_rows=lambda t, baseline: table_rows(fmt, t, baseline), shown=shown,
                       screen=lambda t: screen(fmt, t),
                       main_head=lambda c: main_head(fmt, c))
    return env


# a parenthesis of several words (one word, "(%)" or "(strict)", wraps no more than the label itself)
ASIDE = re.compile(r"(.+?)( \([^()]* [^()]*\))(.*)")


def main_head(fmt: Html, head: Cell) -> str:
    """A main-table column head (metric label above corpus) with the label's parenthesis of several words in a span
    that a phone's stylesheet hides ("Length ratio \u2193" for "Length ratio (summary / reference) \u2193", the
    table's note naming the metric in full), as the LaTeX table drops it where it does not fit.

    Why: on a 390 px screen each head wraps word by word into its column's width, and "(summary / reference)"
    made a head seven lines tall, leaving a band as high as four empty lines above the other heads."""
    first = head.parts[0] if isinstance(head, Lines) else head
    match = ASIDE.fullmatch(first.text) if isinstance(first, Text) else None
    if match is None:
        return fmt.cell(head)
    label = escape(match.group(1)) + Markup('<span class="aside">%s</span>') % match.group(2) + escape(match.group(3))
    rest = [fmt.cell(c) for c in head.parts[1:]] if isinstance(head, Lines) else []
    return Markup("<br>").join([label, *rest])


def shown(table: Table) -> Table:
    """The form of ``table`` the page shows: its ``html_form`` (a large family's matrix, see
    ``outputs.html.pairwise``) under the table's own name, else the table."""
    return dataclasses.replace(table.html_form, name=table.name) if table.html_form is not None else table


def screen(fmt: Html, table: Table) -> Table:
    """The form of ``table`` a screen shows (:func:`shown`): a table of pairs (rows of a pairwise family, a
    :class:`~sigreport.render.model.Pair` first) with its decisions and adjusted p-values next to the pair; a table of
    pairs or of systems (first head "System") without the columns that hold one value on every row (the critical
    value, n), which a note under it states once.

    Why: a pairwise table of twelve columns was wider than a 1280 px page's column, so its decision ("Significant")
    was cut off or only reached by scrolling, and on a phone the decision and p_adj were always off-screen. The
    LaTeX tables and the PDF keep the model's columns (a paper's table is set to fit its page)."""
    t = shown(table)
    rows, n = t.rows, len(t.columns)
    pairs = bool(rows) and all(isinstance(r[0], Pair) for r in rows)
    if table.html_form is not None or not (pairs or rows and t.columns[0].header == Text("System")):
        return t
    decisions = [j for j in range(1, n) if pairs and all(isinstance(r[j], Decision) for r in rows)]
    adjusted = [j for j in range(1, n) if pairs and j not in decisions and is_adjusted_p(t.columns[j].header)]
    first = ([j for pair in zip(decisions, adjusted) for j in pair] if len(decisions) == len(adjusted)
             else decisions + adjusted)
    same = [] if len(rows) < 2 else [j for j in range(1, n) if j not in first
                                     and all(r[j] == rows[0][j] for r in rows)]
    order = [0, *first, *(j for j in range(1, n) if j not in first and j not in same)]
    if order == list(range(n)):
        return t
    return dataclasses.replace(t, columns=tuple(t.columns[j] for j in order),
                               rows=tuple(tuple(r[j] for j in order) for r in rows),
                               notes=((constants_note(fmt, t, same),) if same else ()) + t.notes)


def constants_note(fmt: Html, table: Table, same: list[int]) -> Markup:
    """The note that states once the value of each column ``same`` of ``table`` (one value on every row):
    "The same on every row: n = 80, df = 79, crit (α = 0.05) = 1.990; no value on any row: Effect." """
    head = lambda j: markup(fmt.cell(table.columns[j].header))  # noqa: E731
    value = lambda j: markup(fmt.cell(table.rows[0][j])).rstrip(".")  # noqa: E731  ("normal approx.")
    empty = [j for j in same if value(j) == markup(fmt.dash())]
    parts = [Markup("The same on every row: ") + Markup(", ").join(Markup("%s = %s") % (head(j), value(j))
                                                               for j in same if j not in empty)] if len(empty) < len(same) else []
    if empty:
        parts.append(Markup("no value on any row: ") + Markup(", ").join(head(j) for j in empty))
    out = Markup("; ").join(parts) + Markup(".")
    return out[:1].upper() + out[1:]


def is_adjusted_p(head: Cell) -> bool:
    """Whether a column head names an adjusted p-value (``p_adj``, ``TOST p_adj``)."""
    return head == Sym("p_adj") or isinstance(head, Join) and Sym("p_adj") in head.parts


def markup(value: str) -> str:
    """``value`` as Jinja's autoescape prints it (markup as it is, anything else escaped)."""
    return value if isinstance(value, Markup) else escape(value)


BASELINE_TAG = Markup(' <span class="tag">(baseline)</span>')


def table_rows(fmt: Html, table: Table, baseline: str | None) -> Markup:
    """Every ``<tr>`` of a table's body, one per line.

    Why in Python: a report of many systems has thousands of rows, and a Jinja loop per cell (a filter
    call per cell, its class and the baseline tag) was the largest cost of the page after the figures.
    These are the bytes the loop wrote (``<tr class="sig">`` for a bold row, each cell's class from its
    column's alignment (and ``wrap``) and :meth:`Html.css_class`, the baseline tag after a first cell naming it).
    """
    aligns = [escape(c.align) + (" wrap" if c.wrap else "") for c in table.columns]
    bold = set(table.bold_rows)
    out: list[str] = []
    for i, row in enumerate(table.rows):
        out.append('<tr class="sig">' if i in bold else "<tr>")
        for j, c in enumerate(row):
            tag = BASELINE_TAG if j == 0 and is_baseline(c, baseline) else ""
            out.append(f'<td class="{aligns[j]}{markup(fmt.css_class(c))}">{markup(fmt.cell(c))}{tag}</td>')
        out.append("</tr>\n")
    return Markup("".join(out))


def is_baseline(cell: object, baseline: str | None) -> bool:
    """Whether a row-label cell names the baseline: its name alone, or with the main table's superscript
    letters (``lead-3 (c)``); a pair ``a vs b`` never does."""
    return (baseline is not None and isinstance(cell, Text)
            and re.fullmatch(re.escape(baseline) + r"( \([a-z]+\))?", cell.text) is not None)


def render_html(report: ReportModel, user_dir: str | Path | None = None) -> str:
    """The report page: the model placed by ``report.html.j2`` (cells formatted by :mod:`.format`); errors in
    the user's templates are user errors (see ``user_template_errors``)."""
    return render_page(report, user_dir)


def render_page(report: ReportModel, user_dir: str | Path | None = None, *, for_print: bool = False,
                figure: Callable[[str | None], str] | None = None, css: Callable[[str], str] | None = None,
                head: str = "") -> str:
    """The page ``report.html.j2`` makes of ``report``: the screen page, or with ``for_print`` the page the
    PDF is made from (:func:`sigreport.render.pdf.print_page`), in which the template leaves out what print
    does not show, ``figure`` writes a figure in place of its inline SVG, ``css`` rewrites the stylesheet and
    ``head`` (markup) ends the ``<head>``."""
    env = environment(user_dir)
    if figure is not None:
        env.filters["svg"] = lambda svg: Markup(figure(svg))
    with user_template_errors(user_dir):
        style = env.loader.get_source(env, "style.css")[0]  # type: ignore[union-attr]
        sortable = not for_print and any(t.sortable for t in (*report.main, *report.tables()))
        script = env.loader.get_source(env, "sortable.js")[0] if sortable else ""  # type: ignore[union-attr]
        return env.get_template("report.html.j2").render(
            css=Markup(css(style) if css is not None else style), title=report.title,
            description=report.description, version=report.version, spec_name=report.source,
            settings=report.settings, sections=report.sections, data_files=report.data_files, seed=report.seed,
            main=report.main, conclusions=report.conclusions, key_figure=report.key_figure,
            baseline=report.baseline, why_p_title=WHY_P_TITLE, why_p_note=WHY_P_NOTE, why_p_anchor=WHY_P_ANCHOR,
            release=report.release, methods=report.methods.plain() if report.methods is not None else "",
            references=report.methods.references() if report.methods is not None else [],
            for_print=for_print, print_head=Markup(head), sortable_js=Markup(script))
