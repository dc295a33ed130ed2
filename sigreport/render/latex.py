"""LaTeX tables for a paper: one file per table (``\\input{}`` it), each set in the float that fits it.

Fit rule (``outputs.latex.float: auto``), for a 10pt two-column ``article`` (measured with pdflatex:
``\\columnwidth`` = 229.5pt, ``\\textwidth`` = 469pt): a table's natural width is estimated as the sum of
its columns' widths (the widest cell of each, from the per-character widths of the ``\\small`` font the
tables are set in, bold 16% wider) plus ``2\\tabcolsep`` = 12pt between columns, times a safety factor
:data:`SAFETY`. A table whose width is at most the column width goes in ``table``, one at most the text
width in ``table*``; a wider one is split by columns into parts that each fit the text width (every part
repeats the first, row-label column; each part is its own float, ``part i of m`` in its caption). A
pairwise family (``outputs.latex.pairwise: auto``) is written as the compact k x k matrix of adjusted
p-values when its one-row-per-pair form is wider than the text width, or when a family of every pair has
more than :data:`LONG_TABLE_ROWS` pairs (its rows would be split over several floats; the HTML's rule too). A table longer than
:data:`LONG_TABLE_ROWS` rows is split by rows as well (``longtable`` cannot be used in two columns).

``float: table`` or ``table*`` forces the float (and splits against its width); ``float: none`` writes
bare tabulars (caption and notes as comments) for the author to wrap.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import jinja2

from sigreport.render import loader, names, user_template_errors
from sigreport.render.format import SYMBOLS, Latex, Safe, bold, escape, placeholder
from sigreport.render.markdown import Plain
from sigreport.render.model import Cell, Figure, LatexOptions, Lines, Marked, Num, ReportModel, Table, Text, Versus

__all__ = ["COLUMN_WIDTH", "LONG_TABLE_ROWS", "TEXT_WIDTH", "LatexTables", "Part", "environment", "escape",
           "layout", "natural_width", "render_latex", "render_tables"]

LONG_TABLE_ROWS = 40
COLUMN_WIDTH = 229.5  # pt, \columnwidth of \documentclass[10pt,twocolumn]{article} (pdflatex, TeX Live 2022)
TEXT_WIDTH = 469.0  # pt, its \textwidth
COLUMN_SEP = 12.0  # pt, 2\tabcolsep between two columns (the outer ones are removed by @{})
SAFETY = 1.03  # the estimate is multiplied by this, so that a table estimated to fit does fit
BOLD = 1.16  # \bfseries over \mdseries of the same text (cmbx9 / cmr9, measured)
# Width in pt of each printable ASCII character in \small (cmr9 at 9pt), measured with \settowidth.
_ASCII_WIDTHS = (
    "!2.57 \"4.62 #7.71 $4.62 %7.71 &7.19 '2.57 (3.6 )3.6 *4.62 +7.19 ,2.57 -3.08 .2.57 /4.62 :2.57 ;2.57 "
    "<7.19 =7.19 >7.19 ?4.37 @7.19 A6.94 B6.55 C6.68 D7.07 E6.29 F6.04 G7.26 H6.94 I3.34 J4.75 K7.19 L5.78 M8.48 "
    "N6.94 O7.19 P6.29 Q7.19 R6.81 S5.14 T6.68 U6.94 V6.94 W9.51 X6.94 Y6.94 Z5.65 [2.57 \\4.62 ]2.57 ^4.62 _3.33 "
    "`2.57 a4.62 b5.14 c4.11 d5.14 e4.11 f2.83 g4.62 h5.14 i2.57 j2.83 k4.88 l2.57 m7.71 n5.14 o4.62 p5.14 q4.88 "
    "r3.62 s3.65 t3.6 u5.14 v4.88 w6.68 x4.88 y4.88 z4.11 {4.62 |9.25 }4.62 ~4.62"
)
CHAR_WIDTHS: dict[str, float] = {
    **{str(d): 4.62 for d in range(10)},
    **{item[0]: float(item[1:]) for item in _ASCII_WIDTHS.split(" ")},
    " ": 3.08, "\u2212": 7.19, "\u2014": 9.25, "\u00d7": 7.19, "\u2009": 2.5,
}
OTHER_WIDTH = 6.0  # a character not in the table (Greek, accented letters, symbols)


class _Measure(Plain):
    """Cells as the characters pdflatex prints for them (for the width estimate only), and their widths.

    One measure serves every table of a render: a report repeats the same names and numbers thousands of
    times, so each distinct text is measured once (:meth:`width`)."""

    def __init__(self) -> None:
        super().__init__()
        self._widths: dict[str, float] = {}

    def width(self, s: str) -> float:
        """:func:`text_width` of ``s`` (not bold), computed once per distinct text."""
        w = self._widths.get(s)
        if w is None:
            w = self._widths[s] = text_width(s)
        return w

    def signed(self, s: str) -> str:
        return "\u2212" + s[1:] if s.startswith("-") else s

    def sci(self, x: float, digits: int) -> str:
        mant, e = f"{x:.{digits - 1}e}".split("e")
        return f"{mant}\u2009\u00d7\u200910{int(e)}"  # \times is a binary operator: thin spaces around it

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


def text_width(s: str, bold: bool = False) -> float:
    """Estimated width in pt of ``s`` in the tables' ``\\small`` font."""
    w = sum(CHAR_WIDTHS.get(ch, OTHER_WIDTH) for ch in s)
    return w * BOLD if bold else w


def column_widths(table: Table, limit: float | None = None, measure: _Measure | None = None) -> list[float]:
    """Estimated natural width of each column: its widest cell, header included. With ``limit``, measuring
    stops after the first row that makes the table wider than it (enough to know it does not fit).
    ``measure``: one shared by the tables of a render (each distinct text measured once)."""
    m = measure or _Measure()
    cell, width = m.cell, m.width
    widths = [max(width(cell(part)) for part in (c.header.parts if isinstance(c.header, Lines) else (c.header,)))
              for c in table.columns]
    bold_rows = set(table.bold_rows)
    for i, row in enumerate(table.rows):
        bold = i in bold_rows
        for j, c in enumerate(row):
            if isinstance(c, Versus):
                c = c.as_marked()
            if isinstance(c, Marked):
                w = width(cell(c.inner))
                if bold or c.emphasis == "best":
                    w = w * BOLD
                if c.marks:
                    w += 0.7 * text_width(c.marks)
            else:
                w = width(cell(c))
                if bold:
                    w = w * BOLD
            if w > widths[j]:
                widths[j] = w
        if limit is not None and _span(widths) > limit:
            break
    return widths


def natural_width(table: Table) -> float:
    """Estimated width in pt of the table's tabular (see the module's fit rule)."""
    return _span(column_widths(table))


def _span(widths: Sequence[float]) -> float:
    return SAFETY * (sum(widths) + COLUMN_SEP * max(0, len(widths) - 1))


# -------------------------------------------------------------------------------------------- layout


@dataclasses.dataclass(frozen=True)
class Part:
    """One float (or bare tabular) of a table file: which columns and rows of the table, in which float."""

    table: Table
    env: str  # "table", "table*" or "" (no float)
    columns: tuple[int, ...]
    rows: tuple[int, ...]
    index: int = 1
    count: int = 1


def chosen_form(table: Table, opts: LatexOptions) -> Table:
    """The table itself, or its compact form (pairwise matrix) as ``outputs.latex.pairwise`` asks."""
    return _chosen(table, opts, _Measure())[0]


def _chosen(table: Table, opts: LatexOptions, m: _Measure) -> tuple[Table, list[float] | None]:
    """:func:`chosen_form`, with the table's column widths when measuring them chose it (``layout`` reuses them:
    a table that fits was measured to its last row)."""
    if table.compact is None or opts.pairwise == "rows":
        return table, None
    long = len(table.compact.columns) > 2 and len(table.rows) > LONG_TABLE_ROWS  # all pairs, split by rows
    if opts.pairwise == "matrix" or long:
        return dataclasses.replace(table.compact, name=table.name), None
    widths = column_widths(table, TEXT_WIDTH, m)
    if _span(widths) > TEXT_WIDTH:
        return dataclasses.replace(table.compact, name=table.name), None
    return table, widths


def split_columns(widths: Sequence[float], limit: float) -> list[tuple[int, ...]]:
    """Column groups that each fit ``limit``, every group starting with the row-label column 0."""
    groups: list[list[int]] = [[0]]
    for j in range(1, len(widths)):
        group = groups[-1]
        if len(group) > 1 and _span([widths[i] for i in group + [j]]) > limit:
            groups.append([0, j])
        else:
            group.append(j)
    return [tuple(g) for g in groups]


def env_for(width: float, opts: LatexOptions) -> str:
    if opts.float == "none":
        return ""
    if opts.float in ("table", "table*"):
        return opts.float
    return "table" if width <= COLUMN_WIDTH else "table*"


def layout(table: Table, opts: LatexOptions = LatexOptions(), measure: _Measure | None = None) -> list[Part]:
    """The parts a table is written as: its form, split by columns (to fit) and rows (long tables).
    ``measure``: one shared by the tables of a render."""
    m = measure or _Measure()
    t, measured = _chosen(table, opts, m)
    widths = measured if measured is not None else column_widths(t, measure=m)
    limit = COLUMN_WIDTH if opts.float == "table" else TEXT_WIDTH
    groups = split_columns(widths, limit) if _span(widths) > limit and len(widths) > 2 else [
        tuple(range(len(widths)))]
    chunks = [tuple(range(i, min(i + LONG_TABLE_ROWS, len(t.rows)))) for i in range(0, len(t.rows), LONG_TABLE_ROWS)]
    chunks = chunks or [()]
    parts = [(g, rows) for rows in chunks for g in groups]
    return [Part(t, env_for(_span([widths[i] for i in g]), opts), g, rows, i + 1, len(parts))
            for i, (g, rows) in enumerate(parts)]


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
class SetPart:
    """A part as the template places it: every string already LaTeX."""

    env: str
    colspec: Safe
    header: Safe
    rows: tuple[Safe, ...]
    caption: Safe
    label: Safe
    notes: tuple[Safe, ...]
    comment_caption: str  # the caption on one comment line (float: none)


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


def _set_part(part: Part, fmt: Latex, opts: LatexOptions) -> SetPart:
    t = part.table
    cols = [t.columns[j] for j in part.columns]
    rows = [(i, [t.rows[i][j] for j in part.columns]) for i in part.rows]
    numeric: dict[int, bool] = {}
    spec = []
    for k, col in enumerate(cols):
        nums = _numeric([cells[k] for _, cells in rows], fmt) if opts.siunitx and k > 0 else None
        numeric[k] = nums is not None
        spec.append(f"S[table-format={table_format(nums)}]" if nums is not None else col.align)
    header = Safe(" & ".join(f"{{{fmt.cell(c.header)}}}" if numeric[k] else fmt.cell(c.header)
                             for k, c in enumerate(cols)))
    bold_rows = set(t.bold_rows)
    text_only = not any(numeric.values())
    body = tuple(Safe(" & ".join([fmt.cell(c) for c in cells] if text_only and i not in bold_rows else
                                 [_set_cell(c, fmt, numeric[k], i in bold_rows) for k, c in enumerate(cells)]))
                 for i, cells in rows)
    suffix = f" (part {part.index} of {part.count})" if part.count > 1 else ""
    caption = Safe(escape(opts.caption_prefix, fmt.unprintable) + fmt.prose(t.caption + suffix))
    label = Safe(opts.label_prefix + t.name + (f"-part{part.index}" if part.index > 1 else ""))
    notes = tuple(fmt.prose(n) for n in t.notes) if part.index == part.count else ()
    plain = " ".join((opts.caption_prefix + t.caption + suffix).split())
    return SetPart(part.env, Safe("".join(spec)), header, body, caption, label, notes,
                   "".join(ch if ch.isprintable() else " " for ch in plain))


def _set_cell(c: Cell, fmt: Latex, numeric: bool, strong: bool) -> str:
    if numeric and not strong:
        n = fmt.number(c)
        if n is not None:
            return n
    s = fmt.cell(c)
    if strong and s:
        s = bold(s)
    return f"{{{s}}}" if numeric else s


PACKAGE_USES = (("amsmath", (r"\text{",)), ("amssymb", (r"\checkmark",)), ("siunitx", ("S[table-format",)))


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
    out_dir.mkdir(parents=True, exist_ok=True)
    files, listing, floats = [], [], []
    measure = _Measure()
    for t in tables:
        name = names.table_file(t.name)
        parts = layout(t, options, measure)
        set_parts = [_set_part(p, fmt, options) for p in parts]
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
        form = " (p-value matrix)" if t.compact is not None and parts[0].table.rows == t.compact.rows else ""
        listing.append((name, f"{kinds}{split}{form}", ", ".join(pkgs), " ".join(t.caption.split())))
    figure_rows = [(f"../figures/{f.name}.tex", "figure (with ../figures/" + f"{f.name}.pdf)", "graphicx",
                    " ".join(f.caption.split())) for f in figures]
    needed = {p for _, _, ps, _ in listing for p in ps.split(", ")} | ({"graphicx"} if figures else set())
    with user_template_errors(user_dir):
        readme = plain_environment(user_dir).get_template("README.txt.j2").render(
            tables=listing, figures=figure_rows, options=options, column_width=COLUMN_WIDTH, text_width=TEXT_WIDTH,
            long_rows=LONG_TABLE_ROWS, packages=sorted(needed))
    (out_dir / "README.txt").write_text(readme, encoding="utf-8")
    return LatexTables(tuple(files), tuple(sorted(fmt.unprintable)), tuple(floats))


def latex_tables(model: ReportModel) -> list[Table]:
    """The tables written to LaTeX, main table first: every table, but a family's per-pair detail
    (``pair_detail``: its paired differences) of more than :data:`LONG_TABLE_ROWS` rows only with
    ``outputs.latex.pairwise: rows``. Otherwise LaTeX writes such a family as a k x k matrix (a paper's
    page), and its detail would be the rows the matrix replaced (190 for 20 systems, 9,500 on a 1M-row
    report), pages of them; results.json has every pair's."""
    rows = model.latex.pairwise == "rows"
    return [*model.main, *(t for t in model.tables() if rows or not t.pair_detail or len(t.rows) <= LONG_TABLE_ROWS)]


def render_latex(model: ReportModel, out_dir: Path, user_dir: str | Path | None = None) -> LatexTables:
    """The report's LaTeX tables (:func:`latex_tables`) with the spec's ``outputs.latex`` options."""
    return render_tables(latex_tables(model), out_dir, user_dir, model.latex, model.figures())
