"""The self-contained HTML report (CSS inline, no external references)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from sigreport.render import loader, user_template_errors


def environment(user_dir: str | Path | None = None) -> jinja2.Environment:
    return jinja2.Environment(loader=loader("html", user_dir), autoescape=True, undefined=jinja2.StrictUndefined,
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def render_html(context: dict[str, Any], user_dir: str | Path | None = None) -> str:
    """The report page; errors in the user's templates are user errors (see ``user_template_errors``)."""
    env = environment(user_dir)
    with user_template_errors(user_dir):
        css = env.loader.get_source(env, "style.css")[0]  # type: ignore[union-attr]
        return env.get_template("report.html.j2").render(css=Markup(css), **context)
