"""Speed of the Bradley-Terry bootstrap (sigreport.stats.bradley_terry) against its target.

Target (issue 31): 100 models, 1,000,000 votes, B = 1,000 bootstrap replicates in under 30 s on 2 cores. The
votes are drawn from a Davidson model (strengths evenly spaced over 4 log units, nu = 0.3, every pair
equally likely to meet); the time covers aggregating the votes into cells, the full-data fit and every
replicate's fit (resampling battles; with ``--items N``, resampling N items as clusters). Wall time and this
process's CPU time are both printed: on a machine shared with other work the wall time is the larger.

Usage::

    python benchmarks/bench_preferences.py [--models 100] [--votes 1000000] [--resamples 1000] [--ties davidson]
    python benchmarks/bench_preferences.py --items 20000
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from sigreport.stats import bradley_terry as bt  # noqa: E402

TARGET_S = 30.0


def votes(k: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    s = np.linspace(-2, 2, k)
    a = rng.integers(0, k, n)
    b = (a + rng.integers(1, k, n)) % k
    u = (s[a] - s[b]) / 2
    z = 2 * np.cosh(u) + 0.3
    r = rng.random(n)
    outcome = np.where(r < np.exp(u) / z, 1, np.where(r < (np.exp(u) + 0.3) / z, 0, -1))
    return a, b, outcome, s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--votes", type=int, default=1_000_000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--ties", choices=bt.TIES, default="davidson")
    ap.add_argument("--items", type=int, default=0, help="resample this many items (clusters) instead of battles")
    args = ap.parse_args()
    a, b, outcome, s = votes(args.models, args.votes, 0)
    item = np.random.default_rng(1).integers(0, args.items, args.votes) if args.items else None
    t0, cpu0 = time.perf_counter(), time.process_time()
    c = bt.cells(a, b, outcome, args.models, item)
    w, t = c.matrices(c.counts[None])
    f = bt.fit(w[0], t[0], args.ties)
    t1 = time.perf_counter()
    boot = bt.bootstrap(c, args.resamples, seed=0, ties_model=args.ties, unit="items" if args.items else "battles")
    t2 = time.perf_counter()
    low, high = bt.percentile_interval(boot.strengths, 0.95)
    ranks = bt.rank_ub(low, high)
    total = time.perf_counter() - t0
    cpu = time.process_time() - cpu0
    truth = s - s.mean()
    cover = float(np.mean((low <= truth) & (truth <= high)))
    print(f"{args.models} models, {args.votes:,} votes, {c.counts.size:,} cells, B = {args.resamples:,}, "
          f"ties {args.ties}, resampling {'items' if args.items else 'battles'}, threads: "
          f"{os.environ.get('OMP_NUM_THREADS', 'default')}")
    print(f"  cells + fit      {t1 - t0:8.2f} s  (converged {bool(f.converged)}, nu = {float(f.nu):.3f})")
    print(f"  bootstrap        {t2 - t1:8.2f} s  ({boot.not_converged} replicates without a finite maximum)")
    print(f"  total            {total:8.2f} s  target < {TARGET_S:.0f} s: {'met' if total < TARGET_S else 'MISSED'} "
          f"(CPU time of this process, all threads: {cpu:.2f} s; wall above it means other load)")
    print(f"  95% intervals cover the true strength for {cover:.0%} of models; Rank (UB) 1 shared by "
          f"{int((ranks == 1).sum())}")


if __name__ == "__main__":
    main()
