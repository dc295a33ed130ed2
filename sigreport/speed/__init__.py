"""Code that exists only for speed, behind one switch: the plain path gives the same bytes.

Every trick below has a plain counterpart that is the obvious code; ``SIGREPORT_PLAIN=1`` in the
environment, or ``sigreport.build(..., plain=True)`` / ``sigreport.analyze(..., plain=True)``, runs the plain
one everywhere (tests/speed/test_speed.py builds every example both ways and compares the files byte for byte).

=========================  ===========================================  ====================================
trick (module)             what it buys                                 plain path
=========================  ===========================================  ====================================
:mod:`.workers`            figures drawn in forked workers (made ready  figures drawn in this process;
                           while the data is read), results.json        results.json written here
                           written by a forked process while the
                           report renders (``--jobs`` 2 or more)
:mod:`.collector`          ``gc.freeze`` of what a build keeps, only    the collector left alone;
                           where the command line owns the process;     ``sys.exit``
                           the console script's exit without the last
                           full collection (``exit_process``)
:mod:`.mpl`                font subsets and text measurements kept per  matplotlib's ``savefig`` as it is
                           process (two private matplotlib functions
                           wrapped while a figure is exported)
:mod:`.scipy_private`      scipy's compiled Shapiro-Wilk loaded from    ``scipy.stats.shapiro`` per pair;
                           its file (no ``scipy.stats`` import); the    ``scipy.stats.studentized_range.sf``
                           studentized range's QUADPACK call made
                           directly
:mod:`.json_text`          results.json written in one pass             ``json.dumps(..., indent=2)``
:mod:`.imports`            scipy.stats imported in a thread while the   imported at first use
                           data is read
:mod:`.blas`               BLAS held to one thread in the serial        BLAS as the process has it
                           executor
:mod:`.entry_points`       the plugins' entry points without            ``importlib.metadata.entry_points``
                           importlib.metadata's scan when no
                           distribution's entry_points.txt names the
                           group
=========================  ===========================================  ====================================

Each module's functions decide by :func:`is_plain` themselves, so a caller never tests the switch.
Library calls (``sigreport.build`` from a notebook) leave the host's garbage collector, threads, BLAS
threads and signal handlers as they found them, on both paths (tests/speed/test_speed.py).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator

PLAIN_ENV = "SIGREPORT_PLAIN"

_PLAIN: contextvars.ContextVar[bool] = contextvars.ContextVar("sigreport_plain", default=False)
_OWNED: contextvars.ContextVar[bool] = contextvars.ContextVar("sigreport_owned", default=False)


def is_plain() -> bool:
    """Whether the plain path runs: ``SIGREPORT_PLAIN`` set to anything but empty or ``0``, or inside
    :func:`plain_path`. Read at each use, so it holds in worker processes forked within too."""
    return _PLAIN.get() or os.environ.get(PLAIN_ENV, "") not in ("", "0")


@contextlib.contextmanager
def plain_path(on: bool = True) -> Iterator[None]:
    """Within the block, the plain path runs when ``on`` (``False`` leaves the environment's choice)."""
    token = _PLAIN.set(_PLAIN.get() or on)
    try:
        yield
    finally:
        _PLAIN.reset(token)


@contextlib.contextmanager
def owned_process() -> Iterator[None]:
    """Within the block, this process is sigreport's own (the command line): the tricks that change the
    process for the length of a build (:mod:`.collector`) may run. A library call never enters it."""
    token = _OWNED.set(True)
    try:
        yield
    finally:
        _OWNED.reset(token)


def owns_process() -> bool:
    """Whether the code runs inside :func:`owned_process`."""
    return _OWNED.get()
