"""The report store: nothing of the user's is removed, a reader always finds a whole report, builds into one
folder never interleave, and output-side OS errors are user errors (exit 2, path and reason)."""

from __future__ import annotations

import csv
import fcntl
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from sigreport.archive import store
from conftest import GOOD_DATA as DATA
from conftest import build_files

from sigreport.cli import main



def spec_text(title: str = "old", scores: str = "scores.csv", extra: str = "") -> str:
    return (f"title: {title}\ndata:\n  scores: {scores}\nmetrics:\n  m:\n    higher_is_better: true\n"
            f"outputs:\n  formats: [json, html]\n  figures: []\n{extra}")  # no test here reads a figure


@pytest.fixture
def exp(cli, workdir):
    """A spec and its table; ``out`` already holds a report built from it (title 'old')."""
    build_files(cli, workdir, spec_text("old"), {"scores.csv": DATA}, formats="json,html")  # the spec's formats
    return workdir


def title_of(report: Path) -> str:
    """The title of a complete report (results.json parses, index.html holds the same title)."""
    doc = json.loads((report / "results.json").read_text())
    title = doc["title"] if "title" in doc else doc["spec"]["title"]
    assert f"<title>{title}" in (report / "index.html").read_text()
    return title


def leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith(".out."))


def snapshot(folder: Path) -> dict[str, tuple[int, int | None, int]]:
    """Every file and folder under ``folder`` (itself included, links not followed): kind, size (files) and
    modification time in nanoseconds (a folder's changes when an entry is created, renamed or deleted)."""
    out = {}
    for p in [folder, *sorted(folder.rglob("*"))]:
        st = p.lstat()
        kind = stat.S_IFMT(st.st_mode)
        out[p.relative_to(folder).as_posix()] = (kind, None if stat.S_ISDIR(kind) else st.st_size, st.st_mtime_ns)
    return out


# ---------------------------------------------------------------- inputs inside the output folder


def test_check_inputs_outside_alone(tmp_path):
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    store.check_inputs_outside(out, [tmp_path / "other" / "x.csv", tmp_path / "outside.csv"])
    for inp in (out, out / "x.csv", out / "sub" / "deep.csv"):
        with pytest.raises(store.OutputError, match="which this build reads"):
            store.check_inputs_outside(out, [tmp_path / "other.csv", inp])
    (tmp_path / "link").symlink_to(out)  # the same folder under another name
    with pytest.raises(store.OutputError, match="contains"):
        store.check_inputs_outside(tmp_path / "link", [out / "sub" / "deep.csv"])


@pytest.mark.parametrize("case", ["spec in output (outputs.dir: .)", "output above the spec (outputs.dir: ..)",
                                  "table inside the previous report", "aggregate module", "templates folder",
                                  "output is the table"])
def test_output_holding_an_input_is_refused(cli, exp, case):
    w = exp
    args: list[str] = []
    if case == "spec in output (outputs.dir: .)":
        w.write("spec.yaml", spec_text(extra="  dir: '.'\n"))
        keep = [w.path / "spec.yaml", w.path / "scores.csv"]
    elif case == "output above the spec (outputs.dir: ..)":
        w.write("exp/spec.yaml", spec_text(extra="  dir: '..'\n"))
        w.write("exp/scores.csv", DATA)
        keep = [w.path / "exp" / "spec.yaml", w.path / "exp" / "scores.csv"]
        w.write("spec.yaml", w.path.joinpath("exp", "spec.yaml").read_text())
    elif case == "table inside the previous report":
        shutil.copy(w.path / "scores.csv", w.path / "out" / "data.csv")
        w.write("spec.yaml", spec_text(scores="out/data.csv"))
        args = ["-o", str(w.path / "out")]
        keep = [w.path / "out" / "data.csv", w.path / "out" / "results.json"]
    elif case == "aggregate module":
        w.write("agg_store_pkg/__init__.py", "")
        w.write("agg_store_pkg/prec.py", "def precision(totals, n):\n    return totals[..., 0] / totals[..., 1]\n")
        rows = [("system", "corpus", "item", "metric", "value")]
        rows += [(s, "c", f"i{i}", st, v) for s in "AB" for i in range(3) for st, v in (("tp", i + 1), ("all", 5))]
        with (w.path / "s.csv").open("w", newline="") as fh:
            csv.writer(fh).writerows(rows)
        w.write("spec.yaml", "title: t\ndata:\n  scores: s.csv\nmetrics:\n  p:\n    higher_is_better: true\n"
                             "    aggregate: 'agg_store_pkg.prec:precision'\n    statistics: [tp, all]\n"
                             "tests:\n  pairwise: bootstrap\n  resamples: 99\n")
        args = ["-o", str(w.path / "agg_store_pkg")]
        keep = [w.path / "agg_store_pkg" / "prec.py", w.path / "agg_store_pkg" / "__init__.py"]
    elif case == "templates folder":
        w.write("mine/templates/html/.keep", "")
        args = ["-o", str(w.path / "mine"), "--templates", str(w.path / "mine" / "templates")]
        keep = [w.path / "mine" / "templates" / "html" / ".keep"]
    else:
        args = ["-o", str(w.path / "scores.csv")]
        keep = [w.path / "scores.csv"]
    before = {p: p.read_bytes() for p in keep}
    r = cli("build", *args, w.path / "spec.yaml")
    assert r.code == 2, r
    assert "Traceback" not in r.err and "which this build reads" in r.err, r.err
    assert all(line.startswith(("error: ", "  ")) for line in r.err.splitlines())
    assert {p: p.read_bytes() for p in keep} == before
    assert not any(p.name.startswith((".out.tmp", ".out.old")) for p in w.path.iterdir())


# ---------------------------------------------------------------- foreign files in a report


def test_marker_lists_every_file_written(exp):
    lines = (exp.path / "out" / store.MARKER).read_text().splitlines()
    assert lines[0].startswith("sigreport ")
    on_disk = sorted(p.relative_to(exp.path / "out").as_posix() for p in (exp.path / "out").rglob("*")
                     if p.is_file() and p.name != store.MARKER)
    assert lines[1:] == on_disk == ["index.html", "main.csv", "main.md", "methods.md", "results.json"]


def test_foreign_file_in_a_report_is_refused_and_kept(cli, exp):
    notes = exp.write("out/notes.txt", "my notes")
    r = cli("build", "-o", exp.path / "out", exp.path / "spec.yaml")
    assert r.code == 2 and "Traceback" not in r.err
    assert "notes.txt" in r.err and "move them out" in r.err
    assert notes.read_text() == "my notes" and title_of(exp.path / "out") == "old"
    for i in range(6):
        exp.write(f"out/drafts/d{i}.txt", "x")
    r = cli("build", "-o", exp.path / "out", exp.path / "spec.yaml")
    assert r.code == 2 and "7 files sigreport did not write" in r.err and "and 2 more" in r.err
    shutil.rmtree(exp.path / "out" / "drafts")
    notes.unlink()
    (exp.path / "out" / "empty").mkdir()
    r = cli("build", "-o", exp.path / "out", exp.path / "spec.yaml")
    assert r.code == 2 and "empty/" in r.err and (exp.path / "out" / "empty").is_dir()
    (exp.path / "out" / "empty").rmdir()
    assert cli("build", "-o", exp.path / "out", exp.path / "spec.yaml").code == 0


def test_marker_without_a_listing_accepts_only_report_files(cli, exp):
    out = exp.path / "out"
    (out / store.MARKER).write_text("sigreport 0.0.9\n")  # as written before markers listed files
    exp.write("out/tables/old--table.tex", "% table")
    exp.write("out/main.tex", "% main")
    assert store.foreign_files(out) == []
    exp.write("out/notes.txt", "mine")
    exp.write("out/tables/sub/deep.tex", "mine")
    assert store.foreign_files(out) == ["notes.txt", "tables/sub/deep.tex"]
    r = cli("build", "-o", out, exp.path / "spec.yaml")
    assert r.code == 2 and "notes.txt" in r.err and (out / "notes.txt").read_text() == "mine"
    (out / "notes.txt").unlink()
    shutil.rmtree(out / "tables" / "sub")
    assert cli("build", "-o", out, exp.path / "spec.yaml").code == 0
    assert not (out / "main.tex").exists(), "a rebuild replaces the old report's own files"


def test_folder_that_is_not_a_report_is_refused(cli, exp):
    keep = exp.write("mine/thesis.tex", "precious")
    r = cli("build", "-o", exp.path / "mine", exp.path / "spec.yaml")
    assert r.code == 2 and "not a sigreport report" in r.err and keep.read_text() == "precious"


# ---------------------------------------------------------------- crash-safe swap: a kill at every step


class Killed(BaseException):
    """A simulated kill: nothing after it runs (every later file operation fails too)."""


FILE_OPS = [(os, "rename"), (os, "replace"), (os, "unlink"), (os, "rmdir"), (shutil, "rmtree"),
            (store, "exchange")]


def run_with_kill(monkeypatch, argv: list[str], kill_at: int | None) -> tuple[int, list[str]]:
    """Run the CLI counting file operations; the ``kill_at``-th one and all after it raise :class:`Killed`."""
    seen: list[str] = []
    with monkeypatch.context() as m:
        for mod, name in FILE_OPS:
            real = getattr(mod, name)

            def op(*a, _real=real, _name=name, **k):
                seen.append(_name)
                if kill_at is not None and len(seen) >= kill_at:
                    raise Killed(_name)
                return _real(*a, **k)

            m.setattr(mod, name, op)
        code = main(argv)
    return code, seen


def exchange_works(tmp: Path) -> bool:
    (tmp / "a").mkdir()
    (tmp / "b").mkdir()
    (tmp / "a" / "x").write_text("a")
    ok = store.exchange(tmp / "a", tmp / "b")
    return ok and (tmp / "b" / "x").exists()


@pytest.mark.parametrize("mode", ["exchange", "two renames"])
def test_a_kill_at_every_step_leaves_a_whole_report(monkeypatch, capsys, tmp_path, mode):
    if mode == "exchange" and not exchange_works(tmp_path):
        pytest.skip("renameat2(RENAME_EXCHANGE) is not available here")
    if mode == "two renames":
        monkeypatch.setattr(store, "exchange", lambda a, b: False)

    def setup(folder: Path) -> list[str]:
        folder.mkdir()
        (folder / "scores.csv").write_text(DATA)
        (folder / "spec.yaml").write_text(spec_text("old", extra="  dir: out\n"))
        assert main(["build", "-q", str(folder / "spec.yaml")]) == 0
        (folder / "spec.yaml").write_text(spec_text("new", extra="  dir: out\n"))
        return ["build", "-q", str(folder / "spec.yaml")]

    code, ops = run_with_kill(monkeypatch, setup(tmp_path / "clean"), None)
    assert code == 0 and title_of(tmp_path / "clean" / "out") == "new"
    assert {"rename", "rmtree"} <= set(ops) if mode == "two renames" else "exchange" in ops
    restored = 0
    for k in range(1, len(ops) + 1):
        folder = tmp_path / f"k{k}"
        argv = setup(folder)
        capsys.readouterr()
        with pytest.raises(Killed):
            run_with_kill(monkeypatch, argv, k)
        out = folder / "out"
        if mode == "exchange":
            assert title_of(out) in ("old", "new"), f"kill at step {k} ({ops[k - 1]})"
        elif not out.exists():  # killed between the two renames: the next build puts the old report back
            restored += 1
            before = snapshot(folder)
            assert main(["validate", "-q", str(folder / "spec.yaml")]) == 0  # a read: it touches nothing
            assert capsys.readouterr().err == "" and snapshot(folder) == before
            assert main(["build", "-q", "--no-cache", "--formats", "json", "-o", str(tmp_path / f"elsewhere{k}"),
                         str(folder / "spec.yaml")]) == 0  # a build into another folder leaves this one alone
            assert snapshot(folder) == before
            store.recover(out, lambda line: print(line, file=sys.stderr))  # what the next build into it does first
            assert "restored the report" in capsys.readouterr().err
            assert title_of(out) == "old"
        else:
            assert title_of(out) in ("old", "new"), f"kill at step {k} ({ops[k - 1]})"
        assert main(argv) == 0, f"the build after a kill at step {k} ({ops[k - 1]})"
        assert title_of(out) == "new"
        assert leftovers(folder) == [], f"kill at step {k} left {leftovers(folder)}"
        assert sorted(p.name for p in folder.iterdir() if p.name != ".sigreport-cache") == ["out", "scores.csv", "spec.yaml"]
    if mode == "two renames":
        assert restored == 1, "exactly one step (between the renames) leaves no report at the path"


def test_stale_temporary_folders(cli, exp):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = exp.path / ".out.tmp-dead"
    stale.mkdir()
    (stale / store.PID_FILE).write_text(f"{dead.pid}\n")
    (stale / "results.json").write_text("{")
    orphan = exp.path / ".out.tmp-nopid"
    orphan.mkdir()
    alive = exp.path / ".out.tmp-alive"
    alive.mkdir()
    (alive / store.PID_FILE).write_text(f"{os.getppid()}\n")  # a live process that is not this build
    r = cli("build", "-o", exp.path / "out", exp.path / "spec.yaml")
    assert r.code == 0, r
    assert not stale.exists() and not orphan.exists() and alive.exists()
    assert f"removed {stale}, the unfinished report of a stopped build (pid {dead.pid})" in r.err
    assert f"removed {orphan}" in r.err


def test_leftover_previous_report_is_removed_or_restored(cli, exp):
    out = exp.path / "out"
    shutil.copytree(out, exp.path / ".out.old-999999999")  # stopped after the swap, before removing the old
    r = cli("build", "-o", out, exp.path / "spec.yaml")
    assert r.code == 0 and "removed" in r.err and leftovers(exp.path) == []
    out.rename(exp.path / ".out.old-999999999")  # stopped between the two renames
    r = cli("plan", exp.path / "spec.yaml")
    assert r.code == 0
    r = cli("validate", "-q", exp.path / "spec.yaml")
    assert r.code == 0 and r.err == ""  # plan targets the spec's own outputs.dir, not out: nothing to do there
    r = cli("build", "-o", out, exp.path / "spec.yaml")
    assert r.code == 0 and "restored the report" in r.err and title_of(out) == "old"
    assert leftovers(exp.path) == []


def test_validate_plan_power_and_analyze_create_rename_and_delete_nothing(cli, tmp_path, monkeypatch):
    """The reads leave the spec's folder and the output folder's parent as they were (names, sizes, times),
    with what stopped builds leave planted there (a previous report under its hidden name, and no report at
    the path: the swap's gap; an unfinished report of a dead build) and a user aggregate module (imported,
    it writes no __pycache__). The next build then cleans up, as it always did."""
    import sigreport

    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # Python writes bytecode unless sigreport stops it
    folder = tmp_path / "exp"
    folder.mkdir()
    (folder / "agg_reads_touch_nothing.py").write_text(
        "def precision(totals, n_items):\n    return totals[..., 0] / (totals[..., 0] + totals[..., 1])\n")
    rows = ["system,corpus,item,metric,value"] + [f"{s},c,i{i},{m},{(i + j) % 2}" for j, s in enumerate("AB")
                                                  for i in range(4) for m in ("tp", "fp")]
    (folder / "s.csv").write_text("\n".join(rows) + "\n")
    spec = folder / "spec.yaml"
    spec.write_text("title: t\ndata: {scores: s.csv}\nmetrics: {p: {higher_is_better: true, aggregate: "
                    "'agg_reads_touch_nothing:precision', statistics: [tp, fp]}}\n"
                    "tests: {pairwise: bootstrap, resamples: 99}\n")
    reports = folder / "reports"  # the default outputs.dir is reports/spec: the leftovers go beside it
    old = reports / ".spec.old-999999999"  # no such process: a stopped build's previous report
    old.mkdir(parents=True)
    (old / store.MARKER).write_text("")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    tmp = reports / ".spec.tmp-abcd1234"  # a stopped build's unfinished report
    tmp.mkdir()
    (tmp / store.PID_FILE).write_text(f"{dead.pid}\n")
    (tmp / "results.json").write_text("{")
    before = snapshot(folder)
    for args in (["validate", spec], ["plan", spec], ["power", spec, "--difference", "0.1"]):
        r = cli(*args)
        assert r.code == 0 and r.err == "", (args, r)
        assert snapshot(folder) == before, args
    sigreport.analyze(spec)
    sigreport.analyze(sigreport.load_spec(spec))
    assert snapshot(folder) == before
    assert "agg_reads_touch_nothing" in sys.modules  # the module was imported, and left no bytecode
    r = cli("build", "-q", spec)
    assert r.code == 0 and "restored the report" in r.err and f"removed {tmp}" in r.err
    assert sorted(p.name for p in reports.iterdir()) == ["spec"]


def test_exchange_swaps_two_folders(tmp_path):
    if not exchange_works(tmp_path):
        pytest.skip("renameat2(RENAME_EXCHANGE) is not available here")
    assert (tmp_path / "a").is_dir() and (tmp_path / "b" / "x").read_text() == "a"
    assert not (tmp_path / "a" / "x").exists()


def test_exchange_falls_back_where_unsupported(tmp_path, monkeypatch):
    import errno

    monkeypatch.setattr(store, "_RENAMEAT2", None)  # no renameat2 in the C library
    assert store.exchange(tmp_path / "a", tmp_path / "b") is False
    monkeypatch.setattr(store, "_RENAMEAT2", lambda *a: -1)
    monkeypatch.setattr(store.ctypes, "get_errno", lambda: errno.EINVAL)  # file system without RENAME_EXCHANGE
    assert store.exchange(tmp_path / "a", tmp_path / "b") is False
    monkeypatch.setattr(store.ctypes, "get_errno", lambda: errno.EACCES)  # a real failure is not hidden
    with pytest.raises(PermissionError):
        store.exchange(tmp_path / "a", tmp_path / "b")


# ---------------------------------------------------------------- lock


def hold_lock(dest: Path) -> int:
    fd = os.open(store.lock_path(dest), os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.write(fd, b"4242\n")
    return fd


def test_second_build_stops_while_another_holds_the_lock(cli, exp):
    out = exp.path / "out"
    exp.write("spec.yaml", spec_text("new"))
    fd = hold_lock(out)
    try:
        r = cli("build", "-o", out, exp.path / "spec.yaml")
        assert r.code == 2 and "Traceback" not in r.err
        assert f"another sigreport build is writing {out} (pid 4242); try again when it finishes" in r.err
        r = cli("build", "--wait", "0.3", "-o", out, exp.path / "spec.yaml")
        assert r.code == 2 and "another sigreport build" in r.err
        assert store.lock_path(out).exists(), "the other build's lock file is left alone"
        assert title_of(out) == "old" and leftovers(exp.path) == [".out.lock"]
    finally:
        os.close(fd)
    assert cli("build", "-q", "-o", out, exp.path / "spec.yaml").code == 0
    assert title_of(out) == "new" and leftovers(exp.path) == []


def test_second_build_waits_for_the_first(cli, exp, monkeypatch):
    out = exp.path / "out"
    exp.write("spec.yaml", spec_text("new"))
    fd = hold_lock(out)
    naps: list[float] = []

    def nap(seconds: float) -> None:  # the first build finishes while the second one waits
        naps.append(seconds)
        if len(naps) == 3:
            os.close(fd)

    monkeypatch.setattr(store.time, "sleep", nap)
    r = cli("build", "-q", "--wait", "30", "-o", out, exp.path / "spec.yaml")
    assert r.code == 0 and len(naps) == 3, (r, naps)
    assert title_of(out) == "new" and leftovers(exp.path) == []


def test_lock_held_by_another_process(cli, exp):
    out = exp.path / "out"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import fcntl, os, sys
        fd = os.open({str(store.lock_path(out))!r}, os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, str(os.getpid()).encode())
        print("locked", flush=True)
        sys.stdin.readline()
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        r = cli("build", "-o", out, exp.path / "spec.yaml")
        assert r.code == 2 and f"another sigreport build is writing {out} (pid {holder.pid})" in r.err
    finally:
        holder.communicate("done\n")
    assert title_of(out) == "old"
    assert cli("build", "-q", "-o", out, exp.path / "spec.yaml").code == 0  # a dead holder's lock is free


def test_two_concurrent_builds_never_fail_with_a_bug(exp):
    argv = [sys.executable, "-c", "import sys; from sigreport.cli import main; sys.exit(main(sys.argv[1:]))",
            "build", "-q", "-o", str(exp.path / "out"), str(exp.path / "spec.yaml")]
    procs = [subprocess.Popen(argv, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(), p.stderr.read()) for p in procs]
    for code, err in results:
        assert code in (0, 2) and "Traceback" not in err, err
        assert code == 0 or "another sigreport build is writing" in err
    assert 0 in [c for c, _ in results]
    assert title_of(exp.path / "out") == "old" and leftovers(exp.path) == []


@pytest.mark.parametrize("kind", ["symbolic link", "hard link"])
def test_a_lock_file_that_is_a_link_is_refused_and_its_target_kept(cli, exp, kind):
    """The lock is opened with O_NOFOLLOW and must be a plain file with one name: a link planted at
    ``.out.lock`` (to a file the lock would truncate when it records its pid) stops the build, exit 2."""
    out = exp.path / "out"
    exp.write("spec.yaml", spec_text("new"))
    victim = exp.write("thesis.tex", "my thesis")
    (os.symlink if kind == "symbolic link" else os.link)(victim, store.lock_path(out))
    r = cli("build", "-o", out, exp.path / "spec.yaml")
    assert r.code == 2 and "Traceback" not in r.err, r.err
    assert f"the lock file {store.lock_path(out)} is" in r.err and "never through a link" in r.err
    assert victim.read_text() == "my thesis" and os.path.lexists(store.lock_path(out))
    assert title_of(out) == "old"


# ---------------------------------------------------------------- OS errors on the output side


def test_read_only_parent_simulated(cli, exp, monkeypatch):
    out = exp.path / "out"

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied", str(exp.path))

    monkeypatch.setattr(tempfile, "mkdtemp", refuse)
    r = cli("build", "-o", out, exp.path / "spec.yaml")
    assert r.code == 2 and "Traceback" not in r.err
    assert f"{exp.path}: Permission denied" in r.err
    assert title_of(out) == "old" and leftovers(exp.path) == []


def test_read_only_parent_simulated_at_the_lock(cli, exp, monkeypatch):
    out = exp.path / "out"

    def refuse(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(store, "_try_lock", refuse)
    r = cli("build", "-o", out, exp.path / "spec.yaml")
    assert r.code == 2 and "Traceback" not in r.err
    assert f"  {exp.path}: Permission denied" in r.err and ".lock" not in r.err
    assert title_of(out) == "old"


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_parent_real(cli, exp):
    ro = exp.path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        r = cli("build", "-o", ro / "out", exp.path / "spec.yaml")
        assert r.code == 2 and "Permission denied" in r.err and "Traceback" not in r.err
    finally:
        ro.chmod(0o755)


def test_output_below_a_file_or_a_file(cli, exp):
    r = cli("build", "-o", exp.path / "spec.yaml" / "sub" / "out", exp.path / "spec.yaml")
    assert r.code == 2 and f"{exp.path / 'spec.yaml'} is a file, so no folder can be made below it" in r.err
    note = exp.write("note.txt", "mine")
    r = cli("build", "-o", note, exp.path / "spec.yaml")
    assert r.code == 2 and f"{note} is a file" in r.err and note.read_text() == "mine"
    assert "Traceback" not in r.err


def test_full_disk_keeps_the_previous_report(exp):
    out = exp.path / "out"
    exp.write("spec.yaml", spec_text("new"))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    limit = 2000  # bytes; index.html is larger, so the write fails with EFBIG
    assert max(len(b) for b in before.values()) > limit
    script = textwrap.dedent(f"""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
        from sigreport.cli import main
        sys.exit(main(["build", "-o", {str(out)!r}, {str(exp.path / "spec.yaml")!r}]))
        """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert r.returncode == 2, r.stderr
    assert "File too large" in r.stderr and "the previous report is unchanged" in r.stderr
    assert "Traceback" not in r.stderr and ".tmp-" not in r.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert leftovers(exp.path) == []


def test_schema_output_errors(cli, tmp_path, monkeypatch):
    r = cli("schema", "-o", tmp_path)
    assert r.code == 2 and f"{tmp_path} is a folder" in r.err
    r = cli("schema", "-o", tmp_path / "missing" / "s.json")
    assert r.code == 2 and f"{tmp_path / 'missing'} is not an existing folder" in r.err
    assert cli("schema", "-o", tmp_path / "s.json").code == 0
    assert json.loads((tmp_path / "s.json").read_text())["$schema"].startswith("https://json-schema.org")

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied", str(tmp_path / ".s.json.tmp-x"))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    r = cli("schema", "-o", tmp_path / "t.json")
    assert r.code == 2 and f"{tmp_path / 't.json'}: Permission denied" in r.err and "Traceback" not in r.err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


def test_schema_output_keeps_devices_and_links(cli, tmp_path):
    """``schema -o`` onto a FIFO (as onto /dev/null or /dev/stdout) writes through it instead of renaming
    a regular file over it, and onto a symbolic link replaces the link's target, keeping the link. (A
    rename over /dev/null once turned the device into a regular file on this machine.)"""
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    assert cli("schema", "-o", fifo).code == 0
    reader.join(10)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert json.loads(got[0])["$schema"].startswith("https://json-schema.org")
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]  # no temporary file left beside it

    target = tmp_path / "shared.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert cli("schema", "-o", link).code == 0
    assert link.is_symlink() and json.loads(target.read_text())["$schema"].startswith("https://json-schema")
