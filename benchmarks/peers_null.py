"""Clustered items beside the peers: evalsig's cluster bootstrap's type I error, and the coverage of the
clustered proportion interval with and without Korn and Graubard's degrees-of-freedom adjustment.

Why this exists: docs/methods.md ("Beside the peers") says that evalsig's automatic test for clustered items
(its cluster bootstrap) rejects a true null more often than alpha with few clusters while sigreport's clustered
paired t holds it, and that Wilson's interval on n / deff (z quantile) undercovers with few clusters while
Korn and Graubard's n* = min((n - 1)/deff, n) (z/t_{G-1})^2 (sigreport's, and Inspect AI's ``ci_wilson``) holds
95%. This script measures both.

* Type I error: G clusters of 5 items, per-item differences u_g + e_i (ICC 0.3, true mean 0); evalsig's own
  ``cluster_bootstrap_ci(a, b, g, n_resamples=999)`` beside ``sigreport.stats.cluster.paired_t_family``.
* Coverage: G clusters of 5 0/1 items, beta-binomial with ICC 0.2 and p = 0.5 or 0.8; the share of 95%
  intervals containing p.

Monte Carlo s.e. about 0.0034 at 4000 data sets. evalsig is in the test extra (pip install evalsig). Usage::

    python benchmarks/peers_null.py --reps 4000
"""

from __future__ import annotations

import argparse

import numpy as np


def type_one_error(reps: int, G: int, rng: np.random.Generator) -> tuple[float, float]:
    import evalsig.inference as ei

    from sigreport.stats import cluster

    g = np.repeat(np.arange(G), 5)
    n = len(g)
    boot = t = 0
    for r in range(reps):
        d = rng.normal(0, np.sqrt(0.3), G)[g] + rng.normal(0, np.sqrt(0.7), n)
        boot += ei.cluster_bootstrap_ci(np.zeros(n), d, g, n_resamples=999, rng=r).p_value < 0.05
        t += cluster.paired_t_family(np.c_[d, np.zeros(n)], [(0, 1)], g, G)[0].pvalue < 0.05
    return boot / reps, t / reps


def coverage(reps: int, G: int, p0: float, rng: np.random.Generator) -> tuple[float, float, float]:
    from sigreport.stats import cluster, proportion

    g = np.repeat(np.arange(G), 5)
    n = len(g)
    rho = 0.2
    pc = rng.beta(p0 * (1 - rho) / rho, (1 - p0) * (1 - rho) / rho, size=(G, reps))
    x = (rng.random((n, reps)) < pc[g]).astype(float)
    cm = cluster.clustered_means(x, g, G)
    n_eff = np.where(np.isfinite(cm.effective_n) & (cm.effective_n > 0), cm.effective_n, n)
    lo, hi = proportion.wilson(cm.mean * n_eff, n_eff, 0.95)
    m = proportion.korn_graubard_n(n, cm.design_effect, G, 0.95)
    lo2, hi2 = proportion.wilson(cm.mean * m, m, 0.95)
    lo3, hi3 = cluster.mean_intervals(cm, 0.95)
    cover = [float(np.mean((a <= p0) & (p0 <= b))) for a, b in ((lo, hi), (lo2, hi2), (lo3, hi3))]
    return cover[0], cover[1], cover[2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"MC s.e. at 0.05: {np.sqrt(0.05 * 0.95 / args.reps):.4f}")
    print("| G | evalsig cluster bootstrap | sigreport clustered paired t |")
    for G in (10, 20, 50):
        b, t = type_one_error(args.reps, G, rng)
        print(f"| {G} | {b:.4f} | {t:.4f} |")
    print("| G | p | Wilson on n/deff (z) | Korn-Graubard Wilson (t, sigreport) | CR1 t interval |")
    for G in (10, 20, 50):
        for p0 in (0.5, 0.8):
            a, k, t = coverage(args.reps, G, p0, rng)
            print(f"| {G} | {p0} | {a:.4f} | {k:.4f} | {t:.4f} |")


if __name__ == "__main__":
    main()
