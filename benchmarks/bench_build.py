"""Benchmark of whole ``sigreport`` processes against the targets of issue 11 ("Fast at every size").

Every case is generated into a temporary folder (not timed), then run as a whole process
(``python -m sigreport.cli ...``, as the console script) ``--repeat`` times. Each run's wall time and peak memory are measured
(peak memory: ``ru_maxrss`` of the child from ``os.wait4``, which covers the child and the worker
processes it waited for). The table shows the median wall time and the largest peak memory against
the targets, and, where the case has one, the ratio to its peer measured in the same run.

Cases (targets from the issue, for a 2-core machine):

==========  =======================================================================  ================
name        case                                                                     target
==========  =======================================================================  ================
boot1m      1M-row CSV (20 systems x 10 corpora x 5 metrics x 1,000 items), paired   <= 4 s, <= 1 GB
            bootstrap B = 10,000, Friedman + Nemenyi, html+latex+json
t1m         the same data with paired t + RM-ANOVA                                   <= 3.5 s
validate1m  ``sigreport validate`` of that spec (peer: pandas' pyarrow CSV reader)    <= 1.5 s
validate6   ``sigreport validate`` of a 6-row spec (configs/summarizers.yaml)        <= 0.3 s
json6       ``sigreport build --formats json`` of that 6-row spec                    <= 1.2 s
engine      corpus BLEU, k = 20, n = 100,000, B = 1,000, all pairs + CIs (the        <= 0.8 s engine,
            child of ``bench_resampling.py``)                                        <= 1.5 s process,
                                                                                     <= 600 MB
pdf         the PDF alone (``report_pdf`` of the built report model, in its own      <= 2 s
            process) of a 10 x 3 x 2 x 5,000-item bootstrap report
boot10m     10M rows (100 systems x 5 corpora x 2 metrics x 10,000 items),          <= 60 s, <= 6 GB
            bootstrap B = 1,000, Friedman + Nemenyi, json
cache       boot1m rebuilt with ``--cache`` after one metric's data changed, vs.     <= 0.4 x cold
            the cold build into an empty cache (the peer)
jobs        boot1m with ``--jobs 2`` vs. ``--jobs 1`` (the peer), no cache           <= 0.65 x
systems     a leaderboard of ``--systems`` (100) systems x 200 items, paired t +     measured: time and
            Holm over every pair, every format                                       each output's size
help        ``sigreport --help`` (opt-in: ``--cases help``)                          <= 0.15 s
dask        Parquet shards (20 systems x 10 corpora x 5 metrics, one shard per        client peak memory
            system) read by a LocalCluster of 2 workers with ``--executor dask       independent of the
            --scheduler``, paired t + RM-ANOVA, json, at ``--dask-rows`` (10M and     rows (<= 1.25x);
            100M rows); the first size also built serially (opt-in: ``--cases        10M: the serial
            dask``)                                                                  results.json bytes
rebuild     boot1m built with the cache, then built again with nothing changed       <= 0.5 s
            (opt-in: ``--cases rebuild``)
leaderboard ``--board-systems`` (1,000) x ``--board-items`` (10,000) on one metric,   <= 60 s, <= 8 GB
            paired t and (a second build) paired bootstrap B = 1,000, each with      each build
            Holm over every pair, html+json (opt-in: ``--cases leaderboard``)
==========  =======================================================================  ================

``--previous DIR`` runs every chosen case a second time with the code in ``DIR`` (a source tree of the
previous release, e.g. ``git archive v0.9 | tar -x -C /tmp/prev``, or a ``git worktree``), interleaved with
this code's runs in the same process and on the same generated data, and adds each case's ratio to it
(its main figure: this code's median over the previous one's).
Start it from a folder outside both source trees (``cd /tmp``): ``python -m`` puts the current folder
first on ``sys.path``, so inside a tree both passes would run that tree's code.

Usage::

    python benchmarks/bench_build.py --quick                 # the small and 1M cases (a few minutes)
    python benchmarks/bench_build.py                         # everything (boot10m takes minutes)
    python benchmarks/bench_build.py --cases validate6,json6 --repeat 5 --keep /tmp/bench-build
    python benchmarks/bench_build.py --cases systems --systems 100 --repeat 1
    python benchmarks/bench_build.py --cases t1m,rebuild,cache --previous /tmp/prev   # ratios to a previous release
    python benchmarks/bench_build.py --cases leaderboard --repeat 1                   # 1,000 systems x 10,000 items
    python benchmarks/bench_build.py --cases leaderboard --board-systems 200 --repeat 1 --previous /tmp/prev

The machine may be shared: the load average before and after is printed; figures measured on a busy
machine are upper bounds.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SIGREPORT = [sys.executable, "-m", "sigreport.cli"]


@dataclasses.dataclass
class Run:
    """One measured process: wall seconds, peak memory (MB) and anything the child reported."""

    seconds: float
    rss_mb: float
    info: dict
    cpu: float = 0.0  # user + system CPU seconds of the child and its reaped workers


@dataclasses.dataclass
class Row:
    """One line of the final table."""

    case: str
    measured: str
    target: str
    ok: bool
    peer: str = ""
    value: float = 0.0  # the case's main figure (wall seconds), for the ratio to --previous
    previous: str = ""  # "0.83x (4.1 s)": the ratio to the same case run with --previous, and its figure
    cpu_s: float = 0.0  # the median CPU seconds behind ``value``, when the case gives them


CODE = [ROOT]  # the source tree the cases run (main() sets it to --previous for the second pass)


def run(cmd: list[str], cwd: Path | None = None) -> Run:
    """Run ``cmd`` to completion; wall time and the child's peak RSS (it and its reaped workers)."""
    env = dict(os.environ, PYTHONPATH=str(CODE[0]) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode: measure with it
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        t0 = time.perf_counter()
        proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=env, stdout=fo, stderr=fe)
        _, status, usage = os.wait4(proc.pid, 0)  # not proc.wait(): wait4 also gives the child's rusage
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        fo.seek(0)
        fe.seek(0)
        out, err = fo.read(), fe.read()
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(map(str, cmd))}\n{err.decode()[-3000:]}")
    info: dict = {}
    last = out.decode().strip().splitlines()[-1:] if out else []
    if last and last[0].startswith("{"):
        info = json.loads(last[0])
    ran = re.search(r"ran [\d,]+ analyses in ([\d.]+) s", err.decode(errors="replace"))
    if ran:  # the build's own phase line: the analyses alone, without reading and rendering
        info["analyses_s"] = float(ran.group(1))
    return Run(seconds, usage.ru_maxrss / 1024, info, usage.ru_utime + usage.ru_stime)


def analyses(runs: list[Run]) -> str:
    """", analyses 1.2 s": the median of the build's own 'ran N analyses in X s' phase line, when it printed one."""
    got = [r.info["analyses_s"] for r in runs if "analyses_s" in r.info]
    return f", analyses {statistics.median(got):.1f} s" if got else ""


def repeat(cmd: list[str], n: int, before: Callable[[], None] | None = None) -> list[Run]:
    out = []
    for _ in range(n):
        if before is not None:
            before()
        out.append(run(cmd))
    return out


def median(runs: list[Run]) -> float:
    return statistics.median(r.seconds for r in runs)


def peak(runs: list[Run]) -> float:
    return max(r.rss_mb for r in runs)


def cpu_s(runs: list[Run]) -> float:
    return statistics.median(r.cpu for r in runs)


def cpu(runs: list[Run]) -> str:
    """" (CPU 3.1 s)": the median CPU time, the figure a shared, loaded machine distorts least."""
    return f" (CPU {statistics.median(r.cpu for r in runs):.1f} s)"


# ----------------------------------------------------------------------------------------------
# generated cases
# ----------------------------------------------------------------------------------------------


def write_scores(path: Path, systems: int, corpora: int, metrics: int, items: int, seed: int = 0) -> None:
    """A long CSV (system, corpus, item, metric, value), written one system at a time (bounded memory).

    Each system has its own mean (0.50 + 0.002 x index) and items share a difficulty, so some pairs
    differ and some do not, as in a real benchmark."""
    rng = np.random.default_rng(seed)
    c, m, i = np.meshgrid(np.arange(corpora), np.arange(metrics), np.arange(items), indexing="ij")
    c, m, i = c.ravel(), m.ravel(), i.ravel()
    suffix = (",c" + c.astype(str).astype(object) + ",i" + i.astype(str).astype(object) + ",m"
              + m.astype(str).astype(object) + ",")
    difficulty = rng.standard_normal(c.size) * 0.1
    with path.open("w", encoding="utf-8") as fh:
        fh.write("system,corpus,item,metric,value\n")
        for s in range(systems):
            values = np.round(0.5 + 0.002 * s + difficulty + 0.1 * rng.standard_normal(c.size), 4)
            fh.write("\n".join(f"S{s}" + suffix + values.astype(str).astype(object)) + "\n")


def write_spec(folder: Path, metrics: int, tests: str, formats: str, name: str = "spec.yaml",
               scores: str = "scores.csv") -> Path:
    metric_lines = "".join(f"  m{k}: {{higher_is_better: true, decimals: 3}}\n" for k in range(metrics))
    spec = folder / name
    spec.write_text(f"title: bench\nseed: 1\ndata: {{scores: {scores}}}\nmetrics:\n{metric_lines}"
                    f"tests: {tests}\noutputs: {{formats: [{formats}]}}\n", encoding="utf-8")
    return spec


BOOT = "{pairwise: bootstrap, resamples: %d, omnibus: friedman, posthoc: nemenyi}"
T_ANOVA = "{pairwise: paired_t, omnibus: rm_anova}"


def case_1m(root: Path) -> Path:
    folder = root / "1m"
    if not (folder / "scores.csv").exists():
        folder.mkdir(parents=True, exist_ok=True)
        write_scores(folder / "scores.csv", 20, 10, 5, 1000)
    write_spec(folder, 5, BOOT % 10_000, "html, latex, json", "boot.yaml")
    write_spec(folder, 5, T_ANOVA, "html, latex, json", "t.yaml")
    return folder


def build(spec: Path, out: Path, *extra: str) -> list[str]:
    """A build command; not --quiet, so that its phase lines (to a file, a plain line each) give the analyses time."""
    return [*SIGREPORT, "build", str(spec), "-o", str(out), *extra]


def fresh(path: Path) -> Callable[[], None]:
    return lambda: shutil.rmtree(path, ignore_errors=True)


# ----------------------------------------------------------------------------------------------
# cases
# ----------------------------------------------------------------------------------------------


def mb(x: float) -> str:
    return f"{x / 1024:.2f} GB" if x >= 1024 else f"{x:.0f} MB"


def c_boot1m(root: Path, n: int) -> list[Row]:
    folder = case_1m(root)
    out = root / "out-boot1m"
    runs = repeat(build(folder / "boot.yaml", out, "--no-cache"), n, fresh(out))
    t, rss = median(runs), peak(runs)
    return [Row("boot1m: 1M rows, bootstrap B=10,000 + Friedman/Nemenyi, html+latex+json",
                f"{t:.1f} s{cpu(runs)}{analyses(runs)}, {mb(rss)}", "<= 4 s, <= 1 GB", t <= 4 and rss <= 1024,
                value=t, cpu_s=cpu_s(runs))]


def c_t1m(root: Path, n: int) -> list[Row]:
    folder = case_1m(root)
    out = root / "out-t1m"
    runs = repeat(build(folder / "t.yaml", out, "--no-cache"), n, fresh(out))
    t, rss = median(runs), peak(runs)
    return [Row("t1m: 1M rows, paired t + RM-ANOVA, html+latex+json", f"{t:.2f} s{cpu(runs)}{analyses(runs)}, {mb(rss)}",
                "<= 3.5 s", t <= 3.5, value=t, cpu_s=cpu_s(runs))]


PYARROW_READ = "import sys, pandas; pandas.read_csv(sys.argv[1], engine='pyarrow')"


def c_validate1m(root: Path, n: int) -> list[Row]:
    folder = case_1m(root)
    runs = repeat([*SIGREPORT, "validate", "-q", folder / "boot.yaml"], n)
    peer = repeat([sys.executable, "-c", PYARROW_READ, folder / "scores.csv"], n)
    t, tp = median(runs), median(peer)
    return [Row("validate1m: validate of the 1M-row spec", f"{t:.2f} s{cpu(runs)}, {mb(peak(runs))}", "<= 1.5 s", t <= 1.5,
                f"{t / tp:.1f}x pandas pyarrow read_csv process ({tp:.2f} s{cpu(peer)})", value=t)]


def small_spec(root: Path) -> Path:
    folder = root / "small"
    if not folder.exists():
        shutil.copytree(ROOT / "configs", folder, ignore=shutil.ignore_patterns("*.py"))
    return folder / "summarizers.yaml"


def c_validate6(root: Path, n: int) -> list[Row]:
    spec = small_spec(root)
    runs = repeat([*SIGREPORT, "validate", "-q", spec], n)
    base = repeat([sys.executable, "-c", "pass"], n)
    t, tb = median(runs), median(base)
    return [Row("validate6: validate of a 6-row spec", f"{t:.2f} s{cpu(runs)}", "<= 0.3 s", t <= 0.3,
                f"bare python start-up {tb:.2f} s", value=t, cpu_s=cpu_s(runs))]


def c_help(root: Path, n: int) -> list[Row]:
    runs = repeat([*SIGREPORT, "--help"], n)
    t = median(runs)
    return [Row("help: sigreport --help", f"{t:.2f} s{cpu(runs)}", "<= 0.15 s", t <= 0.15, value=t, cpu_s=cpu_s(runs))]


def c_json6(root: Path, n: int) -> list[Row]:
    spec = small_spec(root)
    out = root / "out-json6"
    runs = repeat(build(spec, out, "--formats", "json", "--no-cache"), n, fresh(out))
    t = median(runs)
    return [Row("json6: build --formats json of a 6-row spec", f"{t:.2f} s{cpu(runs)}", "<= 1.2 s", t <= 1.2, value=t)]


def c_engine(root: Path, n: int) -> list[Row]:
    runs = repeat([sys.executable, HERE / "bench_resampling.py", "--child", "corpus"], n)
    engine = statistics.median(r.info["engine_s"] for r in runs)
    t, rss = median(runs), peak(runs)
    return [Row("engine: corpus BLEU k=20 n=100,000 B=1,000, all pairs + CIs",
                f"{engine:.2f} s engine, {t:.2f} s process{cpu(runs)}, {mb(rss)}", "<= 0.8 s, <= 1.5 s, <= 600 MB",
                engine <= 0.8 and t <= 1.5 and rss <= 600, value=t)]


# the report model of a spec, as its build makes it, pickled (not timed); then its PDF alone (timed)
PDF_MODEL = ("import pickle, sys; from pathlib import Path; import sigreport; "
             "from sigreport.render.views import build_report; "
             "model = build_report(sigreport.analyze(sys.argv[1]), Path(sys.argv[1]).name, figure_pdf=False); "
             "Path(sys.argv[2]).write_bytes(pickle.dumps(model))")
PDF_ONLY = ("import pickle, sys; from pathlib import Path; from sigreport.render.pdf import report_pdf; "
            "report_pdf(pickle.loads(Path(sys.argv[1]).read_bytes()), Path(sys.argv[2]))")


def c_pdf(root: Path, n: int) -> list[Row]:
    folder = root / "pdf"
    if not (folder / "scores.csv").exists():
        folder.mkdir(parents=True, exist_ok=True)
        write_scores(folder / "scores.csv", 10, 3, 2, 5000)
    spec = write_spec(folder, 2, BOOT % 10_000, "html")
    model = root / "pdf-model.pickle"
    run([sys.executable, "-c", PDF_MODEL, spec, model])
    runs = repeat([sys.executable, "-c", PDF_ONLY, model, root / "report.pdf"], n)
    t = median(runs)
    return [Row("pdf: the PDF alone of a 10x3x2x5,000 bootstrap report", f"{t:.1f} s{cpu(runs)}, {mb(peak(runs))}",
                "<= 2 s", t <= 2, value=t, cpu_s=cpu_s(runs))]


def c_boot10m(root: Path, n: int) -> list[Row]:
    folder = root / "10m"
    if not (folder / "scores.csv").exists():
        folder.mkdir(parents=True, exist_ok=True)
        write_scores(folder / "scores.csv", 100, 5, 2, 10_000)
    spec = write_spec(folder, 2, BOOT % 1000, "json")
    out = root / "out-10m"
    runs = repeat(build(spec, out, "--no-cache"), n, fresh(out))
    t, rss = median(runs), peak(runs)
    return [Row("boot10m: 10M rows (100x5x2x10,000), bootstrap B=1,000 + Friedman/Nemenyi, json",
                f"{t:.1f} s{cpu(runs)}{analyses(runs)}, {mb(rss)}", "<= 60 s, <= 6 GB", t <= 60 and rss <= 6144,
                value=t)]


def c_cache(root: Path, n: int) -> list[Row]:
    """Cold build into an empty cache, then a rebuild after changing metric m0's values (every run starts
    from the original data and an empty cache)."""
    folder = case_1m(root)
    work = root / "cache"
    colds, warms = [], []
    for _ in range(n):
        fresh(work)()
        work.mkdir()
        shutil.copy(folder / "scores.csv", work / "scores.csv")
        spec = write_spec(work, 5, BOOT % 10_000, "html, latex, json")
        cache, out = work / "cache", work / "out"
        colds.append(run(build(spec, out, "--cache", str(cache))))
        change_metric(work / "scores.csv", "m0")
        fresh(out)()
        warms.append(run(build(spec, out, "--cache", str(cache))))
    cold, warm = median(colds), median(warms)
    return [Row("cache: boot1m rebuilt after one metric's data changed", f"{warm:.1f} s{cpu(warms)}", "<= 0.4 x cold",
                warm <= 0.4 * cold, f"{warm / cold:.2f}x cold build ({cold:.1f} s{cpu(colds)})", value=warm,
                cpu_s=cpu_s(warms))]


def c_rebuild(root: Path, n: int) -> list[Row]:
    """boot1m built with the cache (not timed), then built again with nothing changed (timed, ``n`` times;
    each run finds the report the previous one left)."""
    folder = case_1m(root)
    work = root / "rebuild"
    fresh(work)()
    work.mkdir()
    shutil.copy(folder / "scores.csv", work / "scores.csv")
    spec = write_spec(work, 5, BOOT % 10_000, "html, latex, json")
    cmd = build(spec, work / "out", "--cache", str(work / "cache"))
    run(cmd)
    runs = repeat(cmd, n)
    t = median(runs)
    return [Row("rebuild: boot1m built again, nothing changed", f"{t:.2f} s{cpu(runs)}, {mb(peak(runs))}", "<= 0.5 s",
                t <= 0.5, value=t, cpu_s=cpu_s(runs))]


def change_metric(path: Path, metric: str) -> None:
    """Add 0.0001 to every value of ``metric`` (a changed block for each corpus of that metric)."""
    import pandas as pd

    df = pd.read_csv(path, dtype={"value": float}, keep_default_na=False)
    hit = df["metric"] == metric
    df.loc[hit, "value"] = (df.loc[hit, "value"] + 0.0001).round(4)
    df.to_csv(path, index=False)


def c_jobs(root: Path, n: int) -> list[Row]:
    folder = case_1m(root)
    out = root / "out-jobs"
    one = repeat(build(folder / "boot.yaml", out, "--no-cache", "--jobs", "1"), n, fresh(out))
    two = repeat(build(folder / "boot.yaml", out, "--no-cache", "--jobs", "2"), n, fresh(out))
    t1, t2 = median(one), median(two)
    return [Row("jobs: boot1m with --jobs 2", f"{t2:.1f} s{cpu(two)}, {mb(peak(two))}", "<= 0.65 x --jobs 1",
                t2 <= 0.65 * t1, f"{t2 / t1:.2f}x --jobs 1 ({t1:.1f} s{cpu(one)})", value=t2)]


SYSTEMS = 100  # systems of the "systems" case (--systems)


def c_systems(root: Path, n: int) -> list[Row]:
    """A leaderboard of SYSTEMS systems on one metric (200 items, paired t, Holm over every pair), every format:
    build time and the size of each output, which should grow no faster than the number of pairs needs."""
    folder = root / f"systems{SYSTEMS}"
    if not (folder / "scores.csv").exists():
        folder.mkdir(parents=True, exist_ok=True)
        write_scores(folder / "scores.csv", SYSTEMS, 1, 1, 200)
    spec = write_spec(folder, 1, "{pairwise: paired_t, correction: holm, omnibus: rm_anova}",
                      "html, pdf, latex, json")
    out = root / f"out-systems{SYSTEMS}"
    runs = repeat(build(spec, out, "--no-cache"), n, fresh(out))
    t, rss = median(runs), peak(runs)
    sizes = {name: (out / name).stat().st_size for name in ("index.html", "report.pdf", "results.json")
             if (out / name).exists()}
    sizes["tables/"] = sum(f.stat().st_size for f in (out / "tables").rglob("*") if f.is_file())
    pairs = SYSTEMS * (SYSTEMS - 1) // 2
    size_text = ", ".join(f"{k} {v / 1024:.0f} KB" for k, v in sizes.items())
    return [Row(f"systems: {SYSTEMS} systems x 200 items, paired t + Holm ({pairs:,} pairs), every format",
                f"{t:.1f} s{cpu(runs)}{analyses(runs)}, {mb(rss)}; {size_text}", "(measured)", True)]


BOARD = [1000, 10_000]  # systems and items of the "leaderboard" case (--board-systems, --board-items)


def c_leaderboard(root: Path, n: int) -> list[Row]:
    """Issue 33's leaderboard: BOARD systems x items on one metric and corpus (10M rows at 1,000 x 10,000), paired t
    and, as a second build, the paired bootstrap (B = 1,000), each with Holm over every pair (499,500), ranks and
    tiers, html + json: wall and CPU time, peak memory and each output's size, against <= 60 s and <= 8 GB."""
    k, items = BOARD
    folder = root / f"board{k}x{items}"
    if not (folder / "scores.csv").exists():
        folder.mkdir(parents=True, exist_ok=True)
        write_scores(folder / "scores.csv", k, 1, 1, items)
    rows = []
    for name, tests in (("paired t", "{pairwise: paired_t, correction: holm, omnibus: none}"),
                        ("bootstrap B=1,000", "{pairwise: bootstrap, resamples: 1000, correction: holm, "
                                              "omnibus: none}")):
        key = name.split()[0]
        spec = write_spec(folder, 1, tests, "html, json", f"{key}.yaml")
        out = root / f"out-board-{key}"
        runs = repeat(build(spec, out, "--no-cache"), n, fresh(out))
        t, rss = median(runs), peak(runs)
        sizes = {f.name: f.stat().st_size for f in sorted(out.iterdir()) if f.is_file() and f.suffix != ""}
        size_text = ", ".join(f"{k_} {v / 2 ** 20:.1f} MB" for k_, v in sizes.items() if v >= 2 ** 20)
        rows.append(Row(f"leaderboard: {k:,} systems x {items:,} items ({k * (k - 1) // 2:,} pairs), {name} + Holm, "
                        "html+json", f"{t:.1f} s{cpu(runs)}{analyses(runs)}, {mb(rss)}; {size_text}",
                        "<= 60 s, <= 8 GB", t <= 60 and rss <= 8192, value=t, cpu_s=cpu_s(runs)))
    return rows


DASK_ROWS = (10, 100)  # millions of rows of the "dask" case (--dask-rows); the first is compared with the serial build
DASK_SERIAL_MAX = 10  # millions of rows up to which the first size is also built serially (4.6 GB at 10M)
DASK_MEMORY = "4GB"  # memory limit of each of the case's two Dask workers
CLUSTER = """
import logging, sys
from dask.distributed import LocalCluster
cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit=sys.argv[1],
                       dashboard_address=None, host="127.0.0.1", silence_logs=logging.ERROR)
print(cluster.scheduler_address, flush=True)
sys.stdin.read()  # until the benchmark closes our standard input
cluster.close()
"""
OWN_PEAK = """
import resource
def own_peak_mb():
    # This process's peak memory since it started (VmHWM, the high-water mark of its own address space), not
    # ru_maxrss: on Linux a child's ru_maxrss starts at its parent's peak (kept across fork or vfork and exec),
    # so a build spawned by this benchmark after write_shards of 100M rows (394 MB in this process) reported
    # the benchmark's peak as its own. Elsewhere (no /proc): ru_maxrss.
    try:
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""
CLIENT = OWN_PEAK + """
import json, sys
from sigreport.cli import main
code = main(sys.argv[1:])
print(json.dumps({"client_rss_mb": own_peak_mb(),
                  "client_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
sys.exit(code)
"""


def write_shards(folder: Path, rows: int, systems: int = 20, corpora: int = 10, metrics: int = 5, seed: int = 0) -> None:
    """The 1M case's shape with ``rows // (systems x corpora x metrics)`` items, as one Parquet shard per system
    (written with pyarrow's dictionary columns, one system at a time: bounded memory). Each item's row of
    systems is spread over every shard, so the workers' blocks are made from pieces of all of them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    items = rows // (systems * corpora * metrics)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    c, m, i = (a.ravel() for a in np.meshgrid(np.arange(corpora, dtype=np.int32), np.arange(metrics, dtype=np.int32),
                                              np.arange(items, dtype=np.int32), indexing="ij"))
    difficulty = rng.standard_normal(c.size) * 0.1

    def names(prefix: str, n: int) -> pa.Array:
        return pa.array([f"{prefix}{k}" for k in range(n)], pa.string())

    corpus_names, metric_names, item_names = names("c", corpora), names("m", metrics), names("i", items)
    for s in range(systems):
        values = np.round(0.5 + 0.002 * s + difficulty + 0.1 * rng.standard_normal(c.size), 4)
        table = pa.table({"system": pa.DictionaryArray.from_arrays(np.zeros(c.size, dtype=np.int32), [f"S{s}"]),
                          "corpus": pa.DictionaryArray.from_arrays(c, corpus_names),
                          "item": pa.DictionaryArray.from_arrays(i, item_names),
                          "metric": pa.DictionaryArray.from_arrays(m, metric_names), "value": values})
        pq.write_table(table, folder / f"part{s:03d}.parquet")
    (folder / "done").write_text("ok")


@contextlib.contextmanager
def dask_cluster(memory: str):
    """A LocalCluster of 2 single-threaded worker processes with ``memory`` each, in a process of its own (so
    that a build's peak memory is the client's alone); its scheduler address."""
    env = dict(os.environ, PYTHONPATH=str(CODE[0]) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", CLUSTER, memory], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env=env, text=True)
    try:
        yield proc.stdout.readline().strip()
    finally:
        proc.stdin.close()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()


def c_dask(root: Path, n: int) -> list[Row]:
    """Parquet shards read by 2 Dask workers (``--executor dask --scheduler``): the client's peak memory at
    each size of ``DASK_ROWS`` (it should not grow with the rows), and the first size's results.json
    against the serial build of the same shards (bytes). Paired t + RM-ANOVA, json; one run at sizes
    above the first (they take minutes)."""
    rows = []
    seen: dict[int, tuple[float, float]] = {}
    with dask_cluster(DASK_MEMORY) as address:
        for k, millions in enumerate(DASK_ROWS):
            folder = root / f"shards{millions}m"
            if not (folder / "shards" / "done").exists():
                write_shards(folder / "shards", millions * 1_000_000)
            spec = write_spec(folder, 5, T_ANOVA, "json", "t.yaml", scores="shards/*.parquet")
            out = folder / "out-dask"
            cmd = [sys.executable, "-c", CLIENT, "build", str(spec), "-o", str(out), "--no-cache", "--executor",
                   "dask", "--scheduler", address]
            runs = repeat(cmd, n if k == 0 else 1, fresh(out))
            client = max(r.info.get("client_rss_mb", 0.0) for r in runs)
            inherited = max(r.info.get("client_maxrss_mb", 0.0) for r in runs)
            seen[millions] = (median(runs), client)
            peer = f"ru_maxrss {mb(inherited)} (from this benchmark's own peak)" if inherited > 1.05 * client else ""
            if k == 0 and millions <= DASK_SERIAL_MAX:
                serial = folder / "out-serial"
                shutil.rmtree(serial, ignore_errors=True)
                one = run(build(spec, serial, "--no-cache", "--jobs", "1"))
                same = (serial / "results.json").read_bytes() == (out / "results.json").read_bytes()
                peer = (f"results.json {'byte-identical to' if same else 'DIFFERS from'} the serial build "
                        f"({one.seconds:.0f} s, {mb(one.rss_mb)})" + (f"; {peer}" if peer else ""))
            rows.append(Row(f"dask: {millions}M rows in {len(list((folder / 'shards').glob('*.parquet')))} Parquet "
                            f"shards, 2 workers x {DASK_MEMORY}, paired t + RM-ANOVA, json",
                            f"{seen[millions][0]:.1f} s{cpu(runs)}{analyses(runs)}, client peak {mb(client)}",
                            "client peak independent of rows" + ("; serial bytes" if "serial build" in peer else ""),
                            "serial build" not in peer or "byte-identical" in peer, peer, value=seen[millions][0]))
    first, last = seen[DASK_ROWS[0]][1], seen[DASK_ROWS[-1]][1]
    grow = last / first if first else float("nan")
    rows.append(Row(f"dask: client peak memory, {DASK_ROWS[-1]}M vs {DASK_ROWS[0]}M rows", f"{grow:.2f}x "
                    f"({mb(last)} vs {mb(first)})", "<= 1.25x (independent of the rows)", grow <= 1.25))
    return rows


READER_PEERS = {  # the field library's own script on the same files, as a whole process
    "trec": ("import sys, ir_measures; m = [ir_measures.parse_measure(x) for x in ('nDCG@10', 'RR', 'AP')]; "
             "q = list(ir_measures.read_trec_qrels(sys.argv[1] + '/qrels.txt')); "
             "r = list(ir_measures.read_trec_run(sys.argv[1] + '/run.run')); "
             "print(len(list(ir_measures.iter_calc(m, q, r))), file=sys.stderr)"),
    "mt": ("import sys, sacrebleu; from pathlib import Path; d = Path(sys.argv[1]); "
           "h = (d / 'hyp.txt').read_text().splitlines(); r = [(d / 'ref.txt').read_text().splitlines()]; "
           "print(sacrebleu.metrics.BLEU().corpus_score(h, r), sacrebleu.metrics.CHRF().corpus_score(h, r), "
           "file=sys.stderr)"),
    # lm-evaluation-harness writes the samples files but ships no reader of them: its users read them as JSON
    # lines, so the peer is that script (every line parsed, each task's metric averaged per model)
    "lm_eval": ("import sys, json; from pathlib import Path; out = {}\n"
                "for f in sorted(Path(sys.argv[1], 'lm').glob('*/samples_*.jsonl')):\n"
                "    rows = [json.loads(x) for x in f.read_text().splitlines() if x]\n"
                "    out[f.parent.name, f.name] = sum(r['acc'] for r in rows) / len(rows)\n"
                "print(len(out), file=sys.stderr)"),
}
READER_SPECS = {
    "trec": "data: {scores: {format: trec, runs: run.run, qrels: qrels.txt, measures: [nDCG@10, RR, AP]}}\n",
    "mt": ("data: {scores: {format: text, hypotheses: {sys: hyp.txt}, references: [ref.txt], metrics: [bleu, chrf]}}\n"
           "tests: {pairwise: bootstrap}\n"),
    "lm_eval": "data: {scores: {format: lm_eval, path: lm, metrics: [acc]}}\n",
}


def write_lm_eval(folder: Path, models: int = 3, tasks: int = 2, docs: int = 20_000) -> None:
    """lm-eval's ``--log_samples`` layout: a folder per model, a samples file per task (the fields it writes)."""
    rng = np.random.default_rng(2)
    for m in range(models):
        (folder / f"org__model-{m}").mkdir(parents=True, exist_ok=True)
        for t in range(tasks):
            acc = rng.random(docs) < 0.5 + 0.1 * m
            lines = (json.dumps({"doc_id": d, "doc": {"question": f"Question {d}?"}, "target": "A", "arguments":
                                 {"gen_args_0": {"arg_0": f"Question {d}?", "arg_1": " A"}}, "resps": [[["-1.25", "False"]]],
                                 "filtered_resps": [["-1.25", "False"]], "filter": "none", "metrics": ["acc"],
                                 "doc_hash": f"{d:064x}", "prompt_hash": f"{d + 1:064x}", "target_hash": f"{d + 2:064x}",
                                 "acc": float(a)}) for d, a in enumerate(acc))
            (folder / f"org__model-{m}" / f"samples_task{t}_2026-01-05T10-20-30.123456.jsonl").write_text(
                "\n".join(lines) + "\n", encoding="utf-8")


READERS = list(READER_SPECS)  # the formats the readers case measures (--readers)


def c_readers(root: Path, n: int) -> list[Row]:
    """Each native reader as a whole ``sigreport validate`` process against its field library's script on the
    same files (READER_PEERS): TREC 100,000 run lines (100 queries x 1,000) with 3 measures, MT 100,000
    hypothesis/reference pairs with BLEU and chrF, lm-eval samples (3 models x 2 tasks x 20,000); <= 1.5x each."""
    sys.path.insert(0, str(HERE))
    from bench_sources import write_mt, write_trec

    folder = root / "readers"
    if not (folder / "lm").exists():
        folder.mkdir(parents=True, exist_ok=True)
        write_trec(folder, 100, 1000)
        write_mt(folder, 100_000)
        write_lm_eval(folder / "lm")
    rows = []
    for name, data in READER_SPECS.items():
        if name not in READERS:
            continue
        spec = folder / f"{name}.yaml"
        spec.write_text(f"title: bench\n{data}", encoding="utf-8")
        ours = repeat([*SIGREPORT, "validate", "-q", spec], n)
        theirs = repeat([sys.executable, "-c", READER_PEERS[name], folder], n)
        ratio = median(ours) / median(theirs)
        rows.append(Row(f"readers: {name}, sigreport validate vs its field library's script", f"{median(ours):.2f} s"
                        f"{cpu(ours)}", "<= 1.5x the peer", ratio <= 1.5, f"{ratio:.2f}x ({median(theirs):.2f} s"
                        f"{cpu(theirs)})", value=median(ours), cpu_s=cpu_s(ours)))
    return rows


CASES: dict[str, Callable[[Path, int], list[Row]]] = {
    "systems": c_systems,
    "validate6": c_validate6, "json6": c_json6, "validate1m": c_validate1m, "t1m": c_t1m, "boot1m": c_boot1m,
    "engine": c_engine, "pdf": c_pdf, "cache": c_cache, "jobs": c_jobs, "boot10m": c_boot10m,
    "help": c_help, "rebuild": c_rebuild, "leaderboard": c_leaderboard, "dask": c_dask, "readers": c_readers,
}
QUICK = ("validate6", "json6", "validate1m", "t1m", "engine")
OPT_IN = ("help", "rebuild", "systems", "leaderboard", "dask", "readers")  # run only when named in --cases


def table(rows: list[Row]) -> str:
    head = ("case", "measured: wall time (median), CPU, peak memory", "target", "", "peer ratio", "previous release")
    cells = [head] + [(r.case, r.measured, r.target, "pass" if r.ok else "FAIL", r.peer, r.previous)
                      for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
    lines = ["| " + " | ".join(c[i].ljust(widths[i]) for i in range(len(head))) + " |" for c in cells]
    lines.insert(1, "| " + " | ".join("-" * w for w in widths) + " |")
    return "\n".join(lines)


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        mem = next(int(x.split()[1]) for x in Path("/proc/meminfo").read_text().splitlines()
                   if x.startswith("MemTotal"))
        ram = f"{mem / 1024 ** 2:.0f} GB RAM"
    except (OSError, StopIteration, ValueError):
        ram = "RAM unknown"
    return f"{os.cpu_count()} CPUs ({model}), {ram}, Python {sys.version.split()[0]}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", help=f"comma-separated subset of {','.join(CASES)}")
    ap.add_argument("--quick", action="store_true", help=f"only {','.join(QUICK)}")
    ap.add_argument("--repeat", type=int, default=3, help="runs per case (median shown; default 3)")
    ap.add_argument("--keep", type=Path, help="generate the cases here and keep them (re-used on the next run)")
    ap.add_argument("--systems", type=int, default=SYSTEMS, help="systems of the 'systems' case (default 100)")
    ap.add_argument("--board-systems", type=int, default=BOARD[0], help="systems of the 'leaderboard' case "
                    "(default 1,000)")
    ap.add_argument("--board-items", type=int, default=BOARD[1],
                    help="items of the 'leaderboard' case (default 10,000)")
    ap.add_argument("--previous", type=Path, help="source tree of the previous release: each case also runs with it, "
                    "and the table gives the ratio")
    ap.add_argument("--readers", default=",".join(READERS),
                    help=f"formats of the 'readers' case, comma-separated (default {','.join(READERS)})")
    ap.add_argument("--dask-rows", default=",".join(map(str, DASK_ROWS)),
                    help="millions of rows of the 'dask' case, comma-separated (default 10,100)")
    args = ap.parse_args()
    globals()["SYSTEMS"] = args.systems
    BOARD[:] = [args.board_systems, args.board_items]
    globals()["DASK_ROWS"] = tuple(int(x) for x in args.dask_rows.split(","))
    READERS[:] = args.readers.split(",")
    if set(READERS) - set(READER_SPECS):
        ap.error(f"unknown reader(s) {', '.join(sorted(set(READERS) - set(READER_SPECS)))}; known: "
                 f"{', '.join(READER_SPECS)}")
    names = args.cases.split(",") if args.cases else [c for c in (QUICK if args.quick else CASES) if c not in OPT_IN]
    unknown = [x for x in names if x not in CASES]
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(CASES)}")
    root = args.keep or Path(tempfile.mkdtemp(prefix="bench-build-"))
    root.mkdir(parents=True, exist_ok=True)
    print(f"sigreport whole-process benchmark; {machine()}; median of {args.repeat} runs")
    print(f"load average before: {', '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    rows: list[Row] = []
    try:
        for name in names:
            t0 = time.perf_counter()
            load = os.getloadavg()[0]
            CODE[0] = ROOT
            new = CASES[name](root, args.repeat)
            if args.previous:
                CODE[0] = args.previous.resolve()
                try:
                    old = CASES[name](root, args.repeat)
                finally:
                    CODE[0] = ROOT
                for r, o in zip(new, old):
                    o_cpu = f", CPU {o.cpu_s:.1f} s" if o.cpu_s else ""
                    r.previous = f"{r.value / o.value:.2f}x ({o.value:.2f} s{o_cpu})" if o.value else ""
            rows += new
            for r in new:  # as each case ends: a long run cut short still leaves its figures
                prev = f"; {r.previous} the previous release" if r.previous else ""
                print(f"  {name} ({time.perf_counter() - t0:.0f} s, load {load:.1f} before, "
                      f"{os.getloadavg()[0]:.1f} after): {r.measured}; target {r.target}: "
                      f"{'pass' if r.ok else 'FAIL'}{'; ' + r.peer if r.peer else ''}{prev}", file=sys.stderr,
                      flush=True)
    finally:
        if rows:
            print(table(rows))
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    print(f"load average after: {', '.join(f'{x:.1f}' for x in os.getloadavg())} (the machine is shared with "
          "other jobs: figures measured under load are upper bounds)")


if __name__ == "__main__":
    main()
