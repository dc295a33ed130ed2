"""One build: spec file -> dataset -> plan -> results -> report folder, written atomically.

Where and how the folder is written (lock, checks, temporary folder, swap, recovery) is
:mod:`sigreport.archive.store`; this module only gathers what the build reads so the store can
refuse an output folder that holds any of it.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sigreport import __version__
from sigreport.analyses import results_json
from sigreport.archive import store
from sigreport.data import Dataset, load_data
from sigreport.errors import Problem, StrictError
from sigreport.plan import Plan, build_plan, run_plan
from sigreport.render import context as ctx
from sigreport.spec import SpecFile, load_spec_file, output_dir

Progress = Callable[[int, int, str], None]
MARKER = store.MARKER  # the report's marker file (kept here for callers that used it)


@dataclasses.dataclass(frozen=True)
class Prepared:
    spec_file: SpecFile
    dataset: Dataset
    plan: Plan
    dest: Path


def prepare(spec_path: str | Path, out: str | Path | None = None) -> Prepared:
    """Validate spec and data and expand the plan (no statistics yet)."""
    sf, ds, dest = load(spec_path, out)
    store.recover_if_idle(dest, _say)  # a report left under a hidden name by a killed build is put back first
    return Prepared(sf, ds, build_plan(sf.spec, ds, previous_results(dest)), dest)


def load(spec_path: str | Path, out: str | Path | None = None) -> tuple[SpecFile, Dataset, Path]:
    """Spec, data and the report folder it names (``out`` wins over ``outputs.dir``)."""
    sf = load_spec_file(spec_path)
    ds = load_data(sf)
    return sf, ds, (Path(out).resolve() if out else output_dir(sf))


def previous_results(dest: Path) -> dict[str, Any]:
    """Analyses of the report already in ``dest`` (for ``selection: fixed``), by id."""
    try:
        doc = json.loads((dest / "results.json").read_text(encoding="utf-8"))
        return {a["id"]: a for a in doc.get("analyses", []) if isinstance(a, dict) and "id" in a}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def collect_warnings(results: dict[str, Any]) -> list[Problem]:
    out = []
    for node_id, r in results.items():
        for w in getattr(r, "warnings", ()):
            out.append(Problem(node_id, None, "", w))
        for p in getattr(r, "pairs", ()):
            for w in getattr(p, "warnings", ()):
                out.append(Problem(node_id, None, f"{p.a} vs {p.b}", w))
    return out


def html_context(p: Prepared, results: dict[str, Any]) -> dict[str, Any]:
    spec = p.spec_file.spec
    doc = results_json(spec, p.dataset, results, __version__)
    return {
        "title": spec.title, "description": spec.description, "version": __version__,
        "spec_name": p.spec_file.path.name, "settings": ctx.settings_rows(spec, doc["data"]),
        "sections": ctx.sections(spec, results, "html", p.dataset.metric_specs), "data_files": data_files(doc["data"]),
        "seed": spec.seed,
    }


def data_files(info: dict[str, Any]) -> list[str]:
    """'name (sha256 abc…)' for every input table, for the report's footer."""
    out = []
    if info.get("scores"):
        out.append(f"{info['scores']} (sha256 {str(info['sha256'])[:12]})")
    for key in ("predictions", "annotations"):
        v = info.get(key)
        if isinstance(v, dict) and v.get("file"):
            out.append(f"{v['file']} (sha256 {str(v.get('sha256', ''))[:12]})")
    return out


def write_report(p: Prepared, results: dict[str, Any], dest: Path, formats: list[str],
                 templates: str | Path | None = None) -> list[str]:
    """Render every requested format into ``dest`` (a fresh folder). Returns the files written."""
    from sigreport.render.html import render_html
    from sigreport.render.latex import render_tables

    spec = p.spec_file.spec
    written = []
    if "json" in formats:
        doc = results_json(spec, p.dataset, results, __version__)
        (dest / "results.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n",
                                           encoding="utf-8")
        written.append("results.json")
    html = None
    if "html" in formats or "pdf" in formats:
        html = render_html(html_context(p, results), templates)
    if "html" in formats:
        (dest / "index.html").write_text(html, encoding="utf-8")
        written.append("index.html")
    if "pdf" in formats:
        from sigreport.render.pdf import render_pdf

        render_pdf(html, dest / "report.pdf")
        written.append("report.pdf")
    if "latex" in formats:
        tables = [t for s in ctx.sections(spec, results, "latex", p.dataset.metric_specs) for v in s.views for t in v.tables]
        names = render_tables(tables, dest / "tables", templates)
        written += [f"tables/{n}" for n in names]
    return written


def build(spec_path: str | Path, out: str | Path | None = None, formats: list[str] | None = None,
          strict: bool = False, progress: Progress | None = None,
          templates: str | Path | None = None, wait: float = 0.0,
          say: store.Say | None = None) -> tuple[Path, list[str], list[Problem]]:
    """Run a whole build; returns (report folder, files written, warnings).

    The output folder is locked for the whole build (a second build waits ``wait`` seconds, then
    stops with exit 2) and checked before any statistics run, so a refused build costs nothing.
    """
    say = say or _say
    sf, ds, dest = load(spec_path, out)
    with store.locked(dest, wait):
        store.recover(dest, say)
        store.check_inputs_outside(dest, input_paths(sf, templates))
        store.check_destination(dest)
        p = Prepared(sf, ds, build_plan(sf.spec, ds, previous_results(dest)), dest)
        results = run_plan(p.plan, p.dataset, progress)
        warnings = collect_warnings(results)
        if strict and warnings:
            raise StrictError(str(p.spec_file.path), warnings)
        fmts = formats or list(p.spec_file.spec.outputs.formats)
        written = store.write_report_folder(dest, lambda tmp: write_report(p, results, tmp, fmts, templates), say,
                                            __version__)
    return dest, written, warnings


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def input_paths(sf: SpecFile, templates: str | Path | None = None) -> list[Path]:
    """Every file or folder a build reads: the output folder may hold none of them (it is replaced whole)."""
    data = sf.spec.data
    paths = [sf.path.resolve()] + [sf.resolve(f) for f in (data.scores, data.predictions, data.annotations) if f]
    if templates:
        paths.append(Path(templates).resolve())
    for m in sf.spec.metrics.values():
        module = m.aggregate.partition(":")[0] if ":" in m.aggregate else ""
        if module and not module.startswith("sigreport."):
            paths += module_files(module)
    return paths


def module_files(module: str) -> list[Path]:
    """The source files of an imported module and of the packages above it."""
    parts = module.split(".")
    out = []
    for i in range(1, len(parts) + 1):
        mod = sys.modules.get(".".join(parts[:i]))
        file = getattr(mod, "__file__", None)
        if file:
            out.append(Path(file).resolve())
    return out
