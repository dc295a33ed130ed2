"""What a build keeps, left out of the cyclic garbage collector's full passes (``gc.freeze``).

A full pass walks every tracked object, and a large build holds millions (the data, its records, their
pairs and views): the passes the growing heap triggers cost the main process, and every forked worker,
which inherits the heap, a noticeable share of the build (frozen objects are also not written to by the
collector there, so their pages stay shared). Nothing is lost: frozen objects are still freed when their
last reference goes; only cycles among them wait for the end of the build.

Only where sigreport owns the process (the command line, :func:`sigreport.speed.owned_process`) and not
on the plain path: a library call (``sigreport.build`` from a notebook) leaves the host's collector as it
found it, its generations included (``gc.unfreeze`` would put the host's young objects into the oldest
generation). A caller that froze objects itself (the freeze-before-fork pattern of a preloading server)
is left alone too, and so is a build inside another (the outer one unfreezes).
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import sys
from collections.abc import Iterator
from typing import NoReturn

from sigreport.speed import is_plain, owns_process

_KEEPING: contextvars.ContextVar[bool] = contextvars.ContextVar("sigreport_keeping", default=False)


@contextlib.contextmanager
def long_lived() -> Iterator[None]:
    """Within: what exists when :func:`keep` is called is frozen (see the module docstring); after:
    ``gc.unfreeze``. Does nothing on the plain path, outside :func:`~sigreport.speed.owned_process`, when
    the process has frozen objects already, or inside another :func:`long_lived`."""
    if _KEEPING.get() or is_plain() or not owns_process() or gc.get_freeze_count():
        yield
        return
    token = _KEEPING.set(True)
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
        _KEEPING.reset(token)


def keep() -> None:
    """Mark the objects that now exist as long-lived, inside a :func:`long_lived` that froze."""
    if _KEEPING.get():
        gc.freeze()


def exit_process(code: int) -> NoReturn:
    """End the command line's process with exit ``code``, its last full collection skipped: what remains is
    frozen first (``gc.freeze``), so the interpreter's final pass does not walk it.

    Why: a large build leaves hundreds of thousands of objects in cycles (records, views, cells) that the
    collector only meets at exit; that pass cost 0.3-0.45 s of the 1M-row build (docs/performance.md), for memory the
    operating system takes back at once. Everything else of a normal exit still happens (atexit handlers,
    buffered files flushed, objects freed by their counts). Only for the process the command line owns (its
    console script and ``python -m sigreport.cli``, never :func:`sigreport.cli.main` called in-process);
    on the plain path a plain ``sys.exit``."""
    if not is_plain():
        gc.freeze()
    sys.exit(code)


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Within: no automatic collector passes (``gc.disable``; the earlier state back on exit). For code that
    makes a great many objects and no cycles, such as parsing JSON: a JSON document is a tree of dicts, lists
    and scalars, so no garbage waits for the collector, and each pass the growing heap triggers walks every
    object made so far. Reading lm-eval's 120,000 sample lines cost 2.5 CPU-s with the passes and 1.1 without
    (docs/performance.md). Nothing on the plain path."""
    if is_plain() or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
