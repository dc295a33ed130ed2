"""Speed of the Bayesian signed-rank test (sigreport.stats.bayes) against its target and baycomp.

Target (issue 12): well under a second per pair at n = 10,000 items. baycomp 1.0.3's
``SignedRankTest`` builds the (n+1) x (n+1) Walsh-sum indicator matrix and loops over posterior
samples in Python (about 74 s at n = 1,000 with its default 50,000 samples). Its cost is linear in
the number of samples, so by default it is timed on ``--baycomp-samples`` samples and scaled to
50,000 (printed as such); ``--baycomp-samples 50000`` times it in full.

The cost of ours is O(n_samples * u) for u distinct differences, so it is timed at the default
50,000 samples and at 10,000 (Monte Carlo standard error of a probability near 0.95: 0.001 and
0.002), on continuous differences (u = n + 1, the worst case) and on 0/1 scores (u <= 4).

Usage::

    python benchmarks/bench_bayes.py [--repeat 3] [--baycomp-samples 2000]
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

from sigreport.stats.bayes import bayesian_signed_rank  # noqa: E402

TARGET_S = 1.0  # seconds per pair at n = 10,000


def _data(n: int, binary: bool, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if binary:
        return rng.integers(0, 2, n).astype(float), rng.integers(0, 2, n).astype(float)
    a = rng.normal(0.7, 0.1, n)
    return a + rng.normal(0.002, 0.02, n), a


def _best(fn, repeat: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Best wall time and best CPU time (process time) of ``repeat`` runs.

    Both are shown because on a shared machine the wall time also measures other processes.
    """
    walls, cpus = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return min(walls), min(cpus)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="timings per case; the best is shown")
    ap.add_argument("--baycomp-samples", type=int, default=2000, help="samples for the baycomp timing")
    args = ap.parse_args(argv)
    rope = 0.01
    print(f"{'case':44s} {'wall s':>9s} {'cpu s':>9s}  note")
    ours_1000 = None
    for n in (1_000, 10_000):
        for binary in (False, True):
            a, b = _data(n, binary)
            for S in (50_000, 10_000):
                t, cpu = _best(lambda: bayesian_signed_rank(a, b, rope, seed=1, n_samples=S), args.repeat)
                kind = "0/1 scores" if binary else "continuous"
                note = ""
                if n == 10_000 and not binary:
                    note = f"target < {TARGET_S:g} s (cpu): {'met' if cpu < TARGET_S else 'NOT met'}"
                if n == 1_000 and not binary and S == 50_000:
                    ours_1000 = (t, cpu)
                print(f"sigreport n={n:>6,} {kind:10s} S={S:>6,}        {t:9.3f} {cpu:9.3f}  {note}")
    try:
        from baycomp import SignedRankTest
    except ImportError:
        print("baycomp not installed: no comparison (pip install baycomp)")
        return
    a, b = _data(1_000, False)
    S = int(args.baycomp_samples)
    t, cpu = _best(lambda: SignedRankTest.probs(b, a, rope, nsamples=S, random_state=1), 1)
    scaled, scaled_cpu = t * 50_000 / S, cpu * 50_000 / S
    how = "timed" if S == 50_000 else f"timed on {S:,} samples, scaled to 50,000"
    print(f"baycomp   n= 1,000 continuous S=50,000        {scaled:9.3f} {scaled_cpu:9.3f}  {how}")
    if ours_1000:
        print(f"ratio baycomp / sigreport at n = 1,000, S = 50,000: {scaled / ours_1000[0]:,.0f}x wall, "
              f"{scaled_cpu / ours_1000[1]:,.0f}x cpu")


if __name__ == "__main__":
    main()
