"""Rendering: Results -> report model (views/, built once) -> cells formatted per target (format.py) ->
Jinja templates that only place them (html.py, latex.py, pdf.py) -> files.

Templates come from the user's folder (``--templates``) first, then from sigreport's own. A mistake in
a user's template (syntax, an undefined variable, a missing include) is a user error naming the template
file and line; the same mistake in a built-in template is a bug and keeps its traceback.
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import jinja2

from sigreport.errors import Problem, UserError

SUBDIRS = ("html", "latex")


def check_template_dir(user_dir: str | Path) -> Path:
    """The user's template folder, resolved; a missing folder, a file, or a folder without html/ or latex/
    is a user error (a typo would otherwise silently fall back to the built-in templates)."""
    path = Path(user_dir)
    source = str(path)
    if not path.exists():
        raise UserError(source, [Problem(source, None, "--templates", "folder not found")])
    if not path.is_dir():
        raise UserError(source, [Problem(source, None, "--templates", "is a file, not a folder of templates")])
    if not any((path / sub).is_dir() for sub in SUBDIRS):
        raise UserError(source, [Problem(source, None, "--templates", "holds neither html/ nor latex/; put "
                                         "overrides of the built-in templates there (html/report.html.j2, "
                                         "latex/table.tex.j2, ...)")])
    return path.resolve()


def template_dirs(user_dir: str | Path | None = None) -> list[Path]:
    """Template search path: the user's folder first (overrides), then the templates shipped with sigreport.

    In a wheel the templates live in ``sigreport/templates``; in a source checkout they are the
    top-level ``templates/`` folder.
    """
    here = Path(__file__).resolve().parent.parent
    dirs = [check_template_dir(user_dir)] if user_dir else []
    for cand in (here / "templates", here.parent / "templates"):
        if (cand / "html").is_dir():
            dirs.append(cand)
            break
    else:  # pragma: no cover - broken installation
        raise RuntimeError("sigreport's templates are missing from this installation")
    return dirs


def loader(subdir: str, user_dir: str | Path | None = None) -> jinja2.BaseLoader:
    return jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(d / subdir)) for d in template_dirs(user_dir)])


@contextlib.contextmanager
def user_template_errors(user_dir: str | Path | None) -> Iterator[None]:
    """Turn errors raised by the user's templates into :class:`UserError` (template file, line, message).

    Which template is at fault comes from the traceback Jinja rewrites to template files and lines: the
    innermost template frame decides. A Jinja error there, or any error raised by the template's own code,
    is the user's; everything else (built-in templates, sigreport's filters) propagates unchanged.
    """
    try:
        yield
    except Exception as exc:
        if not user_dir:
            raise
        mine = Path(user_dir).resolve()
        where = _user_location(exc, mine)
        if where is None:
            raise
        file, line = where
        message = " ".join(_jinja_message(exc).split())
        raise UserError(file, [Problem(file, line, "", message)]) from None


def _jinja_message(exc: Exception) -> str:
    if isinstance(exc, jinja2.TemplateNotFound):
        return f"template {exc.name!r} not found (in this folder or the built-in templates)"
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return f"syntax error: {exc.message}"
    if isinstance(exc, jinja2.TemplateError):
        return exc.message or type(exc).__name__
    return f"{type(exc).__name__}: {exc}"


def _inside(filename: str | None, folder: Path) -> bool:
    if not filename:
        return False
    try:
        return Path(filename).resolve().is_relative_to(folder)
    except (OSError, ValueError):
        return False


def _user_location(exc: Exception, mine: Path) -> tuple[str, int | None] | None:
    """(template file, line) when the user's template is at fault, else None."""
    if isinstance(exc, jinja2.TemplateSyntaxError):
        inside = any(_inside(exc.filename, mine / sub) for sub in SUBDIRS)
        return (str(Path(exc.filename or "").resolve()), exc.lineno) if inside else None
    users = [mine / sub for sub in SUBDIRS]  # templates load only from these, never from elsewhere in `mine`
    frames = _template_frames(exc.__traceback__, users + [d / sub for d in template_dirs() for sub in SUBDIRS])
    if not frames:
        return None
    filename, line, innermost = frames[-1]
    if not any(_inside(filename, folder) for folder in users):
        return None
    if isinstance(exc, jinja2.TemplateError) or innermost:
        return str(Path(filename).resolve()), line
    return None


def _template_frames(tb: TracebackType | None, folders: list[Path]) -> list[tuple[str, int | None, bool]]:
    """Frames of templates in ``folders`` (file, line, whether it is the innermost frame), outermost first."""
    summary = traceback.extract_tb(tb)
    return [(frame.filename, frame.lineno, i == len(summary) - 1) for i, frame in enumerate(summary)
            if any(_inside(frame.filename, folder) for folder in folders)]
