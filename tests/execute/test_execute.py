"""Executors and the cache give the same bytes as a plain serial run; a bad cache entry is never trusted."""

from __future__ import annotations

import pytest
from conftest import CONFIGS, corpora_spec

from sigreport.analyses import collect_results
from sigreport.api.pipeline import prepare
from sigreport.execute import Cache, run_plan
from sigreport.execute.pool import ProcessExecutor
from sigreport.results import to_json
from sigreport.version import __version__

SPECS = ("summarization", "classifiers", "demsar")


def _json(p, results) -> str:
    return to_json(collect_results(p.spec_file.spec, p.dataset, results, __version__))


@pytest.fixture(scope="module")
def serial():
    out = {}
    for name in SPECS:
        p = prepare(CONFIGS / f"{name}.yaml")
        out[name] = (p, _json(p, run_plan(p.plan, p.dataset)))
    return out


def test_two_worker_processes_give_the_serial_bytes(serial):
    for name, (p, want) in serial.items():
        assert _json(p, run_plan(p.plan, p.dataset, ProcessExecutor(2))) == want, name


def test_dask_local_cluster_gives_the_serial_bytes(serial):
    pytest.importorskip("dask.distributed")
    from sigreport.execute.dask import DaskExecutor

    p, want = serial["summarization"]
    assert _json(p, run_plan(p.plan, p.dataset, DaskExecutor(jobs=2))) == want


def test_cached_run_gives_the_cold_bytes_and_recomputes_bad_entries(serial, tmp_path):
    p, want = serial["summarization"]
    cold = Cache.open(tmp_path / "cache", __version__)
    assert _json(p, run_plan(p.plan, p.dataset, cache=cold)) == want
    assert cold.hits == 0 and cold.misses == len(p.plan.nodes)
    warm = Cache.open(tmp_path / "cache", __version__)
    assert _json(p, run_plan(p.plan, p.dataset, cache=warm)) == want
    assert warm.hits == len(p.plan.nodes) and warm.misses == 0
    # corrupt one entry, truncate another, replace a third with a foreign (unsigned) pickle
    entries = sorted((tmp_path / "cache").glob("*/*.pkl"))
    entries[0].write_bytes(entries[0].read_bytes()[:-1] + b"x")
    entries[1].write_bytes(entries[1].read_bytes()[:20])
    import pickle

    entries[2].write_bytes(pickle.dumps("not a record"))
    again = Cache.open(tmp_path / "cache", __version__)
    assert _json(p, run_plan(p.plan, p.dataset, cache=again)) == want
    assert again.rejected == 3 and again.misses == 3
    # rewritten: the next run hits everything
    last = Cache.open(tmp_path / "cache", __version__)
    run_plan(p.plan, p.dataset, cache=last)
    assert last.hits == len(p.plan.nodes)


def test_another_version_never_hits(serial, tmp_path):
    p, _ = serial["demsar"]
    run_plan(p.plan, p.dataset, cache=Cache.open(tmp_path / "c", __version__))
    other = Cache.open(tmp_path / "c", "0.0.0-other")
    run_plan(p.plan, p.dataset, cache=other)
    assert other.hits == 0


# ---- through the command line ---------------------------------------------------------------------------


def _copy_example(tmp_path):
    import shutil

    shutil.copytree(CONFIGS, tmp_path / "configs", ignore=shutil.ignore_patterns("reports", ".sigreport-cache"))
    return tmp_path / "configs" / "summarization.yaml"


def test_cli_cache_jobs_and_cold_builds_are_byte_identical(cli, tmp_path):
    spec = _copy_example(tmp_path)
    outs = {}
    for name, extra in (("cold", ["--no-cache"]), ("fill", []), ("warm", []), ("jobs", ["-j", "2", "--no-cache"])):
        out = tmp_path / name
        r = cli("build", spec, "-o", out, "--formats", "json,html,latex", "-q", *extra)
        assert r.code == 0, r.err
        outs[name] = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()
                      and p.name != ".sigreport-report"}
    assert outs["cold"] == outs["fill"] == outs["warm"] == outs["jobs"]
    assert (spec.parent / ".sigreport-cache").is_dir()


def test_cli_refuses_bad_execution_options_and_writes_nothing(cli, tmp_path):
    spec = _copy_example(tmp_path)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    cases = [(["--cache", str(blocker)], "--cache"), (["-j", "0"], "--jobs"), (["-j", "-3"], "--jobs"),
             (["--scheduler", "tcp://127.0.0.1:9"], "only with --executor dask")]
    for extra, fragment in cases:
        out = tmp_path / "out"
        r = cli("build", spec, "-o", out, *extra) if extra[0] != "-j" else None
        if r is None:
            with pytest.raises(SystemExit) as info:
                cli("build", spec, "-o", out, *extra)
            assert info.value.code == 2
            continue
        assert r.code == 2 and fragment in r.err and "Traceback" not in r.err, (extra, r.err)
        assert not out.exists()


def test_cli_unreachable_dask_scheduler_is_a_user_error(cli, tmp_path):
    pytest.importorskip("dask.distributed")
    spec = _copy_example(tmp_path)
    # A refused connection is retried until the timeout: 2 s instead of the default 10 keeps the suite fast.
    r = cli("build", spec, "-o", tmp_path / "out", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9",
            "--no-cache", "--scheduler-timeout", "2")
    assert r.code == 2 and "Traceback" not in r.err
    last = r.err.splitlines()[-1]  # earlier lines: progress (the data was read before the cluster was asked)
    assert last.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:9: ") and \
        last.endswith("; nothing was written"), r.err
    assert not (tmp_path / "out").exists()


def test_cli_unusable_cache_folder_is_one_clear_line_before_anything_runs(cli, tmp_path):
    spec = _copy_example(tmp_path)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    cases = {blocker: "it is a file, not a folder", blocker / "sub": "it cannot be written (Not a directory)"}
    for folder, why in cases.items():
        r = cli("build", spec, "-o", tmp_path / "out", "--cache", folder)
        assert r.code == 2 and r.out == ""
        assert r.err == (f"error: cannot use the cache folder {folder}: {why}; pass --no-cache or another "
                         "--cache DIR; nothing was written\n"), r.err
        assert not (tmp_path / "out").exists() and blocker.read_text() == "x"


def test_build_reports_its_phases_in_order_on_standard_error_only(cli, tmp_path):
    spec = _copy_example(tmp_path).with_name("summarizers.yaml")  # 6 rows, html + pdf + latex + json
    r = cli("build", spec, "-o", tmp_path / "out", "--no-cache")
    assert r.code == 0, r.err
    lines = r.err.splitlines()  # not a terminal: one plain line per phase, nothing rewritten in place
    assert "\r" not in r.err and "\x1b" not in r.err
    assert [line.split(" ")[0] for line in lines] == ["read", "ran", "writing", "writing"], r.err
    assert lines[0] == "read 6 score rows (2 systems, 1 corpus, 1 metric) and planned 2 analyses in " \
        + lines[0].rsplit(" in ", 1)[1] and lines[0].endswith(" s")
    assert lines[1].startswith("ran 2 analyses in ")
    assert lines[2] == "writing json, html, latex" and lines[3] == "writing the PDF"
    assert r.out.startswith("wrote ") and not any(x.startswith(("read ", "ran ", "writing")) for x in r.out.splitlines())


def test_quiet_build_prints_nothing(cli, tmp_path):
    spec = _copy_example(tmp_path).with_name("summarizers.yaml")
    r = cli("build", spec, "-o", tmp_path / "out", "--no-cache", "--formats", "json", "-q")
    assert r.code == 0 and r.out == "" and r.err == ""
    assert (tmp_path / "out" / "results.json").is_file()


class _Stream:
    def __init__(self, tty: bool):
        self.tty, self.text = tty, ""

    def isatty(self) -> bool:
        return self.tty

    def write(self, s: str) -> None:
        self.text += s

    def flush(self) -> None:
        pass


def test_progress_rewrites_one_line_on_a_terminal_with_the_time_left():
    from sigreport.cli import Progress

    s = _Stream(tty=True)
    p = Progress(True, s)
    p.start -= 1.0  # past the half second a quick build stays silent for
    p.phase("reading scores.csv", transient=True)
    p(0, 4, "starting")
    p.run_start -= 6.0  # one analysis took 6 s: three are left
    p.last = 0.0
    p(1, 4, "m/c/pairwise")
    p.finish()
    assert s.text.startswith("\r\x1b[Kreading scores.csv\r\x1b[K")
    assert "\r\x1b[Kanalyses 1/4, about 18 s left: m/c/pairwise" in s.text
    assert s.text.endswith("\r\x1b[K") and "\n" not in s.text


def test_progress_off_a_terminal_writes_phase_lines_and_a_line_per_interval():
    from sigreport.cli import Progress

    s = _Stream(tty=False)
    p = Progress(True, s, every=0.0)
    p.phase("reading scores.csv", transient=True)  # may still fail on the user's data: terminal only
    p.phase("read 6 score rows")
    p(0, 3, "starting")
    p(1, 3, "a")
    p(3, 3, "c")  # the end is the pipeline's "ran N analyses" line
    assert s.text.splitlines()[0] == "read 6 score rows"
    assert s.text.splitlines()[1].startswith("analyses 1/3, about ") and len(s.text.splitlines()) == 2
    quiet = _Stream(tty=True)
    q = Progress(False, quiet)
    q.phase("x")
    q(1, 2, "y")
    q.finish()
    assert quiet.text == ""


def test_jobs_auto_uses_every_core_only_for_large_data(monkeypatch):
    """--jobs auto (the CLI default): one worker per usable core from AUTO_JOBS_ROWS score rows, else one
    (forking workers costs more than a small build's analyses); a number is taken as given; Dask's auto is
    one worker per core whatever the size."""
    import types

    from sigreport.api import running

    monkeypatch.setattr(running.os, "sched_getaffinity", lambda pid: {0, 1, 2}, raising=False)
    small, large = (types.SimpleNamespace(n_rows=n) for n in (running.AUTO_JOBS_ROWS - 1, running.AUTO_JOBS_ROWS))
    assert running.workers_for("auto", small) == 1
    assert running.workers_for("auto", large) == 3
    assert running.workers_for("auto", small, dask=True) == 3
    assert running.workers_for(2, small) == 2 and running.workers_for(1, large) == 1
    monkeypatch.setattr(running.os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    assert running.workers_for("auto", large) == running.AUTO_JOBS_MAX == 8  # capped: memory per worker
    assert running.workers_for(16, large) == 16  # a number is taken as given


def test_cli_jobs_option_accepts_auto_and_defaults_to_it():
    from sigreport.cli import parser

    assert parser().parse_args(["build", "s.yaml"]).jobs == "auto"
    assert parser().parse_args(["build", "s.yaml", "-j", "auto"]).jobs == "auto"
    assert parser().parse_args(["build", "s.yaml", "-j", "3"]).jobs == 3


def test_serial_executor_frees_the_resampling_engines_buffer_when_the_run_ends():
    import numpy as np

    from sigreport.execute.runner import SerialExecutor
    from sigreport.stats import resampling

    x = np.random.default_rng(0).standard_normal((1200, 3, 1))
    ex = SerialExecutor()
    ex.start(object())  # type: ignore[arg-type]
    resampling.paired_resampling(x, resampling.mean_metric(), [(0, 1)], "bootstrap", 200, 1)
    assert resampling._WORKSPACE.__dict__  # kept between nodes of a run
    ex.close()
    assert not resampling._WORKSPACE.__dict__


def test_workers_take_the_nodes_of_a_corpus_together_when_there_are_enough_corpora():
    """Nodes are batched by corpus (they share its resample) only with at least four corpora per worker;
    fewer, and they go one by one (a few big batches would leave workers idle)."""
    import types

    from sigreport.execute.pool import batches

    nodes = [types.SimpleNamespace(id=f"{m}/{c}", corpus=c, depends_on=()) for m in ("m0", "m1") for c in range(8)]
    grouped = batches(nodes, jobs=2)
    assert len(grouped) == 8 and all(len({n.corpus for n in g}) == 1 for g in grouped)
    assert [n.id for n in grouped[0]] == ["m0/0", "m1/0"]  # plan order within a batch
    assert batches(nodes, jobs=3) == [[n] for n in nodes]  # 8 corpora < 4 x 3 workers


def test_corpus_batches_in_two_workers_give_the_serial_bytes(tmp_path):
    """Eight corpora, bootstrap and Friedman/Nemenyi: the batched two-worker run equals the serial one."""
    corpora_spec(tmp_path, 11, 3, 30, "{pairwise: bootstrap, resamples: 499, omnibus: friedman}")
    from sigreport.execute.pool import batches

    p = prepare(tmp_path / "spec.yaml")
    assert len(batches(p.plan.nodes, 2)) == 8  # the batched path is the one tested
    assert _json(p, run_plan(p.plan, p.dataset, ProcessExecutor(2))) == _json(p, run_plan(p.plan, p.dataset))
