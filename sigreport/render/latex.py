"""LaTeX tables: one booktabs table per analysis table, meant for ``\\input{}`` in a paper."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

import jinja2

from sigreport.render import loader, names, user_template_errors
from sigreport.render.format import Latex, Safe, escape, placeholder
from sigreport.render.model import Column, Table

__all__ = ["LONG_TABLE_ROWS", "PACKAGES", "LatexTables", "environment", "escape", "render_tables"]

PACKAGES = ("booktabs", "amsmath", "amssymb")
LONG_TABLE_ROWS = 40


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


@dataclasses.dataclass(frozen=True)
class LatexTables:
    """What :func:`render_tables` wrote: file names (in order) and the characters it wrote as placeholders."""

    files: tuple[str, ...]
    unprintable: tuple[str, ...]

    def warning(self) -> str | None:
        """One line for the build output when names held characters pdflatex cannot print."""
        if not self.unprintable:
            return None
        shown = ", ".join(placeholder(ch) for ch in self.unprintable[:8])
        more = f" and {len(self.unprintable) - 8} more" if len(self.unprintable) > 8 else ""
        return (f"LaTeX tables: {len(self.unprintable)} character{'s' if len(self.unprintable) != 1 else ''} that "
                f"pdflatex cannot print ({shown}{more}) written as [U+XXXX] placeholders; the HTML and PDF show them")


def colspec(columns: Iterable[Column]) -> Safe:
    return Safe("".join(c.align for c in columns))


def render_tables(tables: Iterable[Table], out_dir: Path, user_dir: str | Path | None = None) -> LatexTables:
    """Write ``<name>.tex`` for every table and a README naming the packages."""
    fmt = Latex()
    env = environment(user_dir, fmt)
    with user_template_errors(user_dir):
        template = env.get_template("table.tex.j2")
    out_dir.mkdir(parents=True, exist_ok=True)
    files = []
    for t in tables:
        name = names.table_file(t.name)
        with user_template_errors(user_dir):
            text = template.render(table=t, label=Safe(names.latex_label(t.name)), colspec=colspec(t.columns),
                                   long=len(t.rows) > LONG_TABLE_ROWS, packages=PACKAGES)
        (out_dir / name).write_text(text, encoding="utf-8")
        files.append(name)
    with user_template_errors(user_dir):
        readme = env.get_template("README.txt.j2").render(names=files, packages=PACKAGES, long_rows=LONG_TABLE_ROWS)
    (out_dir / "README.txt").write_text(readme, encoding="utf-8")
    return LatexTables(tuple(files), tuple(sorted(fmt.unprintable)))
