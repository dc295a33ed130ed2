"""The Python API: the one place that wires the stages together.

``load_spec`` -> :class:`~sigreport.spec.SpecFile`; ``analyze`` -> :class:`~sigreport.results.Results`
(computes everything, writes nothing); ``build`` -> :class:`Report` (what ``sigreport build`` does).
Mistakes in the user's input are raised as :class:`~sigreport.errors.SpecError` or
:class:`~sigreport.errors.DataError` (both :class:`~sigreport.errors.UserError`), carrying every problem;
the command line prints them and exits with code 2.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sigreport.errors import Problem
from sigreport.results import Results
from sigreport.speed import plain_path
from sigreport import spec as spec_module
from sigreport.spec import SpecFile
from sigreport.version import __version__

if TYPE_CHECKING:  # the executor, cache and workers are imported by analyze and build only, not by validate
    from sigreport.execute import Cache, Executor, Progress

SpecSource = SpecFile | str | Path | Mapping[str, Any]


@dataclasses.dataclass(frozen=True)
class Report:
    """A written report: its folder, the files written (relative paths) and the warnings. In Jupyter it shows
    as the report's conclusions, key figure and main table (read back from its results.json, with the spec's
    output options); :meth:`open` opens its index.html in the browser."""

    path: Path
    files: tuple[str, ...]
    warnings: tuple[Problem, ...]
    spec: spec_module.Spec | None = dataclasses.field(default=None, compare=False, repr=False)  # its output options

    def _repr_html_(self) -> str:
        from sigreport.api import notebook
        from sigreport.api.options import render_options

        return notebook.report_html(self.path, render_options(self.spec) if self.spec is not None else None)

    def open(self) -> bool:
        """Open the report's index.html in the web browser (:mod:`webbrowser`, a file URL); False when no
        browser could be started. A report built without html has no index.html: FileNotFoundError."""
        import webbrowser

        index = self.path / "index.html"
        if not index.is_file():
            raise FileNotFoundError(f"{index}: this report was built without html (outputs.formats, --formats)")
        return webbrowser.open(index.resolve().as_uri())


def load_spec(source: SpecSource, *, base_dir: str | Path | None = None) -> SpecFile:
    """A validated spec from a file (a ``Path``, or a ``str`` without a newline ending in .yaml/.yml), YAML
    text or a mapping; a :class:`SpecFile` is returned as it is. Relative paths in the spec resolve against
    the file's folder, or (text, mapping) the current folder, unless ``base_dir`` is given."""
    return spec_module.load_spec(source, base_dir=base_dir)


def analyze(spec: SpecSource, *, scores: Any = None, predictions: Any = None, annotations: Any = None,
            outcomes: Any = None, preferences: Any = None, previous: Results | None = None,
            executor: Executor | None = None,
            cache: Cache | None = None, progress: Progress | None = None, plain: bool = False) -> Results:
    """Compute every analysis the spec implies; write nothing.

    ``scores``, ``predictions``, ``annotations``, ``outcomes``, ``preferences``: pandas data frames standing in for the tables
    of ``data`` (same columns; problems are reported by row number); the spec need not name a path for them.
    ``previous``: the previous report's results (for ``selection``). ``plain``: run none of the code that
    exists only for speed (:mod:`sigreport.speed`; same results). ``Results.to_dict()`` is exactly what
    results.json holds for the same inputs."""
    frames = {k: v for k, v in (("scores", scores), ("predictions", predictions), ("annotations", annotations),
                                ("outcomes", outcomes), ("preferences", preferences))
              if v is not None}
    from sigreport.api import notebook  # noqa: F401  (registers the results' notebook display)
    from sigreport.api import pipeline  # here: ``sigreport validate`` imports this package, not the build
    from sigreport.execute import run_plan

    with plain_path(plain):
        p = pipeline.prepare(load_spec(spec), previous=previous, frames=frames)
        results = run_plan(p.plan, p.dataset, executor, progress, cache)
        return pipeline.collect(p, results)


def build(spec: SpecSource, out: str | Path | None = None, *, formats: list[str] | None = None,
          strict: bool = False, templates: str | Path | None = None, progress: Progress | None = None,
          plain: bool = False) -> Report:
    """Validate, analyse and write the report (HTML, PDF, LaTeX, JSON) into ``out`` or the spec's
    ``outputs.dir``, atomically. ``plain``: run none of the code that exists only for speed
    (:mod:`sigreport.speed`; the same bytes)."""
    from sigreport.api import pipeline

    with plain_path(plain):
        sf = load_spec(spec)
        dest, written, warnings = pipeline.build(sf, out, formats, strict, progress, templates)
    return Report(dest, tuple(written), tuple(warnings), sf.spec)


__all__ = ["Report", "analyze", "build", "load_spec", "__version__"]
