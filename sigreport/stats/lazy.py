"""scipy.stats on first use: importing it is a large share of start-up, which ``validate``, ``schema`` and
builds whose tests never reach it should not pay.

``from sigreport.stats.lazy import scipy_stats as sps`` gives an object whose attributes are
``scipy.stats``'s own (``sps.t.sf`` *is* ``scipy.stats.t.sf``), imported the first time one is read:
the numbers are scipy's, unchanged.
"""

from __future__ import annotations

import importlib
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


scipy_stats: Any = LazyModule("scipy.stats")
scipy_special: Any = LazyModule("scipy.special")
