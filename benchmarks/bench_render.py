"""Rendering cost of a large report, phase by phase (CPU seconds, in one process).

The analyses run once (not timed); then the report model with its figures (``build_report``), the HTML
page (``render_html``) and the LaTeX tables (``render_latex``) are each rendered ``--repeat`` times and the
median CPU time of each phase is printed, with a SHA-256 of the HTML and the tables so that a speed-up can
be checked to leave every byte as it was.

Default case: 20 systems x 3 corpora x 2 metrics x 300 items, paired t + RM-ANOVA (the 1M-row case of
``bench_build.py`` at a size that renders in seconds)::

    python benchmarks/bench_render.py --repeat 3
    python benchmarks/bench_render.py --spec configs/demsar.yaml
    python benchmarks/bench_render.py --profile /tmp/render.prof   # cProfile of one full render

The machine may be shared: the load average is printed; CPU time is the figure it distorts least.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import bench_build  # noqa: E402  (this folder)
from sigreport.api import analyze  # noqa: E402


def small_case(root: Path) -> Path:
    """The default case: 20 systems x 3 corpora x 2 metrics x 300 items, paired t + RM-ANOVA."""
    if not (root / "scores.csv").exists():
        root.mkdir(parents=True, exist_ok=True)
        bench_build.write_scores(root / "scores.csv", 20, 3, 2, 300)
    return bench_build.write_spec(root, 2, bench_build.T_ANOVA, "html, latex, json", "t.yaml")


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def render_once(results: Any, out: Path) -> tuple[dict[str, float], str]:
    """One full render; CPU seconds per phase and a digest of every byte written."""
    from sigreport.render.html import render_html
    from sigreport.render.latex import render_latex
    from sigreport.render.views import build_report

    t_model, model = timed(lambda: build_report(results, "spec.yaml", figure_pdf=True))
    t_html, page = timed(lambda: render_html(model))
    t_latex, _ = timed(lambda: render_latex(model, out / "tables"))
    digest = hashlib.sha256(page.encode())
    for f in sorted((out / "tables").iterdir()):
        digest.update(f.name.encode() + f.read_bytes())
    for fig in model.figures():
        digest.update((fig.svg or "").encode() + (fig.pdf or b""))
    return {"model+figures": t_model, "html": t_html, "latex": t_latex}, digest.hexdigest()[:16]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", type=Path, help="a spec to render (default: the generated 20x3x2x300 case)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", type=Path, help="write a cProfile of one render here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        spec = args.spec or small_case(Path(tmp) / "case")
        results = analyze(spec)
        out = Path(tmp) / "out"
        out.mkdir()
        render_once(results, out)  # warm: imports, font cache
        if args.profile:
            cProfile.runctx("render_once(results, out)", globals(), {"results": results, "out": out},
                            str(args.profile))
        runs = [render_once(results, out) for _ in range(args.repeat)]
    digests = {d for _, d in runs}
    print(f"{spec.name}: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for phase in runs[0][0]:
        print(f"  {phase:14s} {statistics.median(r[phase] for r, _ in runs):6.2f} CPU-s")
    print(f"  {'total':14s} {statistics.median(sum(r.values()) for r, _ in runs):6.2f} CPU-s")
    print(f"  output digest {', '.join(sorted(digests))}" + ("" if len(digests) == 1 else "  (NOT STABLE)"))


if __name__ == "__main__":
    main()
