"""Processes die with their build: a real ``build -j 2`` in its own process group is stopped while its
analysis workers are busy (held inside a user aggregate) by SIGKILL, SIGTERM or Ctrl-C, or loses a worker
to SIGKILL. No process of the build survives it, its lock is free, the previous report is intact, the
message is one line, and the next build succeeds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ROOT

CLI = [sys.executable, "-c", "import sys; from sigreport.cli import main; sys.exit(main(sys.argv[1:]))"]

# Called in the analyses. In a worker of the process pool (multiprocessing's child) it writes its pid into
# HELD/ and waits while the file HOLD exists: the build's workers are then busy for as long as the test needs.
AGGREGATE = textwrap.dedent("""
    import multiprocessing, os, time
    HERE = os.path.dirname(os.path.abspath(__file__))

    def mean(totals, n_items):
        if multiprocessing.parent_process() is not None and os.path.exists(os.path.join(HERE, "HOLD")):
            open(os.path.join(HERE, "held", str(os.getpid())), "w").close()
            deadline = time.monotonic() + 60
            while os.path.exists(os.path.join(HERE, "HOLD")) and time.monotonic() < deadline:
                time.sleep(0.02)
        return totals[..., 0] / n_items
""")


@pytest.fixture
def case(tmp_path: Path) -> Path:
    """A spec of 3 systems on 4 corpora whose metric is the aggregate above, built once (the previous report)."""
    (tmp_path / "held").mkdir()
    (tmp_path / "holding_agg.py").write_text(AGGREGATE)
    rows = ["system,corpus,item,metric,value"]
    rows += [f"{s},c{c},i{i},v,{0.5 + 0.05 * k + 0.01 * ((i * 7 + c) % 5):.3f}"
             for k, s in enumerate("ABC") for c in range(4) for i in range(12)]
    (tmp_path / "s.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "spec.yaml").write_text(textwrap.dedent("""
        title: t
        seed: 1
        data: {scores: s.csv}
        metrics: {m: {higher_is_better: true, aggregate: 'holding_agg:mean', statistics: [v]}}
        tests: {pairwise: bootstrap, resamples: 199}
        outputs: {formats: [json, html]}
        """))
    r = build(tmp_path)
    assert r.returncode == 0, r.stderr
    return tmp_path


def build(folder: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, "build", "-q", "-j", "2", "-o", str(folder / "out"), str(folder / "spec.yaml"),
                           *extra], cwd=ROOT, capture_output=True, text=True, timeout=300)


def group(pgid: int) -> list[int]:
    """The live processes of process group ``pgid`` (a zombie, dead but not yet reaped, counts as gone)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                out.append(int(d))
    return out


def gone(pgid: int, timeout: float = 15.0) -> list[int]:
    """Wait until no process of the group is alive; the ones still alive after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while (left := group(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def start_held(folder: Path) -> tuple[subprocess.Popen, list[int]]:
    """A build in its own process group, once its analysis workers are held; and their pids."""
    (folder / "HOLD").touch()
    # --no-cache: nothing the build reads changed (HOLD is no input), so with the cache the report would be left
    # as it is (sigreport.speed.unchanged) and no worker would start
    proc = subprocess.Popen([*CLI, "build", "-j", "2", "--no-cache", "-o", str(folder / "out"), str(folder / "spec.yaml")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while not (held := sorted(int(p.name) for p in (folder / "held").iterdir())) and time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    assert held, "no worker reached the aggregate"
    return proc, held


def results_of(folder: Path) -> str:
    return (folder / "out" / "results.json").read_text()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["SIGKILL the build", "SIGTERM the build", "Ctrl-C", "SIGKILL a worker"])
def test_a_stopped_build_leaves_no_process_no_lock_and_the_previous_report(case, how):
    before = results_of(case)
    proc, held = start_held(case)
    try:
        if how == "SIGKILL the build":
            os.kill(proc.pid, signal.SIGKILL)
        elif how == "SIGTERM the build":
            os.kill(proc.pid, signal.SIGTERM)
        elif how == "Ctrl-C":  # a terminal sends SIGINT to every process of the foreground group
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(held[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
        left = gone(proc.pid)
    finally:
        (case / "HOLD").unlink()
        for pid in group(proc.pid):
            os.kill(pid, signal.SIGKILL)
    assert left == [], f"processes of the build still alive after it ended: {left}"
    assert "Traceback" not in err, err
    expected = {"SIGKILL the build": (-signal.SIGKILL, None),
                "SIGTERM the build": (143, "terminated (SIGTERM); nothing was written"),
                "Ctrl-C": (130, "interrupted; nothing was written"),
                "SIGKILL a worker": (1, "error: a worker process of the build ended without its result while it "
                                        f"ran the analyses (pid {held[0]}, killed by SIGKILL")}[how]
    assert proc.returncode == expected[0], err
    if expected[1]:
        assert err.strip().splitlines()[-1].startswith(expected[1]), err
        assert len([line for line in err.splitlines() if not line.startswith(("read ", "ran ", "analyses"))]) == 1, err
    assert results_of(case) == before
    if how != "SIGKILL the build":  # a killed build cannot clean up: the next build does (below)
        assert [p.name for p in case.iterdir() if p.name.startswith(".out.")] == []
    r = build(case)  # the lock is free at once: no --wait
    assert r.returncode == 0, r.stderr
    if how == "SIGKILL the build":
        assert f"took over the lock {case / '.out.lock'} of a build that was stopped (pid {proc.pid})" in r.stderr
    assert json.loads(results_of(case))["title"] == "t"


def test_workers_close_the_lock_they_inherit(tmp_path):
    """forking.not_inherited: a process forked while the build holds its lock does not hold the lock's
    descriptor (flock locks are shared by every process holding it), so the lock dies with the build."""
    from sigreport.archive import store

    dest = tmp_path / "out"
    with store.locked(dest):
        r, w = os.pipe()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child
            try:
                os.close(r)
                links = [os.path.realpath(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")]
                os.write(w, b"held" if str(store.lock_path(dest)) in links else b"free")
            finally:
                os._exit(0)
        os.close(w)
        said = os.read(r, 4)
        os.close(r)
        os.waitpid(child, 0)
        parent_links = [os.path.realpath(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd")]
    assert str(store.lock_path(dest)) in parent_links  # the check can see a held lock
    assert said == b"free"


def test_a_worker_whose_parent_is_gone_ends_at_once():
    """bind_to_parent: a worker forked by a process that has already ended ends instead of working on."""
    from sigreport import forking

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(r)
            forking.bind_to_parent(os.getppid() + 10**6)  # not its parent: as if the parent had ended
            os.write(w, b"went on")
        finally:
            os._exit(0)
    os.close(w)
    assert os.read(r, 16) == b""  # it ended before writing
    os.close(r)
    assert os.waitpid(pid, 0)[1] >> 8 == 1


def test_the_lost_workers_message_names_it_and_its_signal():
    """forking.lost picks the worker a signal other than the pool's own SIGTERM ended, and says what
    SIGKILL usually means."""
    from sigreport import forking

    class Proc:
        def __init__(self, code):
            self.exitcode = code

    msg = str(forking.lost({11: Proc(-signal.SIGTERM), 12: Proc(-signal.SIGKILL), 13: Proc(None)}, "ran x"))
    assert msg.startswith("a worker process of the build ended without its result while it ran x (pid 12, "
                          "killed by SIGKILL: the system's out-of-memory killer")
    assert "pid 13" not in msg
    msg = str(forking.lost({11: Proc(-signal.SIGSEGV)}, "ran x"))
    assert msg.endswith("(pid 11, killed by SIGSEGV)")
