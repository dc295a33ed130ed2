"""A module imported in a background thread while the build reads its data.

Importing ``scipy.stats`` (Friedman's post-hoc tests) or ``scipy.special`` (the t and F distributions) is a
noticeable share of a build that needs it (:func:`sigreport.analyses.imports_ahead` names the module), and
every worker process forked before the import would pay it again. Imported while the data is read
(pyarrow's CSV reader and numpy mostly run outside the GIL), it costs less, once, and forked workers
inherit it. The caller waits for the thread before it forks (a child must not inherit a half-done import)
and before it returns, so no thread outlives the call.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable

from sigreport.speed import is_plain


def prefetch(name: str) -> Callable[[], None]:
    """Begin importing module ``name`` in a background thread and return the function that waits for it.
    Nothing is started on the plain path or when the module is imported already; a failed import is left to
    the first use, which raises it as it always did."""
    if is_plain() or name in sys.modules:
        return lambda: None
    thread = threading.Thread(target=_import_quietly, args=(name,), name=f"import {name}", daemon=True)
    thread.start()
    return thread.join


def _import_quietly(name: str) -> None:
    try:
        importlib.import_module(name)
    except Exception:  # noqa: BLE001 - raised again at the first use
        pass
