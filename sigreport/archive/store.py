"""The file-system rules for writing one report folder, kept in one place so they can be proved.

Promises (each has a test in ``tests/archive/test_store.py``):

* A build never removes a file it did not write. The output folder may not be, or contain, any input
  of the build (:func:`check_inputs_outside`); an existing folder is replaced only when it is a
  sigreport report whose marker file lists every file in it (:func:`check_destination`).
* A reader always finds a complete report at the path, old or new. The report is written into a
  hidden temporary folder beside the destination and swapped in with one atomic
  ``renameat2(RENAME_EXCHANGE)`` where the kernel and file system offer it; elsewhere with two renames
  (destination -> ``.NAME.old-PID``, temporary -> destination), whose one gap the next build closes by
  :func:`recover`.
* Builds into one folder never interleave: an ``flock`` on ``.NAME.lock`` beside the destination
  (:func:`locked`); the second build waits up to ``--wait`` seconds, then exits 2.
* Operating-system errors on the output side are user errors naming the path and the reason
  (:class:`OutputError`), and leave the previous report as it was.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import glob
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar

from sigreport import forking
from sigreport.errors import Problem, UserError

MARKER = ".sigreport-report"
"""Marker file of a report: a version line, then every file the build wrote, one relative path a line."""
PID_FILE = ".sigreport-pid"
"""Inside a temporary folder while it is being written: the writing process, so a dead one's folder is found."""
OLD_OWN_FILES = ("results.json", "index.html", "report.pdf", "methods.md")
"""With ``tables/*``, ``figures/*`` and ``main.*``: what a report written before markers listed their files
may hold (anything else there is the user's)."""
MAX_NAMED = 5
RENAME_EXCHANGE = 2
AT_FDCWD = -100
Say = Callable[[str], None]
T = TypeVar("T")


class OutputError(UserError):
    """The report cannot be written where asked: a user error (exit 2), never a traceback."""

    kind = "output"

    def render(self) -> str:
        return "\n".join([f"error: cannot write {self.source}"] + [f"  {p.render()}" for p in self.problems])


def refuse(dest: Path, message: str) -> OutputError:
    return OutputError(str(dest), [Problem(str(dest), None, "", message)])


def os_error(path: Path, exc: OSError, after: str = "", tmp: Path | None = None) -> OutputError:
    """An OSError as a one-line user error: the path it concerns and the system's reason.

    A path inside the temporary folder ``tmp`` is shown as the report path it was going to become.
    """
    where = str(exc.filename) if exc.filename else str(path)
    if tmp is not None and (where == str(tmp) or where.startswith(str(tmp) + os.sep)):
        where = str(path) + where[len(str(tmp)):]
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    return refuse(path, f"{where}: {reason}{after}")


# ---------------------------------------------------------------- what may be replaced


def contains(folder: Path, path: Path) -> bool:
    """Whether ``path`` is ``folder`` or lies below it (also through another spelling of the same folder)."""
    folder, path = Path(os.path.realpath(folder)), Path(os.path.realpath(path))
    if folder == path or folder in path.parents:
        return True
    try:
        st = os.stat(folder)
    except OSError:
        return False
    for p in (path, *path.parents):  # same folder under another name (case-insensitive disk, bind mount)
        with contextlib.suppress(OSError):
            ps = os.stat(p)
            if (ps.st_dev, ps.st_ino) == (st.st_dev, st.st_ino):
                return True
    return False


def check_inputs_outside(dest: Path, inputs: Iterable[Path]) -> None:
    """Refuse an output folder that is, or holds, a file or folder the build reads.

    Replacing the folder would delete that input (the spec beside ``outputs.dir: '.'``, a table kept
    inside the previous report), so this is an error, never a silent skip.
    """
    problems = []
    for inp in dict.fromkeys(Path(p) for p in inputs):
        if contains(dest, inp):
            what = "is" if Path(os.path.realpath(dest)) == Path(os.path.realpath(inp)) else "contains"
            problems.append(Problem(str(dest), None, "",
                                    f"the output folder {what} {inp}, which this build reads; a build replaces the "
                                    "whole folder, so choose an output folder (-o or outputs.dir) that holds "
                                    "no input"))
    if problems:
        raise OutputError(str(dest), problems)


def listed_files(dest: Path) -> set[str] | None:
    """Files the marker says the build wrote; None for a marker from before markers listed files."""
    lines = (dest / MARKER).read_text(encoding="utf-8", errors="replace").splitlines()
    files = {ln.strip() for ln in lines[1:] if ln.strip()}
    return files or None


def foreign_files(dest: Path) -> list[str]:
    """Entries of the report ``dest`` that no sigreport build wrote (relative paths, sorted; folders end in /)."""
    listed = listed_files(dest)
    own_dirs = {p.as_posix() for f in (listed or ()) for p in Path(f).parents}
    out = []
    for root, dirs, files in os.walk(dest):
        base = Path(root)
        rel_root = base.relative_to(dest)
        for name in files + [d for d in dirs if (base / d).is_symlink()]:
            rel = (rel_root / name).as_posix()
            if rel != MARKER and not is_own(rel, listed):
                out.append(rel)
        for d in dirs:
            rel = (rel_root / d).as_posix()
            empty = not (base / d).is_symlink() and not os.listdir(base / d)
            if empty and (rel not in own_dirs if listed is not None else d not in ("tables", "figures")):
                out.append(rel + "/")
    return sorted(out)


def is_own(rel: str, listed: set[str] | None) -> bool:
    """Whether the report's file ``rel`` was written by sigreport: listed in the marker, or (for a marker
    from before listings) one of the names a report holds."""
    if listed is not None:
        return rel in listed
    head, _, rest = rel.partition("/")
    if rest:
        return head in ("tables", "figures") and "/" not in rest
    return rel in OLD_OWN_FILES or rel.startswith("main.")


def check_destination(dest: Path) -> None:
    """Refuse to replace anything but a sigreport report holding only files sigreport wrote."""
    if not os.path.lexists(dest):
        return
    if not dest.is_dir():
        raise refuse(dest, f"{dest} is a file; sigreport writes a report folder there only when the path is free "
                           "or holds one of its own reports: choose another output folder (-o)")
    try:
        if not (dest / MARKER).is_file():
            if any(dest.iterdir()):
                raise refuse(dest, f"{dest} is a non-empty folder that is not a sigreport report; sigreport replaces "
                                   "only its own reports: choose another output folder (-o)")
            return
        foreign = foreign_files(dest)
    except OSError as exc:
        raise os_error(dest, exc) from None
    if foreign:
        shown = ", ".join(foreign[:MAX_NAMED]) + (f" and {len(foreign) - MAX_NAMED} more" if len(foreign) > MAX_NAMED
                                                  else "")
        raise refuse(dest, f"the report folder {dest} holds {len(foreign)} file{'s' if len(foreign) != 1 else ''} "
                           f"sigreport did not write ({shown}); a rebuild replaces the whole folder and never "
                           "deletes your files: move them out, then build again")


# ---------------------------------------------------------------- lock


def check_parent(dest: Path) -> None:
    """Refuse an output path below a file (no folder can be made there), naming that file."""
    for p in Path(os.path.abspath(dest)).parents:
        if os.path.lexists(p):
            if not p.is_dir():
                raise refuse(dest, f"{p} is a file, so no folder can be made below it: choose another output "
                                   "folder (-o)")
            return


def lock_path(dest: Path) -> Path:
    return dest.parent / f".{dest.name}.lock"


def _holder(path: Path) -> str:
    with contextlib.suppress(OSError, ValueError):
        return f"pid {int(path.read_text().strip())}"
    return "pid unknown"


class LockRefused(OSError):
    """The lock path is a symbolic link or not a plain file of its own: nothing is opened through it."""


def _open_lock(path: Path) -> int:
    """Open (or create) the lock file without following a symbolic link; refuse anything but a regular file
    with one name (a hard link to another file would be truncated when the lock records its holder)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise LockRefused(errno.ELOOP, "is a symbolic link", str(path)) from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
        os.close(fd)
        raise LockRefused(errno.EPERM, "is not a plain file of its own", str(path))
    return fd


def _try_lock(path: Path) -> int | None:
    """An fd holding the lock on the file now at ``path``, or None when another process holds it."""
    while True:
        fd = _open_lock(path)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        try:  # a finishing build unlinks the file it held: then lock the new one at the path
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)


def _took_over(path: Path, fd: int, say: Say | None) -> None:
    """Say that the lock just taken was a stopped build's: a finishing build unlinks its lock file, so a
    pid still in it is that of a build that was killed (its lock went with its processes)."""
    with contextlib.suppress(OSError, ValueError):
        pid = int(os.pread(fd, 32, 0).decode().strip())
        if say is not None and pid != os.getpid():
            say(f"sigreport: took over the lock {path} of a build that was stopped (pid {pid})")


@contextlib.contextmanager
def locked(dest: Path, wait: float = 0.0, say: Say | None = None, what: str = "") -> Iterator[None]:
    """Hold ``.NAME.lock`` beside ``dest`` (never inside the user's folder) for one build.

    ``flock`` dies with its process, and the processes the build forks close their copy of the
    descriptor (:func:`sigreport.forking.not_inherited`), so a killed build never leaves the folder
    locked; the next build says it took the lock over. The file is unlinked while still held, and
    :func:`_try_lock` re-checks the inode, so removal cannot race. ``what``: what the refusal says is being
    written (default: ``dest``).
    """
    path = lock_path(dest)
    check_parent(dest)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + max(wait, 0.0)
        while (fd := _try_lock(path)) is None:
            if time.monotonic() >= deadline:
                raise refuse(dest, f"another sigreport build is writing {what or dest} ({_holder(path)}); "
                                   "try again when it finishes (or pass --wait SECONDS)")
            time.sleep(0.05)
    except LockRefused as exc:
        raise refuse(dest, f"the lock file {path} {exc.strerror}; sigreport opens its lock only as a plain file "
                           "of its own, never through a link: remove it, then build again") from None
    except OSError as exc:
        if exc.filename == str(path):  # the lock file is ours; the folder is what the user can fix
            exc.filename = str(dest.parent)
        raise os_error(dest, exc) from None
    try:
        _took_over(path, fd, say)
        try:  # who holds it, for the message of a build that has to wait
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError as exc:
            raise os_error(dest, exc) from None
        with forking.not_inherited(fd):  # a worker forked while it is held must not hold it (flock is shared)
            yield
    finally:
        try:
            os.unlink(path)
        finally:
            os.close(fd)


# ---------------------------------------------------------------- recovery


def _pid_alive(pid: int | None) -> bool:
    """Whether a process that may still be writing owns a leftover (our own pid never: we hold the lock)."""
    if pid is None or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _tmp_pid(tmp: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int((tmp / PID_FILE).read_text().strip())
    return None


def _old_pid(old: Path) -> int | None:
    with contextlib.suppress(ValueError):
        return int(old.name.rsplit("-", 1)[-1])
    return None


def leftovers(dest: Path, kind: str) -> list[Path]:
    """``.NAME.old-*`` or ``.NAME.tmp-*`` folders beside ``dest``."""
    return sorted(Path(p) for p in glob.glob(str(dest.parent / f".{glob.escape(dest.name)}.{kind}-*"))
                  if os.path.isdir(p) and not os.path.islink(p))


def recover(dest: Path, say: Say) -> None:
    """Undo what a killed build left (call with the lock held); say one line per action.

    A build killed between its two renames left the previous report as ``.NAME.old-PID`` and no
    ``NAME``: put it back. Temporary and old folders of dead builds are removed; they hold only files
    a build wrote (the old report passed :func:`check_destination` before it was moved aside).
    """
    try:
        _recover(dest, say)
    except OSError as exc:
        raise os_error(dest, exc, "; could not clean up after a stopped build") from None


def _recover(dest: Path, say: Say) -> None:
    olds = [o for o in leftovers(dest, "old") if not _pid_alive(_old_pid(o))]
    whole = [o for o in olds if (o / MARKER).is_file()]  # a removal stopped half way took the marker too
    if whole and not os.path.lexists(dest):
        back = max(whole, key=lambda o: o.stat().st_mtime)
        os.rename(back, dest)
        olds.remove(back)
        say(f"sigreport: restored the report {dest} from {back.name}, left by a build that was stopped while "
            "swapping it")
    for o in olds:
        shutil.rmtree(o)
        say(f"sigreport: removed {o}, the previous report left behind by a build that was stopped")
    for t in leftovers(dest, "tmp"):
        pid = _tmp_pid(t)
        if not _pid_alive(pid):
            shutil.rmtree(t)
            say(f"sigreport: removed {t}, the unfinished report of a stopped build"
                + (f" (pid {pid})" if pid is not None else ""))


# ---------------------------------------------------------------- write and swap


def _load_renameat2() -> Callable[..., int] | None:
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_RENAMEAT2 = _load_renameat2()


def exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux ``renameat2(RENAME_EXCHANGE)``); False where unsupported."""
    if _RENAMEAT2 is None:
        return False
    if _RENAMEAT2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def swap(tmp: Path, dest: Path) -> None:
    """Put the finished ``tmp`` at ``dest``; whatever is killed when, the path holds a whole report
    (exchange) or :func:`recover` makes it so (two renames)."""
    if not os.path.lexists(dest):
        os.rename(tmp, dest)
    elif exchange(tmp, dest):
        shutil.rmtree(tmp, ignore_errors=True)  # now the previous report; a leftover goes at the next build
    else:
        old = dest.parent / f".{dest.name}.old-{os.getpid()}"
        os.rename(dest, old)
        try:
            os.rename(tmp, dest)
        except BaseException:
            os.rename(old, dest)
            raise
        shutil.rmtree(old, ignore_errors=True)


def write_marker(folder: Path, version: str) -> None:
    """List every file in ``folder`` (what this build wrote) in the marker, sorted, after a version line."""
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir())
    text = f"sigreport {version}\n" + "".join(f"{f}\n" for f in files if f not in (MARKER, PID_FILE))
    (folder / MARKER).write_text(text, encoding="utf-8")


def write_report_folder(dest: Path, fill: Callable[[Path], T], say: Say, version: str) -> T:
    """Write a report with ``fill(folder)`` and swap it in at ``dest``; returns what ``fill`` returns.

    Call with the lock held. On any failure the temporary folder is removed and ``dest`` is as it
    was; OS errors become :class:`OutputError`.
    """
    recover(dest, say)
    check_destination(dest)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.tmp-", dir=dest.parent))
    except OSError as exc:
        raise os_error(dest.parent, exc) from None
    try:
        (tmp / PID_FILE).write_text(f"{os.getpid()}\n", encoding="utf-8")
        out = fill(tmp)
        write_marker(tmp, version)
        check_destination(dest)  # again: the user may have dropped a file there while we computed
        os.unlink(tmp / PID_FILE)
        os.chmod(tmp, 0o755)
        swap(tmp, dest)
        return out
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise os_error(dest, exc, "; the previous report is unchanged", tmp) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def write_text_file(path: Path, text: str) -> None:
    """Write one file whole or not at all (a temporary file beside it, then rename); OS errors are user errors.

    A symbolic link is followed (its target is replaced, the link stays). A destination that exists and is
    not a regular file (``/dev/null``, ``/dev/stdout``, a FIFO) is written in place: renaming over it would
    replace the device itself with a regular file.
    """
    path = Path(path)
    if path.is_symlink():
        path = path.resolve()
    if path.exists() and not path.is_dir() and not stat.S_ISREG(path.stat().st_mode):
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        except OSError as exc:
            exc.filename = None
            raise os_error(path, exc) from None
        return
    if path.is_dir():
        raise refuse(path, f"{path} is a folder; give a file name")
    if not path.parent.is_dir():
        raise refuse(path, f"{path.parent} is not an existing folder")
    tmp = None
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.tmp-", dir=path.parent)
        tmp = Path(name)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        exc.filename = None
        raise os_error(path, exc) from None
