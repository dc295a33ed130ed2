"""Benchmark of the resampling engine (sigreport.stats.resampling) against its targets and peers.

Targets (issue 3, "Resampling engine"), on a 2-core machine:

* corpus case: k = 20 systems, n = 100,000 items, B = 1,000, the full 190-pair bootstrap matrix plus
  per-system CIs for a 10-statistic corpus metric (corpus BLEU from n-gram counts):
  <= 1.5 s for the whole process and <= 600 MB peak memory;
* mean case: the same with a mean metric (one real-valued score per item): <= 0.25 s engine time;
* >= 1,000x faster than sacrebleu's paired bootstrap called per baseline, with p-values agreeing with
  it, with scipy.stats.permutation_test and with a plain per-pair loop within Monte Carlo error.

Each timed case runs in a fresh child process, so "whole process" includes interpreter start-up,
imports, data generation and exit, and the peak memory is that process's ru_maxrss. Peers are run at
reduced sizes where the full size would take minutes or gigabytes; the scaling is printed next to
every extrapolated number.

Shared resamples (issue 11): ``--shared`` compares m metrics of one corpus (k = 20, n = 1,000,
B = 10,000) resampled with a draw each against one shared draw (``draw_resample``), and ``--build-case``
times the analyses of the 1M-row case (20 systems x 10 corpora x 5 metrics x 1,000 items, bootstrap
B = 10,000, Friedman + Nemenyi), serial and with two worker processes. ``--root DIR`` runs the build
case on another checkout (e.g. ``git archive <rev> sigreport | tar -x -C DIR``) for a before/after.

Usage::

    python benchmarks/bench_resampling.py            # everything
    python benchmarks/bench_resampling.py --skip-peers
    python benchmarks/bench_resampling.py --repeat 3
    python benchmarks/bench_resampling.py --shared --build-case --skip-cases --skip-peers

sacrebleu is not a dependency of sigreport: ``pip install sacrebleu`` to include it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import resource
import subprocess
import sys
import time

K, N, B, N_STATS = 20, 100_000, 1000, 10
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


# ----------------------------------------------------------------------------------------------
# data and metric
# ----------------------------------------------------------------------------------------------


def bleu_stats(n: int, k: int, seed: int, spread: float = 0.07):  # type: ignore[no-untyped-def]
    """Sentence-level BLEU sufficient statistics in sacrebleu's order:
    hyp_len, ref_len, correct_1..4, total_1..4 (int32, shape (n, k, 10)); unigram precision of
    the systems spaced over 0.55 .. 0.55 + spread."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = np.empty((n, k, 10), dtype=np.int32)
    ref_len = rng.integers(8, 40, size=(n, 1), dtype=np.int32)
    hyp_len = np.clip(ref_len + rng.integers(-4, 5, size=(n, k), dtype=np.int32), 4, None)
    out[:, :, 0] = hyp_len
    out[:, :, 1] = ref_len
    quality = np.linspace(0.55, 0.55 + spread, k, dtype=np.float32)[None, :]  # systems differ a little
    item = rng.random((n, 1), dtype=np.float32)  # shared item difficulty: correlated systems
    for m in range(1, 5):
        total = np.maximum(hyp_len - (m - 1), 0)
        p = np.clip(quality**m * (0.6 + 0.8 * item) + 0.1 * (rng.random((n, k), dtype=np.float32) - 0.5), 0, 1)
        out[:, :, 1 + m] = (total * p).astype(np.int32)
        out[:, :, 5 + m] = total
    return out


def corpus_bleu(totals, n_items):  # type: ignore[no-untyped-def]
    """Corpus BLEU (x100, no smoothing) from summed statistics, as sacrebleu's compute_bleu."""
    import numpy as np

    sys_len, ref_len = totals[..., 0], totals[..., 1]
    correct, total = totals[..., 2:6], totals[..., 6:10]
    with np.errstate(divide="ignore"):
        log_prec = np.log(correct / total).mean(axis=-1)
    bp = np.where(sys_len < ref_len, np.exp(1.0 - ref_len / np.maximum(sys_len, 1)), 1.0)
    return 100.0 * bp * np.exp(log_prec)


def mean_scores(n: int, k: int, seed: int, spread: float = 0.004):  # type: ignore[no-untyped-def]
    """Real-valued per-item scores (n, k, 1): shared item effect + noise, system means 0.5 .. 0.5 + spread."""
    import numpy as np

    rng = np.random.default_rng(seed)
    item = rng.standard_normal((n, 1))
    return (0.5 + 0.1 * item + 0.1 * rng.standard_normal((n, k)) + np.linspace(0, spread, k)[None, :])[:, :, None]


# ----------------------------------------------------------------------------------------------
# child process: one timed case
# ----------------------------------------------------------------------------------------------


def child(case: str) -> None:
    t_start = time.perf_counter()
    sys.path.insert(0, ROOT)
    import numpy as np

    from sigreport.stats.resampling import mean_metric, paired_resampling, user_metric

    t_import = time.perf_counter()
    if case == "corpus":
        x = bleu_stats(N, K, seed=1)
        metric = user_metric(corpus_bleu, N_STATS, name="corpus_bleu")
    else:
        x = mean_scores(N, K, seed=1)
        metric = mean_metric()
    t_data = time.perf_counter()
    pairs = list(itertools.combinations(range(K), 2))
    res = paired_resampling(x, metric, pairs, "bootstrap", B, seed=12345)
    t_engine = time.perf_counter()
    assert len(res.pairs) == 190 and len(res.system_ci) == K
    pvals = np.array([p.pvalue for p in res.pairs], dtype=float)
    print(json.dumps({
        "case": case,
        "import_s": t_import - t_start,
        "data_s": t_data - t_import,
        "engine_s": t_engine - t_data,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "median_p": float(np.median(pvals)),
        "bl_value": res.system_ci[0][0],
    }))


def run_case(case: str, repeat: int) -> list[dict]:
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", case],
                              capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t0
        info = json.loads(proc.stdout.strip().splitlines()[-1])
        info["process_s"] = wall
        runs.append(info)
    return runs


# ----------------------------------------------------------------------------------------------
# peers
# ----------------------------------------------------------------------------------------------


def loop_bootstrap_p(x, metric_value, a: int, b: int, n_boot: int, seed: int) -> float:  # type: ignore[no-untyped-def]
    """A plain per-pair Python loop over replicates: null-shifted two-sided p (the same definition)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n = x.shape[0]
    xa, xb = x[:, a].astype(np.float64), x[:, b].astype(np.float64)
    obs = float(metric_value(xa.sum(0), n) - metric_value(xb.sum(0), n))
    hits = 0
    for _ in range(n_boot):
        idx = rng.integers(0, n, n)
        d = float(metric_value(xa[idx].sum(0), n) - metric_value(xb[idx].sum(0), n))
        hits += abs(d - obs) >= abs(obs)
    return (hits + 1) / (n_boot + 1)


def sacrebleu_paired_bs(stats_sys, stats_bl, n_boot: int, seed: int):  # type: ignore[no-untyped-def]
    """sacrebleu.significance._paired_bs_test on precomputed BLEU statistics (one system vs baseline).

    A BLEU subclass returns the given statistics instead of tokenising text; everything else is
    sacrebleu's own code (its statistic: |delta*| centred by its mean, compared with |delta| with '>').
    """
    import numpy as np
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import _paired_bs_test

    class StatsBLEU(BLEU):  # type: ignore[misc]
        def _extract_corpus_statistics(self, hypotheses, references):  # type: ignore[no-untyped-def]
            return hypotheses

        def _aggregate_and_compute(self, stats):  # type: ignore[no-untyped-def]
            return self._compute_score_from_stats(np.asarray(stats).sum(0))

    metric = StatsBLEU()
    bl_result = metric._aggregate_and_compute(stats_bl)
    _, results = _paired_bs_test({"BLEU": (stats_bl, bl_result)}, "sys", stats_sys, None, {"BLEU": metric},
                                 n_samples=n_boot, seed=seed)
    return results["BLEU"]


def peers(null_reps: int) -> None:
    import numpy as np
    from scipy import stats as sps

    sys.path.insert(0, ROOT)
    from sigreport.stats.resampling import mean_metric, paired_resampling, user_metric

    print("\n== peers (reduced sizes where noted; extrapolations are linear in B, n and pairs) ==")
    bleu = user_metric(corpus_bleu, N_STATS, name="corpus_bleu")

    # ---- sacrebleu -----------------------------------------------------------------------
    try:
        import sacrebleu

        have_sacrebleu = True
    except ImportError:
        have_sacrebleu = False
        print("sacrebleu: not installed (pip install sacrebleu) -- skipped")
    x_full = bleu_stats(N, K, seed=1)
    t0 = time.perf_counter()
    paired_resampling(x_full, bleu, list(itertools.combinations(range(K), 2)), "bootstrap", B, seed=1)
    ours_full = time.perf_counter() - t0
    print(f"sigreport, corpus BLEU, k={K}, n={N}, B={B}, all 190 pairs + system CIs: {ours_full:.3f} s")
    if have_sacrebleu:
        import sacrebleu

        b_small = 100
        s_bl = x_full[:, 0].astype(np.float32)
        s_sys = x_full[:, 1].astype(np.float32)
        t0 = time.perf_counter()
        sacrebleu_paired_bs(s_sys, s_bl, b_small, seed=1)
        one = time.perf_counter() - t0
        per_baseline = one * (B / b_small) * (K - 1)
        print(f"sacrebleu {sacrebleu.__version__} _paired_bs_test, n={N}, B={b_small}, one system vs the baseline: "
              f"{one:.2f} s -> x{B // b_small} (B={B}) x{K - 1} systems = {per_baseline:.0f} s per baseline")
        full = per_baseline / (K - 1) * 190
        print(f"  the full 190-pair matrix with sacrebleu called per baseline (each unordered pair once): {full:,.0f} s;"
              f" ratio to sigreport (190 pairs + CIs): {full / ours_full:,.0f}x "
              f"(one baseline only, 19 pairs: {per_baseline / ours_full:,.0f}x)")
        # p-value agreement on a smaller corpus, one baseline vs every system
        n_small, k_small = 4000, 6
        xs = bleu_stats(n_small, k_small, seed=3, spread=0.0025)
        res = paired_resampling(xs, bleu, [(j, 0) for j in range(1, k_small)], "bootstrap", B, seed=2)
        print(f"  p-values, n={n_small}, B={B}, each system vs system 0 (sacrebleu's statistic differs: "
              "|delta*| centred by its mean, strict '>'):")
        print("    system  delta_BLEU   sigreport_p   mc_se    sacrebleu_p")
        for j, pr in enumerate(res.pairs, start=1):
            sb = sacrebleu_paired_bs(xs[:, j].astype(np.float32), xs[:, 0].astype(np.float32), B, seed=j)
            print(f"    {j:6d}  {pr.estimate:+10.4f}   {pr.pvalue:11.4f}  {pr.extra['mc_se']:.4f}   {sb.p_value:11.4f}")

        # type I error under a true null (two systems of equal quality): why the p-values differ
        reps, n_null = null_reps, 300
        rej_ours = rej_sb = 0
        for r in range(reps):
            xn = bleu_stats(n_null, 2, seed=1000 + r, spread=0.0)
            p_ours = paired_resampling(xn, bleu, [(1, 0)], "bootstrap", B, seed=r).pairs[0].pvalue
            p_sb = sacrebleu_paired_bs(xn[:, 1].astype(np.float32), xn[:, 0].astype(np.float32), B, seed=r).p_value
            rej_ours += p_ours is not None and p_ours < 0.05
            rej_sb += p_sb < 0.05
        se = math.sqrt(0.05 * 0.95 / reps)
        print(f"  true null (equal systems), {reps} data sets of n={n_null}, B={B}, alpha 0.05 (MC sd {se:.3f}): "
              f"rejection rate sigreport {rej_ours / reps:.3f}, sacrebleu {rej_sb / reps:.3f}")

    # ---- plain loop ------------------------------------------------------------------------
    b_loop = 40
    t0 = time.perf_counter()
    loop_bootstrap_p(x_full, bleu.value, 0, 1, b_loop, seed=1)
    one = time.perf_counter() - t0
    loop_total = one * (B / b_loop) * 190
    print(f"plain per-pair loop, corpus BLEU, n={N}, B={b_loop}, one pair: {one:.2f} s -> "
          f"x{B // b_loop} x190 pairs = {loop_total:.0f} s; ratio {loop_total / ours_full:,.0f}x")
    n_small = 3000
    xs = bleu_stats(n_small, 4, seed=5, spread=0.002)
    res = paired_resampling(xs, bleu, [(1, 0), (2, 0), (3, 0)], "bootstrap", 4000, seed=4)
    print(f"  p-values, n={n_small}, B=4000 (two independent MC estimates; 4 combined SEs allowed):")
    for j, pr in enumerate(res.pairs, start=1):
        pl = loop_bootstrap_p(xs, bleu.value, j, 0, 4000, seed=10 + j)
        se = math.sqrt(pl * (1 - pl) / 4000 + pr.extra["mc_se"] ** 2)
        verdict = "agree" if abs(pl - pr.pvalue) <= 4 * se else "DISAGREE"
        print(f"    pair {j}-0: sigreport {pr.pvalue:.4f}  loop {pl:.4f}  |diff| {abs(pl - pr.pvalue):.4f}"
              f"  4*se {4 * se:.4f}  {verdict}")

    # ---- scipy.stats.permutation_test on a mean metric -----------------------------------------
    xm = mean_scores(N, K, seed=1)
    t0 = time.perf_counter()
    ours = paired_resampling(xm, mean_metric(), list(itertools.combinations(range(K), 2)), "permutation", B,
                             seed=3)
    ours_perm = time.perf_counter() - t0

    def mean_diff(u, v, axis=-1):  # type: ignore[no-untyped-def]
        return np.mean(u - v, axis=axis)

    pairs_check = [(0, 19), (0, 1), (3, 4), (10, 12)]
    t0 = time.perf_counter()
    ref = [sps.permutation_test((xm[:, a, 0], xm[:, b, 0]), mean_diff, permutation_type="samples",
                                vectorized=True, n_resamples=B, rng=np.random.default_rng(7 + a))
           for a, b in pairs_check]
    sc = (time.perf_counter() - t0) / len(pairs_check)
    print(f"scipy.stats.permutation_test, mean metric, n={N}, B={B}: {sc:.2f} s per pair -> x190 = "
          f"{sc * 190:.0f} s; sigreport permutation, 190 pairs: {ours_perm:.3f} s; ratio {sc * 190 / ours_perm:,.0f}x")
    index = {pair: i for i, pair in enumerate(itertools.combinations(range(K), 2))}
    for (a, b), r in zip(pairs_check, ref):
        pr = ours.pairs[index[(a, b)]]
        se = math.sqrt(r.pvalue * (1 - r.pvalue) / B + pr.extra["mc_se"] ** 2)
        verdict = "agree" if abs(r.pvalue - pr.pvalue) <= 4 * max(se, 1 / B) else "DISAGREE"
        print(f"    pair {a}-{b}: sigreport {pr.pvalue:.4f}  scipy {r.pvalue:.4f}  4*se {4 * se:.4f}  {verdict}")


# ----------------------------------------------------------------------------------------------
# shared resamples
# ----------------------------------------------------------------------------------------------


def shared_comparison(repeat: int, n_metrics: int = 5, k: int = 20, n: int = 1000, b: int = 10_000) -> None:
    """m metrics of one corpus: one draw per metric (as before issue 11) against one draw shared by all."""
    sys.path.insert(0, ROOT)
    from sigreport.stats import resampling as rs

    xs = [mean_scores(n, k, seed=10 + m) for m in range(n_metrics)]
    pairs = list(itertools.combinations(range(k), 2))
    print(f"\n== shared resamples: {n_metrics} mean metrics, k={k}, n={n}, B={b}, {len(pairs)} pairs + system CIs ==")
    for method in ("bootstrap", "bootstrap_t", "permutation"):
        kind = rs.resample_kind(method, n, b)
        own, shared, draw = [], [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            ref = [rs.paired_resampling(x, rs.mean_metric(), pairs, method, b, seed=7) for x in xs]
            own.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            drawn = rs.draw_resample(kind, b, n, seed=7)
            draw.append(time.perf_counter() - t0)
            got = [rs.paired_resampling(x, rs.mean_metric(), pairs, method, b, seed=7, resample=drawn) for x in xs]
            shared.append(time.perf_counter() - t0)
            assert [r.pairs for r in got] == [r.pairs for r in ref]  # the same results
        print(f"  {method:12s} a draw per metric {min(own):.3f} s; one shared draw {min(shared):.3f} s "
              f"(of which the draw {min(draw):.3f} s, {drawn.weights.nbytes / 2**20:.0f} MB uint8); "
              f"ratio {min(shared) / min(own):.2f}")


BUILD_CASE = dict(systems=20, corpora=10, metrics=5, items=1000, resamples=10_000)


def write_build_case(folder: str) -> str:
    """The 1M-row case of issue 11 as a score table and spec in ``folder``; returns the spec path."""
    import numpy as np
    import pandas as pd

    c = BUILD_CASE
    rng = np.random.default_rng(11)
    frames = []
    for ci in range(c["corpora"]):
        for mi in range(c["metrics"]):
            item = rng.standard_normal((c["items"], 1))
            v = 0.5 + 0.1 * item + 0.1 * rng.standard_normal((c["items"], c["systems"])) + \
                np.linspace(0, 0.02, c["systems"])[None, :]
            frames.append(pd.DataFrame({
                "system": np.tile([f"s{j:02d}" for j in range(c["systems"])], c["items"]),
                "corpus": f"c{ci}", "item": np.repeat([f"i{i}" for i in range(c["items"])], c["systems"]),
                "metric": f"m{mi}", "value": np.round(v.reshape(-1), 6)}))
    pd.concat(frames).to_csv(os.path.join(folder, "scores.csv"), index=False)
    metrics = "\n".join(f"  m{mi}: {{higher_is_better: true}}" for mi in range(c["metrics"]))
    spec = os.path.join(folder, "spec.yaml")
    with open(spec, "w") as fh:
        fh.write(f"title: 1M rows\nseed: 3\ndata: {{scores: scores.csv}}\nmetrics:\n{metrics}\n"
                 f"tests: {{pairwise: bootstrap, resamples: {c['resamples']}, omnibus: friedman, posthoc: nemenyi}}\n")
    return spec


def build_case(repeat: int, root: str) -> None:
    """Analyses (``run_plan``) of the 1M-row case, serial and with two worker processes."""
    import tempfile

    sys.path.insert(0, root)
    from sigreport.api.pipeline import prepare
    from sigreport.execute import run_plan
    from sigreport.execute.pool import ProcessExecutor

    with tempfile.TemporaryDirectory() as folder:
        spec = write_build_case(folder)
        p = prepare(spec)
        c = BUILD_CASE
        print(f"\n== 1M-row case ({root}): {c['systems']} systems x {c['corpora']} corpora x {c['metrics']} metrics x "
              f"{c['items']} items, bootstrap B = {c['resamples']}, Friedman + Nemenyi: {len(p.plan.nodes)} analyses ==")
        for label, make in (("serial", lambda: None), ("--jobs 2", lambda: ProcessExecutor(2))):
            times = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                run_plan(p.plan, p.dataset, make())
                times.append(time.perf_counter() - t0)
            print(f"  analyses {label}: best {min(times):.2f} s, median {sorted(times)[len(times) // 2]:.2f} s "
                  f"({', '.join(f'{t:.2f}' for t in times)})")


# ----------------------------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="runs per timed case; the best and the median are shown")
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument("--null-reps", type=int, default=200,
                    help="data sets for the sacrebleu vs sigreport type I error check")
    ap.add_argument("--shared", action="store_true", help="compare a draw per metric with one shared draw")
    ap.add_argument("--build-case", action="store_true", help="time the analyses of the 1M-row case")
    ap.add_argument("--skip-cases", action="store_true", help="skip the corpus and mean engine cases")
    ap.add_argument("--root", default=ROOT, help="sigreport checkout the build case imports (default: this one)")
    ap.add_argument("--child", choices=["corpus", "mean"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    if args.shared:
        shared_comparison(args.repeat)
    if args.build_case:
        build_case(args.repeat, os.path.abspath(args.root))
    targets = {"corpus": ("process_s", 1.5), "mean": ("engine_s", 0.25)}
    for case in () if args.skip_cases else ("corpus", "mean"):
        runs = run_case(case, args.repeat)
        key, limit = targets[case]
        best = min(r[key] for r in runs)
        med = sorted(r[key] for r in runs)[len(runs) // 2]
        rss = max(r["maxrss_mb"] for r in runs)
        print(f"\n== {case} case: k={K}, n={N}, B={B}, 190 pairs + system CIs ==")
        for r in runs:
            print(f"  process {r['process_s']:.3f} s = imports {r['import_s']:.3f} + data {r['data_s']:.3f} + "
                  f"engine {r['engine_s']:.3f} + start/exit {r['process_s'] - r['import_s'] - r['data_s'] - r['engine_s']:.3f};"
                  f" peak RSS {r['maxrss_mb']:.0f} MB")
        print(f"  target {key} <= {limit} s: best {best:.3f} s, median {med:.3f} s -> "
              f"{'met' if best <= limit else 'NOT met'} (best), {'met' if med <= limit else 'NOT met'} (median)")
        if case == "corpus":
            print(f"  target peak memory <= 600 MB: {rss:.0f} MB -> {'met' if rss <= 600 else 'NOT met'}")
    if not args.skip_peers:
        peers(args.null_reps)


if __name__ == "__main__":
    main()
