"""How many systems Bergmann-Hommel's exhaustive search handles within a second (issue 12).

Target: one family of all-pairs adjusted p-values in under 1 s, first call in a fresh process
(the exhaustive sets are built once per k and cached). The limit is
``sigreport.stats.posthoc.BERGMANN_HOMMEL_MAX_K``; this script prints the time per k and whether
the limit is the largest k within target.

Usage::

    python benchmarks/bench_bergmann_hommel.py [--max-k 11]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

TARGET_S = 1.0

CHILD = """
import time, numpy as np
t0 = time.perf_counter()
from sigreport.stats import posthoc
posthoc.BERGMANN_HOMMEL_MAX_K = 99
k = {k}
p = np.random.default_rng(k).uniform(size=k * (k - 1) // 2)
t1 = time.perf_counter()
posthoc.bergmann_hommel_adjust(p, k)
t2 = time.perf_counter()
posthoc.bergmann_hommel_adjust(p[::-1].copy(), k)
t3 = time.perf_counter()
print(t2 - t1, t3 - t2)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-k", type=int, default=11)
    args = ap.parse_args()
    from sigreport.stats.posthoc import BERGMANN_HOMMEL_MAX_K

    largest_ok = None
    print(f"{'k':>3} {'first call s':>13} {'cached s':>9}  target {TARGET_S:g} s")
    for k in range(3, args.max_k + 1):
        out = subprocess.run([sys.executable, "-c", CHILD.format(k=k)], capture_output=True, text=True, check=True)
        first, cached = (float(v) for v in out.stdout.split())
        ok = first < TARGET_S
        if ok:
            largest_ok = k
        print(f"{k:>3} {first:>13.3f} {cached:>9.3f}  {'ok' if ok else 'over'}")
    print(f"largest k within target: {largest_ok}; BERGMANN_HOMMEL_MAX_K = {BERGMANN_HOMMEL_MAX_K}"
          f" -> {'consistent' if largest_ok == BERGMANN_HOMMEL_MAX_K else 'REVISIT'}")


if __name__ == "__main__":
    main()
