"""One build: spec file -> dataset -> plan -> results -> report folder, written atomically.

The report is written into a temporary folder beside the destination and moved into place only
when every file is complete, so a failed build leaves no half report and the previous report
untouched.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sigreport import __version__
from sigreport.analyses import results_json
from sigreport.archive import releases
from sigreport.archive.verify import VerifyResult, verify_release
from sigreport.data import Dataset, load_data
from sigreport.errors import Problem, StrictError, UserError
from sigreport.plan import Plan, build_plan, run_plan
from sigreport.render import context as ctx
from sigreport.spec import SpecFile, load_spec_file, output_dir

Progress = Callable[[int, int, str], None]


@dataclasses.dataclass(frozen=True)
class Prepared:
    spec_file: SpecFile
    dataset: Dataset
    plan: Plan
    dest: Path


def prepare(spec_path: str | Path, out: str | Path | None = None) -> Prepared:
    """Validate spec and data and expand the plan (no statistics yet)."""
    sf = load_spec_file(spec_path)
    ds = load_data(sf)
    dest = Path(out).resolve() if out else output_dir(sf)
    return Prepared(sf, ds, build_plan(sf.spec, ds, previous_results(dest)), dest)


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
          templates: str | Path | None = None,
          release: releases.ReleasePlan | None = None) -> tuple[Path, list[str], list[Problem]]:
    """Run a whole build; returns (report folder, files written, warnings). With ``release`` (from
    :func:`plan_release`) the report goes into the archive with its manifest, and the index is rewritten."""
    p = prepare(spec_path, release.dest if release else out)
    results = run_plan(p.plan, p.dataset, progress)
    warnings = collect_warnings(results)
    if strict and warnings:
        raise StrictError(str(p.spec_file.path), warnings)
    dest = p.dest
    check_destination(dest, str(p.spec_file.path))
    fmts = formats or list(p.spec_file.spec.outputs.formats)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.tmp-", dir=dest.parent))
    try:
        if release and "json" not in fmts:
            fmts = [*fmts, "json"]  # a release's diff and index read its results.json
        written = write_report(p, results, tmp, fmts, templates)
        if release:
            given = releases.release_inputs(p.spec_file, fmts, templates, __version__)
            written += releases.finish_release(release, tmp, given)
        (tmp / MARKER).write_text(f"sigreport {__version__}\n", encoding="utf-8")
        replace_dir(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if release:
        releases.write_index(release.archive)
    return dest, written, warnings


def plan_release(spec_path: str | Path, name: str, archive: str | Path | None = None, force: bool = False,
                 previous: str | Path | None = None) -> releases.ReleasePlan:
    """Where ``build --release NAME`` writes, checked before any analysis runs."""
    return releases.plan_release_for(load_spec_file(spec_path), name, archive, force, previous)


def verify(folder: str | Path, rebuild: bool = True, data_dir: str | Path | None = None) -> VerifyResult:
    """``sigreport verify``: check a release against its manifest, rebuilding it unless ``rebuild`` is False."""
    def builder(spec: Path, out: Path, formats: list[str], templates: str | None) -> None:
        build(spec, out, formats or None, templates=templates)

    return verify_release(Path(folder), rebuild, Path(data_dir) if data_dir else None, builder)


MARKER = ".sigreport-report"


def check_destination(dest: Path, source: str) -> None:
    """Refuse to replace a folder that is not an earlier sigreport report (nothing of the user's is lost)."""
    if dest.exists() and (not dest.is_dir() or (any(dest.iterdir()) and not (dest / MARKER).exists())):
        what = "a file" if not dest.is_dir() else "a non-empty folder that is not a sigreport report"
        raise UserError(source, [Problem(source, None, "outputs.dir",
                                         f"{dest} is {what}; sigreport replaces only its own reports: "
                                         "choose another output folder (-o)")])


def replace_dir(new: Path, dest: Path) -> None:
    """Move ``new`` to ``dest``; an existing ``dest`` is swapped out and removed only afterwards."""
    os.chmod(new, 0o755)
    if dest.exists():
        old = dest.parent / f".{dest.name}.old-{os.getpid()}"
        if old.exists():
            shutil.rmtree(old)
        dest.rename(old)
        try:
            new.rename(dest)
        except BaseException:
            old.rename(dest)
            raise
        shutil.rmtree(old, ignore_errors=True)
    else:
        new.rename(dest)
