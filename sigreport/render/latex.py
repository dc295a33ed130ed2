"""LaTeX tables: one booktabs table per analysis table, meant for ``\\input{}`` in a paper."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import jinja2

from sigreport.render import loader, user_template_errors
from sigreport.render.context import Safe, Table

_SPECIALS = {
    "\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "<": r"\textless{}", ">": r"\textgreater{}", "\u2212": "$-$", "\u2014": "---", "\u03b1": r"$\alpha$",
    "\u0394": r"$\Delta$", "\u221e": r"$\infty$", "\u00d7": r"$\times$", "\u2713": r"$\checkmark$",
    "\u2265": r"$\geq$", "\u2264": r"$\leq$", "\u03b5": r"$\varepsilon$", "\u03c7": r"$\chi$",
    "\u03b7": r"$\eta$", "\u2026": r"\dots{}", "\u221a": r"$\surd$", "\u00b2": r"\textsuperscript{2}",
    "\u00b3": r"\textsuperscript{3}", "\u2022": r"\textbullet{}", "\u2248": r"$\approx$", "\u00b1": r"$\pm$",
    "\u00b7": r"$\cdot$", "\u2192": r"$\rightarrow$", "\u03ba": r"$\kappa$", "\u03c1": r"$\rho$",
    "\u03c3": r"$\sigma$", "\u03bc": r"$\mu$", "\u03b2": r"$\beta$", "\u03c4": r"$\tau$",
    "\u2260": r"$\neq$", "\u2032": r"$'$", "\u2013": "--", "\u201c": "``", "\u201d": "''",
}
PACKAGES = ("booktabs", "amsmath", "amssymb")
LONG_TABLE_ROWS = 40


def escape(value: object) -> str:
    """Escape text for LaTeX; :class:`Safe` strings (built for LaTeX by the context) pass unchanged."""
    if isinstance(value, Safe):
        return str(value)
    s = "" if value is None else str(value)
    return "".join(_SPECIALS.get(ch, ch) for ch in s)


def environment(user_dir: str | Path | None = None) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=loader("latex", user_dir), autoescape=False, finalize=escape, undefined=jinja2.StrictUndefined,
        block_start_string="<%", block_end_string="%>", variable_start_string="<<", variable_end_string=">>",
        comment_start_string="<#", comment_end_string="#>", trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["cells"] = cells
    env.filters["headers"] = lambda columns: cells([c.header for c in columns])
    return env


def cells(row: Iterable[object], bold: bool = False) -> Safe:
    """One table row's cells, escaped once and joined with ``&``."""
    parts = [escape(c) for c in row]
    if bold:
        parts = [rf"\textbf{{{p}}}" if p else p for p in parts]
    return Safe(" & ".join(parts))


def render_tables(tables: Iterable[Table], out_dir: Path, user_dir: str | Path | None = None) -> list[str]:
    """Write ``<key>.tex`` for every table and a README naming the packages; returns file names."""
    env = environment(user_dir)
    with user_template_errors(user_dir):
        template = env.get_template("table.tex.j2")
    out_dir.mkdir(parents=True, exist_ok=True)
    names = []
    for t in tables:
        name = f"{t.key}.tex"
        spec = "".join(c.align for c in t.columns)
        with user_template_errors(user_dir):
            text = template.render(table=t, colspec=Safe(spec), long=len(t.rows) > LONG_TABLE_ROWS,
                                   packages=PACKAGES)
        (out_dir / name).write_text(text, encoding="utf-8")
        names.append(name)
    with user_template_errors(user_dir):
        readme = env.get_template("README.txt.j2").render(names=names, packages=PACKAGES,
                                                          long_rows=LONG_TABLE_ROWS)
    (out_dir / "README.txt").write_text(readme, encoding="utf-8")
    return names
