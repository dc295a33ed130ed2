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
    python benchmarks/bench_render.py --figures                    # CPU per figure kind at k = 5, 12, 20
    python benchmarks/bench_render.py --figures --profile /tmp/fig.prof --kinds pvalues --sizes 20

``--figures`` draws synthetic records (fixed seed; no analyses run): a Friedman post-hoc record of k
systems (``cd``, ``pvalues``), a vs-baseline pairwise family of k systems (``forest``; k - 1 rows) and a
classification record with k labels and 4 systems (``confusion``), and prints the median CPU seconds of
one figure as SVG only (HTML builds) and as SVG + PDF (builds that write LaTeX).

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


FIGURE_KINDS = ("pvalues", "cd", "forest", "confusion")


def synthetic_record(kind: str, k: int) -> Any:
    """A record of ``k`` systems (``k`` labels for ``confusion``) for the figure ``kind``; fixed seed.

    Decisions are mixed (significant, not, and one undecided pair) so every cell style is drawn."""
    import numpy as np

    from sigreport.results.records import (ClassificationRecord, ConfusionMatrix, PairRow, PairwiseRecord,
                                           PosthocRecord, PosthocRow, SystemClassification)
    from sigreport.stats.result import PairedTestResult

    rng = np.random.default_rng(k)
    names = [f"system-{i:02d}" + ("-long" if i % 4 == 1 else "") for i in range(k)]
    if kind in ("pvalues", "cd"):
        ranks = {n: float(r) for n, r in zip(names, np.sort(rng.uniform(1, k, k)))}
        rows = []
        for i in range(k):
            for j in range(i + 1, k):
                d = ranks[names[i]] - ranks[names[j]]
                p = float(rng.uniform(0, 0.2)) if abs(d) > 2 else float(rng.uniform(0.05, 1))
                if (i, j) == (0, 1):  # undecided: no p-value, no decision ('n/a', outlined)
                    rows.append(PosthocRow(names[i], names[j], None, d, None, None, None))
                else:
                    rows.append(PosthocRow(names[i], names[j], abs(d), d, p, p, p < 0.05))
        return PosthocRecord("m/*/posthoc", "posthoc", "m", None, "corpora", "nemenyi", "friedman", True, 2.5,
                             None, None, 0.05, ranks, tuple(rows), None, ())
    if kind == "forest":
        pairs = []
        for i in range(1, k):
            est = float(rng.normal(0, 1))
            test = PairedTestResult(method="paired_t", n=300, statistic=est, df=299.0, pvalue=0.01,
                                    alternative="two-sided", estimate=est, ci_low=est - 0.5, ci_high=est + 0.5,
                                    ci_level=0.95, critical_value=None, effect_size=None)
            pairs.append(PairRow(names[i], names[0], test, 0.02 * i, None if i == 1 else abs(est) > 0.5))
        return PairwiseRecord("m/c/pairwise", "pairwise", "m", "c", "items", "paired_t", "two-sided",
                              "vs_baseline", "holm", "metric", k - 1, 0.05, 0.95, tuple(pairs), None, ())
    labels = tuple(f"label-{i}" for i in range(k))
    systems = tuple(SystemClassification(f"system-{s}", 500, ConfusionMatrix(labels, tuple(
        tuple(int(v) for v in row) for row in rng.integers(0, 60, (k, k)))), {}) for s in range(4))
    return ClassificationRecord("c/classification", "classification", "classification", "c", labels, None, 1.0,
                                "f1", 0.95, "bootstrap", 1000, 500, 0, systems, ())


def draw_one(kind: str, record: Any) -> Any:
    from sigreport.render import figures

    draw = {"pvalues": figures.draw_pvalues, "cd": figures.draw_cd, "forest": figures.draw_forest,
            "confusion": figures.draw_confusion}[kind]
    return draw(record)


def figure_times(kinds: list[str], sizes: list[int], repeat: int, profile: Path | None) -> None:
    """Median CPU seconds of one figure per kind and size, SVG only and SVG + PDF, with an output digest."""
    from sigreport.render.figures.output import figure_settings

    print(f"figures: load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"  {'kind':10s} {'k':>3s} {'svg':>8s} {'svg+pdf':>8s}  digest")
    prof = cProfile.Profile() if profile else None
    for kind in kinds:
        for k in sizes:
            record = synthetic_record(kind, k)
            row = []
            digest = hashlib.sha256()
            for pdf in (False, True):
                with figure_settings(pdf=pdf):
                    draw_one(kind, record)  # warm: imports, fonts, subset cache
                    times = []
                    for _ in range(repeat):
                        if prof:
                            prof.enable()
                        t, fig = timed(lambda: draw_one(kind, record))
                        if prof:
                            prof.disable()
                        times.append(t)
                digest.update(fig.svg.encode() + fig.pdf)
                row.append(statistics.median(times))
            print(f"  {kind:10s} {k:3d} {row[0]:8.3f} {row[1]:8.3f}  {digest.hexdigest()[:12]}", flush=True)
    print(f"  load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if prof and profile:
        prof.dump_stats(str(profile))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", type=Path, help="a spec to render (default: the generated 20x3x2x300 case)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", type=Path, help="write a cProfile of one render here")
    ap.add_argument("--figures", action="store_true", help="time one figure of each kind and size instead")
    ap.add_argument("--kinds", default=",".join(FIGURE_KINDS), help="with --figures: kinds to time")
    ap.add_argument("--sizes", default="5,12,20", help="with --figures: numbers of systems (labels) to time")
    args = ap.parse_args()
    if args.figures:
        figure_times(args.kinds.split(","), [int(k) for k in args.sizes.split(",")], args.repeat, args.profile)
        return
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
