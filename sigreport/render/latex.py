"""LaTeX tables for a paper: one file per table (``\\input{}`` it), each set in the float that fits it.

The page (``outputs.latex.page``, :mod:`sigreport.render.pages`): a preset measured with pdflatex (``article10``,
``acl``, ``ieee``, ``neurips``, ``lncs``) or a custom ``{columnwidth, textwidth, fontsize}``. Every width
below is that page's.

Fit rule (``outputs.latex.float: auto``): a table's natural width is estimated as the sum of its columns'
widths (the widest cell of each, from the per-character widths of the ``\\small`` font the tables are set in,
bold wider by the measured ratio) plus ``2\\tabcolsep`` between columns, times a safety factor
:data:`SAFETY`. A column head of two lines (the main table's metric over its corpus) is set as a two-level
header: the first line spans the columns that share it (``\\multicolumn`` over a ``\\cmidrule``). The table
goes in the first of these that holds it: ``table`` at the default ``\\tabcolsep`` (6pt), ``table`` at
:data:`MIN_TABCOLSEP`, ``table*`` at 6pt, ``table*`` at the minimum (on a one-column page, ``table`` at the
text width). A table wider than that is set as panels of one float, one under the other, each repeating the
first (row-label) column and keeping a two-level header's groups together; a one-row table (a single pair)
is turned on its side instead (one row per column). No float is taller than the page's ``\\textheight``
(:func:`float_height`, from the measured heights of a float's pieces): panels that would stack taller go into
as few floats as hold them (``part i of m`` in the caption, the notes under every part). A table longer than
:data:`LONG_TABLE_ROWS` rows, or whose rows would make a float too tall, is split by rows (``longtable``
cannot be used in two columns).

A pairwise family has forms for a paper (:attr:`~sigreport.render.model.Table.forms`): one row per pair
with the estimate, its interval, the adjusted p-value and the better system, then lower-triangle matrices.
``outputs.latex.pairwise: auto`` writes the first form that fits the text width (the rows only up to
:data:`LONG_TABLE_ROWS` pairs), ``matrix`` the first matrix that fits, ``rows`` the full table with every
statistic.

``float: table`` or ``table*`` forces the float (and fits against its width); ``float: none`` writes
bare tabulars (caption and notes as comments) for the author to wrap.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import jinja2

from sigreport.render import loader, names, user_template_errors
from sigreport.render.format import SYMBOLS, Latex, Safe, bold, escape, placeholder
from sigreport.render.markdown import Plain
from sigreport.render.model import (Cell, Column, Figure, LatexOptions, Lines, Marked, Num, ReportModel, Table, Text,
                                    Versus)
from sigreport.render.pages import Page, preset

__all__ = ["COLUMN_WIDTH", "LONG_TABLE_ROWS", "TEXT_WIDTH", "LatexTables", "Part", "environment", "escape",
           "layout", "natural_width", "render_latex", "render_tables"]

LONG_TABLE_ROWS = 40
ARTICLE10 = preset("article10")
COLUMN_WIDTH = ARTICLE10.columnwidth  # pt, \columnwidth of \documentclass[10pt,twocolumn]{article}
TEXT_WIDTH = ARTICLE10.textwidth  # pt, its \textwidth
TABCOLSEP = 6.0  # pt, LaTeX's default \tabcolsep
MIN_TABCOLSEP = 4.0  # pt, the least \tabcolsep a table is set with before it goes wider (8pt between columns)
COLUMN_SEP = 2 * TABCOLSEP  # pt, between two columns (the outer ones are removed by @{})
SAFETY = 1.03  # the estimate is multiplied by this, so that a table estimated to fit does fit
HEIGHT_ROOM = 0.98  # of \\textheight a float is estimated to fill at most: a venue's own style (not the measured
# class or geometry) may space a caption or a note a little differently


class _Measure(Plain):
    """Cells as the characters pdflatex prints for them (for the width estimate only), and their widths.

    One measure serves every table of a render: a report repeats the same names and numbers thousands of
    times, so each distinct text is measured once (:meth:`width`)."""

    def __init__(self, page: Page = ARTICLE10) -> None:
        super().__init__()
        self.page = page
        self._widths: dict[str, float] = {}

    def width(self, s: str) -> float:
        """:func:`text_width` of ``s`` (not bold), computed once per distinct text."""
        w = self._widths.get(s)
        if w is None:
            w = self._widths[s] = text_width(s, page=self.page)
        return w

    def text(self, s: str) -> str:
        return s.replace("\u00a0", " ")  # a no-break space (a tie in LaTeX) is as wide as a space

    def signed(self, s: str) -> str:
        return "\u2212" + s[1:] if s.startswith("-") else s

    def sci(self, x: float, digits: int) -> str:
        mant, e = f"{x:.{digits - 1}e}".split("e")
        return f"{mant}\u2009\u00d7\u200910{int(e)}"  # \times is a binary operator: medium spaces around it

    def marked(self, inner: str, emphasis: str, marks: str) -> str:
        return inner + marks

    def sym(self, name: str, arg: str | None) -> str:
        """The symbol's LaTeX with commands as one glyph each and sub/superscripts at full size."""
        if name == "crit":
            return f"crit\u03b1={arg}"
        if name not in SYMBOLS:
            return super().sym(name, arg)
        s = re.sub(r"\\(?:text|mathit)\{([^}]*)\}", r"\1", SYMBOLS[name][1])
        return re.sub(r"[{}^_]", "", re.sub(r"\\[A-Za-z]+", "\u03b1", s))


def text_width(s: str, bold: bool = False, page: Page = ARTICLE10) -> float:
    """Estimated width in pt of ``s`` in the tables' ``\\small`` font of ``page``."""
    widths, other = page.widths, page.other_width
    w = sum(widths.get(ch, other) for ch in s)
    return w * page.bold if bold else w


def head_parts(header: Cell) -> tuple[Cell, ...]:
    """A column head's own lines: all of them, but the first line of a two-line head (set above the column,
    spanning the columns that share it: :func:`header_groups`)."""
    return header.parts[1:] if isinstance(header, Lines) and len(header.parts) > 1 else (header,)


def group_head(header: Cell) -> Cell | None:
    """The spanning first line of a two-line head, else None."""
    return header.parts[0] if isinstance(header, Lines) and len(header.parts) > 1 else None


def header_groups(columns: Sequence[Column]) -> list[tuple[Cell | None, list[int]]]:
    """Runs of consecutive columns (indices into ``columns``) that share a spanning head (None: none)."""
    out: list[tuple[Cell | None, list[int]]] = []
    for j, c in enumerate(columns):
        head = group_head(c.header)
        if out and head is not None and out[-1][0] == head:
            out[-1][1].append(j)
        else:
            out.append((head, [j]))
    return out


def column_widths(table: Table, limit: float | None = None, measure: _Measure | None = None) -> list[float]:
    """Estimated natural width of each column: its widest cell, its own head included (a spanning head is
    made room for by :func:`with_group_heads`). With ``limit``, measuring stops after the first row that makes
    the table wider than it at the least ``\\tabcolsep`` (enough to know it does not fit). ``measure``: one shared by the tables of a
    render (each distinct text measured once)."""
    m = measure or _Measure()
    cell, width, ratio = m.cell, m.width, m.page.bold
    widths = [max(width(cell(part)) for part in head_parts(c.header)) for c in table.columns]
    bold_rows = set(table.bold_rows)
    for i, row in enumerate(table.rows):
        bold = i in bold_rows
        for j, c in enumerate(row):
            if isinstance(c, Versus):
                c = c.as_marked()
            if isinstance(c, Marked):
                w = width(cell(c.inner))
                if bold or c.emphasis == "best":
                    w = w * ratio
                if c.marks:
                    w += 0.7 * width(c.marks)
            else:
                w = max(width(cell(part)) for part in c.parts) if isinstance(c, Lines) else width(cell(c))
                if bold:
                    w = w * ratio
            if w > widths[j]:
                widths[j] = w
        if limit is not None and _span(widths, 2 * MIN_TABCOLSEP) > limit:
            break
    return with_group_heads(table.columns, widths, m)


def with_group_heads(columns: Sequence[Column], widths: list[float], m: _Measure) -> list[float]:
    """``widths`` widened where a spanning head is wider than the columns under it (its last column takes
    the difference); a head is measured on the lines it is broken into (:func:`broken_head`)."""
    out = list(widths)
    for head, cols in header_groups(columns):
        if head is None:
            continue
        room = sum(out[j] for j in cols) + COLUMN_SEP * (len(cols) - 1)
        need = max(m.width(m.cell(part)) for part in broken_head(head, room, m))
        if need > room:
            out[cols[-1]] += need - room
    return out


def broken_head(head: Cell, room: float, m: _Measure) -> tuple[Cell, ...]:
    """A spanning head as it is set over ``room`` pt: on one line when it fits; else without its parenthesis
    when that fits (``Length ratio \u2193`` for ``Length ratio (summary / reference) \u2193``; the table's notes
    then give the full name: :func:`abbreviated`); else broken before its parenthesis."""
    text = m.cell(head)
    if m.width(text) <= room or not isinstance(head, Text) or " (" not in head.text:
        return (head,)
    short = abbreviated(head)
    if short is not None and m.width(m.cell(short)) <= room:
        return (short,)
    first, _, rest = head.text.partition(" (")
    return Text(first), Text("(" + rest)


def abbreviated(head: Text) -> Text | None:
    """``head`` without its parenthesised part (``Length ratio \u2193``), or None when it has none."""
    match = re.fullmatch(r"(.+?) \([^()]*\)(.*)", head.text)
    return Text(match.group(1) + match.group(2)) if match else None


def natural_width(table: Table, page: Page = ARTICLE10) -> float:
    """Estimated width in pt of the table's tabular (see the module's fit rule)."""
    return _span(column_widths(table, measure=_Measure(page)))


def _span(widths: Sequence[float], sep: float = COLUMN_SEP) -> float:
    return SAFETY * (sum(widths) + sep * max(0, len(widths) - 1))


# -------------------------------------------------------------------------------------------- layout


@dataclasses.dataclass(frozen=True)
class Part:
    """One float (or bare tabular) of a table file: which columns and rows of the table, in which float.

    ``panels``: column groups set one under another in the float (each starts with the row-label column);
    ``columns`` is the first. ``tabcolsep``: the ``\\tabcolsep`` it is set with (pt)."""

    table: Table
    env: str  # "table", "table*" or "" (no float)
    columns: tuple[int, ...]
    rows: tuple[int, ...]
    index: int = 1
    count: int = 1
    panels: tuple[tuple[int, ...], ...] = ()
    tabcolsep: float = TABCOLSEP

    @property
    def groups(self) -> tuple[tuple[int, ...], ...]:
        """The column groups of the part (its panels, or its columns alone)."""
        return self.panels or (self.columns,)


def chosen_form(table: Table, opts: LatexOptions) -> Table:
    """The table itself, or the paper form ``outputs.latex.pairwise`` asks for (see the module doc)."""
    return _chosen(table, opts, _Measure(opts.page))[0]


def _chosen(table: Table, opts: LatexOptions, m: _Measure) -> tuple[Table, list[float] | None]:
    """:func:`chosen_form`, with the chosen table's column widths when measuring chose it (``layout`` reuses
    them: a form that fits was measured to its last row)."""
    forms = [f for f in table.forms if opts.pairwise == "auto" or f.matrix] if opts.pairwise != "rows" else []
    if opts.pairwise == "auto":
        forms = [f for f in forms if f.matrix or len(f.rows) <= LONG_TABLE_ROWS] or forms[:1]
    if not forms:
        return table, None
    limit = opts.page.textwidth
    for form in forms:
        widths = column_widths(form, limit, m)  # measured to the last row when it fits
        if _span(widths, 2 * MIN_TABCOLSEP) <= limit:
            return dataclasses.replace(form, name=table.name), widths
    return dataclasses.replace(forms[-1], name=table.name), None


def split_columns(widths: Sequence[float], limit: float, columns: Sequence[Column] = (),
                  sep: float = COLUMN_SEP) -> list[tuple[int, ...]]:
    """Column groups that each fit ``limit``, every group starting with the row-label column 0; columns under
    one spanning head stay together unless they alone are too wide."""
    units = [cols for _, cols in header_groups(columns)] if columns else [[j] for j in range(len(widths))]
    units = [[j for j in u if j != 0] for u in units]
    groups: list[list[int]] = [[0]]
    for unit in (u for u in units if u):
        for piece in ([unit] if _span([widths[i] for i in [0, *unit]], sep) <= limit else [[j] for j in unit]):
            group = groups[-1]
            if len(group) > 1 and _span([widths[i] for i in group + piece], sep) > limit:
                groups.append([0, *piece])
            else:
                group.extend(piece)
    return [tuple(g) for g in groups]


def env_for(width: float, opts: LatexOptions) -> str:
    """The float of a part ``width`` pt wide: the forced one, else ``table`` when it fits the column (or the
    page has one column), else ``table*``."""
    if opts.float == "none":
        return ""
    if opts.float in ("table", "table*"):
        return opts.float
    return "table" if width <= opts.page.columnwidth or not opts.page.two_columns else "table*"


def fitting(widths: Sequence[float], opts: LatexOptions) -> tuple[str, float] | None:
    """The first (float, \\tabcolsep) of the fit rule that holds the whole table, or None."""
    page = opts.page
    if opts.float in ("table", "table*"):
        limits = [(opts.float, page.columnwidth if opts.float == "table" else page.textwidth)]
    elif opts.float == "none":
        limits = [("", page.textwidth)]
    else:
        limits = [("table", page.columnwidth)] + ([("table*", page.textwidth)] if page.two_columns else [])
    for env, limit in limits:
        for sep in (TABCOLSEP, MIN_TABCOLSEP):
            if _span(widths, 2 * sep) <= limit:
                return env, sep
    return None


def transposed(table: Table) -> Table:
    """A one-row table on its side: one row per column (its head, then its value), for a single pair whose
    statistics are wider than the page."""
    (row,) = table.rows
    rows = tuple((c.header, cell) for c, cell in zip(table.columns[1:], row[1:]))
    return dataclasses.replace(table, columns=(Column(Text(""), "l"), Column(row[0], "l")), rows=rows, bold_rows=())


def _lines(width: float, line: float) -> int:
    """Lines a text ``width`` pt wide takes in a paragraph ``line`` pt wide (the estimate's safety included)."""
    return max(1, math.ceil(SAFETY * width / line)) if line > 0 else 1


def _cell_lines(c: Cell) -> int:
    return len(c.parts) if isinstance(c, Lines) else 1


def float_height(t: Table, groups: Sequence[tuple[int, ...]], rows: Sequence[int], env: str, page: Page) -> float:
    """Estimated height in pt of a float holding the panels ``groups`` (column indices) of the rows ``rows``
    of ``t``, with its caption and every note of the table: the measured heights of the float's pieces
    (:data:`sigreport.render.pages.HEIGHTS`: a one-line caption and one panel of a head and a row, each further
    caption line, row, panel, spanning head, note and note line), as LaTeX stacks them
    (templates/latex/table.tex.j2). Caption and notes are broken into lines at the float's width
    (``\\columnwidth`` in ``table``, ``\\textwidth`` in ``table*``); a note in ``\\footnotesize`` is the
    narrower by the ratio of its line to a ``\\small`` row."""
    h = page.height
    line = page.columnwidth if env == "table" else page.textwidth
    caption = text_width(f"Table 10: {t.caption} (part 10 of 10)", page=page)
    total = h("float_base") + (_lines(caption, line) - 1) * h("caption_line")
    for k, cols in enumerate(groups):
        columns = [t.columns[j] for j in cols]
        total += h("panel") if k else 0.0
        total += (max(len(head_parts(c.header)) for c in columns) - 1) * h("row")
        total += h("group_head") if any(group_head(c.header) is not None for c in columns) else 0.0
        total += (sum(max(_cell_lines(t.rows[i][j]) for j in cols) for i in rows) - 1) * h("row")
    small_of_note = h("note_line") / h("row")
    for note in t.notes:
        total += h("note") + (_lines(small_of_note * text_width(note, page=page), line) - 1) * h("note_line")
    return total


def _pack(groups: Sequence[tuple[int, ...]], fits: Callable[[Sequence[tuple[int, ...]]], bool]
          ) -> list[tuple[tuple[int, ...], ...]]:
    """Consecutive panels packed into as few floats as hold them (``fits``: whether panels make a float no taller
    than the text block), as even as they fit (four panels in two floats: two and two, not three and one); a
    panel too tall alone is a float of its own."""
    packs: list[list[tuple[int, ...]]] = []
    for g in groups:
        if packs and fits([*packs[-1], g]):
            packs[-1].append(g)
        else:
            packs.append([g])
    n, k = len(packs), len(groups)
    sizes = [k // n + (1 if i < k % n else 0) for i in range(n)]
    starts = [sum(sizes[:i]) for i in range(n)]
    even = [tuple(groups[a:a + size]) for a, size in zip(starts, sizes)]
    return even if all(fits(p) for p in even) else [tuple(p) for p in packs]


def _chunks(n_rows: int, fits: Callable[[Sequence[int]], bool]) -> list[tuple[int, ...]]:
    """The rows in runs of at most :data:`LONG_TABLE_ROWS`, fewer when a run would make a float taller than the
    text block (``fits``: whether the rows' float is no taller)."""
    size = LONG_TABLE_ROWS
    while size > 1 and n_rows > 1 and not fits(range(min(size, n_rows))):
        size -= 1
    return [tuple(range(i, min(i + size, n_rows))) for i in range(0, n_rows, size)] or [()]


def layout(table: Table, opts: LatexOptions = LatexOptions(), measure: _Measure | None = None) -> list[Part]:
    """The parts a table is written as: its form, in the float that fits it, else as panels (or turned on
    its side when it has one row), split by rows when long; panels stack in one float while it is no taller
    than the text block (:func:`float_height`), else go into as few floats as hold them. ``measure``: one
    shared by the tables of a render."""
    m = measure or _Measure(opts.page)
    t, measured = _chosen(table, opts, m)
    widths = measured if measured is not None else column_widths(t, measure=m)
    fit = fitting(widths, opts)
    if fit is None and len(t.rows) == 1 and len(t.columns) > 2:
        t = transposed(t)
        widths = column_widths(t, measure=m)
        fit = fitting(widths, opts)
    room = HEIGHT_ROOM * opts.page.text_height
    if fit is not None or len(widths) <= 2:
        env, sep = fit or (env_for(_span(widths), opts), TABCOLSEP)
        every = (tuple(range(len(widths))),)
        chunks = _chunks(len(t.rows), lambda rows: float_height(t, every, rows, env, opts.page) <= room)
        return [Part(t, env, every[0], rows, i + 1, len(chunks), tabcolsep=sep) for i, rows in enumerate(chunks)]
    limit = opts.page.columnwidth if opts.float == "table" else opts.page.textwidth
    sep, groups = min(((s, split_columns(widths, limit, t.columns, 2 * s)) for s in (TABCOLSEP, MIN_TABCOLSEP)),
                      key=lambda sg: (len(sg[1]), -sg[0]))  # the fewest panels; the wider spacing on a tie
    env = env_for(max(_span([widths[i] for i in g], 2 * sep) for g in groups), opts)
    chunks = _chunks(len(t.rows), lambda rows: all(float_height(t, (g,), rows, env, opts.page) <= room
                                                   for g in groups))
    packs = [_pack(groups, lambda pack: float_height(t, pack, rows, env, opts.page) <= room) for rows in chunks]
    if all(len(p) == 1 for p in packs):  # one float of panels per run of rows
        return [Part(t, env, groups[0], rows, i + 1, len(chunks), tuple(groups), sep) for i, rows in enumerate(chunks)]
    parts = [(pack, rows) for rows, p in zip(chunks, packs) for pack in p]
    return [Part(t, env, pack[0], rows, i + 1, len(parts), pack if len(pack) > 1 else (), sep)
            for i, (pack, rows) in enumerate(parts)]


# -------------------------------------------------------------------------------------------- writing


def environment(user_dir: str | Path | None = None, fmt: Latex | None = None) -> jinja2.Environment:
    fmt = fmt or Latex()
    env = jinja2.Environment(
        loader=loader("latex", user_dir), autoescape=False, finalize=fmt.finalize, undefined=jinja2.StrictUndefined,
        block_start_string="<%", block_end_string="%>", variable_start_string="<<", variable_end_string=">>",
        comment_start_string="<#", comment_end_string="#>", trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["cells"] = fmt.row
    env.filters["headers"] = lambda columns: fmt.row(c.header for c in columns)
    return env


def plain_environment(user_dir: str | Path | None = None) -> jinja2.Environment:
    """For ``README.txt``: plain text, nothing escaped."""
    return jinja2.Environment(
        loader=loader("latex", user_dir), autoescape=False, undefined=jinja2.StrictUndefined,
        block_start_string="<%", block_end_string="%>", variable_start_string="<<", variable_end_string=">>",
        comment_start_string="<#", comment_end_string="#>", trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True,
    )


@dataclasses.dataclass(frozen=True)
class SetPanel:
    """One tabular of a part: every string already LaTeX. ``header``: the head rows, the last one without
    its ``\\\\`` (a two-level head: spanning heads, ``\\cmidrule`` s, then the columns' own heads)."""

    colspec: Safe
    header: Safe
    rows: tuple[Safe, ...]


@dataclasses.dataclass(frozen=True)
class SetPart:
    """A part as the template places it: every string already LaTeX. ``colspec``, ``header`` and ``rows`` are
    those of its first panel (templates written for one tabular per float keep working)."""

    env: str
    colspec: Safe
    header: Safe
    rows: tuple[Safe, ...]
    caption: Safe
    label: Safe
    notes: tuple[Safe, ...]
    comment_caption: str  # the caption on one comment line (float: none)
    panels: tuple[SetPanel, ...] = ()
    tabcolsep: Safe = Safe("")  # "4pt" when the part is set with less than the default \tabcolsep


def _numeric(cells: Sequence[Cell], fmt: Latex) -> list[str] | None:
    """The bare numbers of a column for an ``S`` column, or ``None`` when it is not a numeric column."""
    out = [fmt.number(c) for c in cells]
    empty = [c for c, n in zip(cells, out) if n is None]
    if all(n is None for n in out) or any(not _blank(c) for c in empty):
        return None
    return [n for n in out if n is not None]


def _blank(c: Cell) -> bool:
    if isinstance(c, Versus):
        c = c.as_marked()
    return (isinstance(c, Num) and c.value is None) or (isinstance(c, Text) and not c.text) or (
        isinstance(c, Marked) and not c.marks)


def table_format(numbers: Iterable[str]) -> str:
    """siunitx ``table-format`` that holds every number (``-1.3e-2``: sign, digits, decimals, exponent)."""
    sign = exp_sign = False
    ints = decs = exps = 0
    for n in numbers:
        mant, _, exp = n.partition("e")
        sign |= mant.startswith("-")
        whole, _, frac = mant.lstrip("-").partition(".")
        ints, decs = max(ints, len(whole)), max(decs, len(frac))
        if exp:
            exp_sign |= exp.startswith("-")
            exps = max(exps, len(exp.lstrip("-+")))
    out = f"{'-' if sign else ''}{max(ints, 1)}.{decs}"
    return out + (f"e{'-' if exp_sign else ''}{exps}" if exps else "")


def _set_part(part: Part, fmt: Latex, opts: LatexOptions, m: _Measure) -> SetPart:
    t = part.table
    panels = tuple(_set_panel(t, cols, part.rows, fmt, opts, m) for cols in part.groups)
    suffix = f" (part {part.index} of {part.count})" if part.count > 1 else ""
    caption = Safe(escape(opts.caption_prefix, fmt.unprintable) + fmt.prose(t.caption + suffix))
    label = Safe(opts.table_label(t.name) + (f"-part{part.index}" if part.index > 1 else ""))
    last_rows = part.rows[-1:] == (len(t.rows) - 1,) or not t.rows
    legend = _abbreviations(t, part, m)
    notes = tuple(fmt.prose(n) for n in (*t.notes, *legend)) if part.index == part.count or (
        last_rows and part.index > 1) or _column_split(part) else ()
    plain = " ".join((opts.caption_prefix + t.caption + suffix).split())
    sep = Safe(f"{part.tabcolsep:g}pt" if part.tabcolsep != TABCOLSEP else "")
    first = panels[0]
    return SetPart(env=part.env, colspec=first.colspec, header=first.header, rows=first.rows, caption=caption,
                   label=label, notes=notes, comment_caption="".join(ch if ch.isprintable() else " " for ch in plain),
                   panels=panels, tabcolsep=sep)


def _abbreviations(t: Table, part: Part, m: _Measure) -> tuple[str, ...]:
    """A note naming the spanning heads the part shortens (:func:`broken_head`), in full."""
    full = []
    for cols in part.groups:
        columns = [t.columns[j] for j in cols]
        widths = column_widths(dataclasses.replace(t, columns=tuple(columns), rows=()), measure=m)
        for head, ks in header_groups(columns):
            if head is None:
                continue
            room = sum(widths[k] for k in ks) + COLUMN_SEP * (len(ks) - 1)
            lines = broken_head(head, room, m)
            if len(lines) == 1 and lines[0] != head and isinstance(lines[0], Text) and isinstance(head, Text):
                full.append(f"{lines[0].text}: {head.text}")
    return (f"Shortened heads: {'; '.join(dict.fromkeys(full))}.",) if full else ()


def _column_split(part: Part) -> bool:
    """Whether the part is one of several floats holding other columns of the same rows (its notes go under
    every such part: the main table's legend explains each)."""
    return part.count > 1 and len({j for g in part.groups for j in g}) < len(part.table.columns)


def _set_panel(t: Table, columns: tuple[int, ...], row_ids: tuple[int, ...], fmt: Latex, opts: LatexOptions,
               m: _Measure) -> SetPanel:
    cols = [t.columns[j] for j in columns]
    rows = [(i, [t.rows[i][j] for j in columns]) for i in row_ids]
    numeric: dict[int, bool] = {}
    spec = []
    for k, col in enumerate(cols):
        nums = _numeric([cells[k] for _, cells in rows], fmt) if opts.siunitx and k > 0 else None
        numeric[k] = nums is not None
        spec.append(f"S[table-format={table_format(nums)},group-digits=false]" if nums is not None else col.align)
    header = _header(t, cols, columns, numeric, fmt, m)
    bold_rows = set(t.bold_rows)
    text_only = not any(numeric.values())
    body = tuple(Safe(" & ".join([fmt.cell(c) for c in cells] if text_only and i not in bold_rows else
                                 [_set_cell(c, fmt, numeric[k], i in bold_rows) for k, c in enumerate(cells)]))
                 for i, cells in rows)
    return SetPanel(Safe("".join(spec)), header, body)


def _header(t: Table, cols: Sequence[Column], columns: tuple[int, ...], numeric: Mapping[int, bool], fmt: Latex,
            m: _Measure) -> Safe:
    """The head rows of a panel: one row of the columns' heads, or a two-level head when some column has a
    spanning first line (``\\multicolumn`` and ``\\cmidrule`` over the columns that share it)."""
    def own(k: int, c: Column) -> str:
        parts = head_parts(c.header)
        s = fmt.cell(parts[0]) if len(parts) == 1 else fmt.lines([fmt.cell(p) for p in parts])
        return f"{{{s}}}" if numeric[k] else s

    bottom = " & ".join(own(k, c) for k, c in enumerate(cols))
    groups = header_groups(cols)
    if all(head is None for head, _ in groups):
        return Safe(bottom)
    widths = column_widths(dataclasses.replace(t, columns=tuple(cols), rows=()), measure=m)
    top, rules = [], []
    for head, ks in groups:
        if head is None:
            top += [""] * len(ks)
            continue
        room = sum(widths[k] for k in ks) + COLUMN_SEP * (len(ks) - 1)
        lines = [fmt.cell(p) for p in broken_head(head, room, m)]
        text = lines[0] if len(lines) == 1 else fmt.lines(lines)
        top.append(rf"\multicolumn{{{len(ks)}}}{{c}}{{{text}}}")
        rules.append(rf"\cmidrule(lr){{{ks[0] + 1}-{ks[-1] + 1}}}")
    return Safe(" & ".join(top) + " \\\\\n" + " ".join(rules) + "\n" + bottom)


def _set_cell(c: Cell, fmt: Latex, numeric: bool, strong: bool) -> str:
    if numeric and not strong:
        n = fmt.number(c)
        if n is not None:
            return n
    s = fmt.cell(c)
    if strong and s:
        s = bold(s)
    return f"{{{s}}}" if numeric else s


PACKAGE_USES = (("amsmath", (r"\text{",)), ("amssymb", (r"\checkmark", r"\blacktriangle")),
                ("siunitx", ("S[table-format",)))


def packages_of(text: str) -> tuple[str, ...]:
    """The packages a written table needs: booktabs always, the others when their commands occur."""
    return ("booktabs", *(p for p, uses in PACKAGE_USES if any(u in text for u in uses)))


@dataclasses.dataclass(frozen=True)
class LatexTables:
    """What :func:`render_tables` wrote: file names (in order), the float of every part (``none`` for a bare
    tabular), and the characters it wrote as placeholders."""

    files: tuple[str, ...]
    unprintable: tuple[str, ...]
    floats: tuple[str, ...] = ()

    def warning(self) -> str | None:
        """One line for the build output when names held characters pdflatex cannot print."""
        if not self.unprintable:
            return None
        shown = ", ".join(placeholder(ch) for ch in self.unprintable[:8])
        more = f" and {len(self.unprintable) - 8} more" if len(self.unprintable) > 8 else ""
        return (f"LaTeX tables: {len(self.unprintable)} character{'s' if len(self.unprintable) != 1 else ''} that "
                f"pdflatex cannot print ({shown}{more}) written as [U+XXXX] placeholders; the HTML and PDF show them")


def render_tables(tables: Iterable[Table], out_dir: Path, user_dir: str | Path | None = None,
                  options: LatexOptions = LatexOptions(), figures: Sequence[Figure] = ()) -> LatexTables:
    """Write ``<name>.tex`` for every table and ``README.txt`` listing every file (figure snippets too) with the
    packages each needs."""
    fmt = Latex()
    env = environment(user_dir, fmt)
    with user_template_errors(user_dir):
        template = env.get_template("table.tex.j2")
    tables = list(tables)
    names.check_unique([names.table_file(t.name) for t in tables] + ["README.txt", "methods.tex", "references.bib"])
    out_dir.mkdir(parents=True, exist_ok=True)
    files, listing, floats = [], [], []
    measure = _Measure(options.page)
    for t in tables:
        name = names.table_file(t.name)
        parts = layout(t, options, measure)
        set_parts = [_set_part(p, fmt, options, measure) for p in parts]
        context = {"parts": set_parts, "table": t, "label": set_parts[0].label}  # table, label: as before the parts
        with user_template_errors(user_dir):
            body = template.render(context, packages=())
        pkgs = packages_of(body)
        with user_template_errors(user_dir):
            text = template.render(context, packages=pkgs)
        (out_dir / name).write_text(text, encoding="utf-8")
        files.append(name)
        floats += [p.env or "none" for p in parts]
        kinds = ", ".join(dict.fromkeys(p.env or "bare tabular" for p in parts))
        split = f", {len(parts)} parts" if len(parts) > 1 else ""
        split += f", {len(parts[0].panels)} panels" if len(parts[0].panels) > 1 else ""
        form = next((f" ({f.form})" for f in t.forms if parts[0].table.rows == f.rows and f.form), "")
        listing.append((name, f"{kinds}{split}{form}", ", ".join(pkgs), " ".join(t.caption.split())))
    figure_rows = [(f"../figures/{f.name}.tex", f"{f.env or 'figure'} (with ../figures/{f.name}.pdf)", "graphicx",
                    " ".join(f.caption.split())) for f in figures]
    needed = {p for _, _, ps, _ in listing for p in ps.split(", ")} | ({"graphicx"} if figures else set())
    with user_template_errors(user_dir):
        readme = plain_environment(user_dir).get_template("README.txt.j2").render(
            tables=listing, figures=figure_rows, options=options, page=options.page.describe(),
            column_width=f"{options.page.columnwidth:g}", text_width=f"{options.page.textwidth:g}",
            min_tabcolsep=f"{MIN_TABCOLSEP:g}", long_rows=LONG_TABLE_ROWS, packages=sorted(needed),
            text_height=f"{options.page.text_height:g}")
    (out_dir / "README.txt").write_text(readme, encoding="utf-8")
    return LatexTables(tuple(files), tuple(sorted(fmt.unprintable)), tuple(floats))


def latex_tables(model: ReportModel) -> list[Table]:
    """The tables written to LaTeX, main table first: every table, but a family's per-pair detail
    (``pair_detail``: its paired differences) of more than :data:`LONG_TABLE_ROWS` rows only with
    ``outputs.latex.pairwise: rows``. Otherwise LaTeX writes such a family as a k x k matrix (a paper's
    page), and its detail would be the rows the matrix replaced (190 for 20 systems, 9,500 on a 1M-row
    report), pages of them; results.json has every pair's."""
    rows = model.latex.pairwise == "rows"
    return [*model.main, *(t for t in model.tables() if not t.screen_only
                           and (rows or not t.pair_detail or len(t.rows) <= LONG_TABLE_ROWS))]


def render_latex(model: ReportModel, out_dir: Path, user_dir: str | Path | None = None) -> LatexTables:
    """The report's LaTeX tables (:func:`latex_tables`) with the spec's ``outputs.latex`` options, and its
    methods paragraph (:func:`write_methods`)."""
    out = render_tables(latex_tables(model), out_dir, user_dir, model.latex, model.figures())
    if model.methods is not None:
        extra = write_methods(model, out_dir)
        out = dataclasses.replace(out, files=out.files + extra)
    return out


def write_methods(model: ReportModel, out_dir: Path) -> tuple[str, ...]:
    """``methods.tex`` (the methods paragraph, its citations as ``\\citep`` keys on a natbib page, ``\\cite``
    otherwise) and ``references.bib`` (every work sigreport cites, the same entries in every report, so that
    one report's file serves a paper of several: ``Methods.library_bibtex``); the
    file names."""
    fmt = Latex()
    m = model.methods
    natbib = model.latex.page.natbib
    cite = "citep" if natbib else "cite"
    package = (f"needs natbib (which the {model.latex.page.name} style loads)" if natbib else "no package needed")
    where = "tables/references.bib" if m.keys() else "no citations"
    head = (f"% Generated by sigreport: the methods paragraph of \"{' '.join(model.title.split())}\"; \\input it in your "
            f"methods section.\n% Its \\{cite} keys are in {where} (\\bibliography{{<report>/tables/references}}; "
            f"every report's file holds the same entries: give one of them for any number of reports); {package}.\n")
    # names from the data (org__model-base, ROUGE-1) break at few places: \emergencystretch lets TeX space a line
    # of the paragraph wider rather than set it past the margin (only where no line breaking fits otherwise)
    (out_dir / "methods.tex").write_text(head + "{\\setlength{\\emergencystretch}{3em}%\n" + m.latex(fmt.prose, cite)
                                         + "\\par}\n", encoding="utf-8")
    (out_dir / "references.bib").write_text(m.library_bibtex(), encoding="utf-8")
    with (out_dir / "README.txt").open("a", encoding="utf-8") as readme:
        readme.write("\nMethods paragraph:\n  methods.tex: the report's statistics in a paragraph for your methods section "
                     f"(\\input it; {package})\n  references.bib: every work sigreport cites, the same in every report "
                     "(\\bibliography{.../references} of ONE report for all of a paper's reports, BibTeX)\n")
    return ("methods.tex", "references.bib")
