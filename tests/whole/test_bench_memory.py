"""The benchmark's measure of a process's peak memory (benchmarks/bench_build.py ``OWN_PEAK``, the Dask case's
client peak) is the process's own, not the peak of the process that started it.

Why: on Linux a child's ``ru_maxrss`` starts at its parent's peak (kept across fork or vfork and exec), so
the Dask case's client, started by the benchmark after it had written the 100M-row shards (394 MB in the
benchmark's own process), reported 392 MB against 240 MB at 1M rows: a growth with the rows that was the
benchmark's, not the client's (the client's own peak stayed at 240 MB).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

PARENT = """
import json, subprocess, sys
import numpy as np
big = np.ones(256 * 2 ** 20 // 8)  # 256 MB touched: this process's peak, then freed
del big
child = sys.argv[1] + "\\nimport json\\nprint(json.dumps([own_peak_mb(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024]))"
print(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, check=True).stdout)
"""


def _own_peak_source() -> str:
    spec = importlib.util.spec_from_file_location("bench_build_for_test", ROOT / "benchmarks" / "bench_build.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # its dataclasses look their module up there
    try:
        spec.loader.exec_module(bench)
    finally:
        del sys.modules[spec.name]
    assert bench.CLIENT.startswith(bench.OWN_PEAK) and "own_peak_mb()" in bench.CLIENT
    return bench.OWN_PEAK


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is read from /proc (Linux)")
def test_a_child_started_by_a_large_process_reports_its_own_peak_not_its_parents():
    out = subprocess.run([sys.executable, "-c", PARENT, _own_peak_source()], capture_output=True, text=True,
                         check=True).stdout
    own, maxrss = json.loads(out.strip().splitlines()[-1])
    assert maxrss >= 256  # ru_maxrss carries the parent's peak over: what the benchmark measured before
    assert own < 120, (own, maxrss)  # a bare interpreter's own peak (about 10 MB)
