"""scipy.stats on first use: importing it costs ~0.5-1.5 s of start-up, which ``validate``, ``schema`` and
builds whose tests never reach it should not pay.

``from sigreport.stats.lazy import scipy_stats as sps`` gives an object whose attributes are
``scipy.stats``'s own (``sps.t.sf`` *is* ``scipy.stats.t.sf``), imported the first time one is read:
the numbers are scipy's, unchanged.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any


class LazyModule:
    """A module imported the first time one of its attributes is read."""

    def __init__(self, name: str):
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"

    def prefetch(self) -> Callable[[], None]:
        """Begin importing the module in a background thread and return the function that waits for it.

        Why: importing scipy.stats costs ~0.6 CPU-s, and a build that needs it (Friedman's post-hoc tests)
        would pay it in every worker process. Imported while the data is read (pyarrow's CSV reader and
        numpy mostly run outside the GIL), it costs a third of that, once, and forked workers inherit it.
        Wait before forking (a child must not inherit a half-done import). A failed import is left to the
        first use, which raises it as it always did."""
        if self._module is not None or self._name in sys.modules:
            return lambda: None
        thread = threading.Thread(target=self._import_quietly, name=f"import {self._name}", daemon=True)
        thread.start()
        return thread.join

    def _import_quietly(self) -> None:
        try:
            self._module = importlib.import_module(self._name)
        except Exception:  # noqa: BLE001 - raised again at the first attribute read
            pass


scipy_stats: Any = LazyModule("scipy.stats")
scipy_special: Any = LazyModule("scipy.special")
