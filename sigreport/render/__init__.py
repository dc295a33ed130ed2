"""Rendering: Results -> report model (views/, built once) -> cells formatted per target (format.py) ->
Jinja templates that only place them (html.py, latex.py, pdf.py) -> files."""

from __future__ import annotations

from pathlib import Path

import jinja2


def template_dirs(user_dir: str | Path | None = None) -> list[Path]:
    """Template search path: the user's folder first (overrides), then the templates shipped with sigreport.

    In a wheel the templates live in ``sigreport/templates``; in a source checkout they are the
    top-level ``templates/`` folder.
    """
    here = Path(__file__).resolve().parent.parent
    dirs = [Path(user_dir)] if user_dir else []
    for cand in (here / "templates", here.parent / "templates"):
        if (cand / "html").is_dir():
            dirs.append(cand)
            break
    else:  # pragma: no cover - broken installation
        raise RuntimeError("sigreport's templates are missing from this installation")
    return dirs


def loader(subdir: str, user_dir: str | Path | None = None) -> jinja2.BaseLoader:
    return jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(d / subdir)) for d in template_dirs(user_dir)])
