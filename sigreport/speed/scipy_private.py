"""scipy's compiled routines called without the public wrappers' cost; the same routines, the same floats.

- :func:`swilk`: the Shapiro-Wilk core (``swilk``, what ``scipy.stats.shapiro`` calls), loaded from its
  compiled module's file when ``scipy.stats`` is not imported yet: importing ``scipy.stats`` builds every
  distribution's docstring, which a small build would pay for nothing else.
- :func:`studentized_range_sf_inf`: ``scipy.stats.studentized_range.sf(q, k, inf)`` by calling QUADPACK's
  ``qagie`` on scipy's own compiled integrand once per q, without ``nquad``/``quad`` set up per value.

Both use scipy internals (private module names); each returns None on the plain path
(:func:`sigreport.speed.is_plain`) and wherever this scipy does not have them, and the caller then uses
scipy's public function (tests/stats/test_differences.py and tests/stats/test_posthoc_speed.py compare the
two exactly).
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from typing import Any

import numpy as np

from sigreport.speed import is_plain

SWILK_MODULE = "scipy.stats._ansari_swilk_statistics"  # the compiled routine scipy.stats.shapiro calls


def swilk() -> Any:
    """scipy's ``swilk(y, a, init)`` routine, or None (the plain path, or a scipy without it under that name)."""
    return None if is_plain() else _swilk()


@functools.lru_cache(maxsize=1)
def _swilk() -> Any:
    """When ``scipy.stats`` is not loaded yet, the compiled module is loaded from its file on its own (it
    imports only numpy); anything unexpected falls back to the ordinary import."""
    if "scipy.stats" not in sys.modules:
        found = _swilk_from_file()
        if found is not None:
            return found
    try:
        module = importlib.import_module(SWILK_MODULE)
    except ImportError:  # pragma: no cover - other scipy layouts
        return None
    return getattr(module, "swilk", None)


def _swilk_from_file() -> Any:
    """``swilk`` loaded from scipy's compiled module file without importing ``scipy.stats``, or None."""
    if SWILK_MODULE in sys.modules:
        return getattr(sys.modules[SWILK_MODULE], "swilk", None)
    try:
        import scipy

        folder = Path(scipy.__file__).parent / "stats"
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = folder / f"_ansari_swilk_statistics{suffix}"
            if path.is_file():
                spec = importlib.util.spec_from_file_location(SWILK_MODULE, path)
                if spec is None or spec.loader is None:
                    return None
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                return getattr(module, "swilk", None)
    except Exception:  # pragma: no cover - an unexpected scipy build: the ordinary import is used
        return None
    return None


def studentized_range_sf_inf(q: np.ndarray, k: int) -> np.ndarray | None:
    """``scipy.stats.studentized_range.sf(q, k, np.inf)`` of a float64 array, the same floats, or None (the
    plain path, or a scipy without these internals).

    For 0 < q < inf scipy computes ``1 - clip(I(q), 0, 1)``, where I(q) is ``nquad`` of its compiled integrand
    ``_studentized_range_cdf_asymptotic`` (user data ``[q, k]``) over the real line with epsabs 1e-11 and
    epsrel 1e-12, which is one ``quad``, which is QUADPACK's ``qagie`` (bound 0, both ends infinite, limit
    50). That routine is called here directly, with one integrand whose user data is updated per q. Any
    other q, or an integral QUADPACK flags (where scipy would warn), goes through scipy.stats itself.
    """
    if is_plain():
        return None
    q = np.asarray(q, dtype=np.float64)
    try:
        import ctypes

        from scipy import LowLevelCallable
        from scipy.integrate import _quadpack
        from scipy.stats import _stats, studentized_range

        data = np.array([0.0, float(k)])
        integrand = LowLevelCallable.from_cython(_stats, "_studentized_range_cdf_asymptotic",
                                                 data.ctypes.data_as(ctypes.c_void_p))
    except (ImportError, AttributeError, ValueError):  # pragma: no cover - other scipy layouts
        return None
    out = np.empty(q.shape)
    direct = np.isfinite(q) & (q > 0) & (k > 1)
    for i in np.flatnonzero(direct):
        data[0] = q[i]
        value, _, ier = _quadpack._qagie(integrand, 0, 2, (), 0, 1e-11, 1e-12, 50)
        if ier != 0:
            direct[i] = False
            continue
        out[i] = 1.0 - min(max(float(value), 0.0), 1.0)
    if not direct.all():
        out[~direct] = np.asarray(studentized_range.sf(q[~direct], k, np.inf), dtype=np.float64)
    return out


def unwrapped(fn: Any) -> Any:
    """The function under a scipy.stats function's axis/nan-policy wrapper (``fn.__wrapped__``), or None on
    the plain path. For a finite 1-d float array the wrapper only passes the same array on."""
    return None if is_plain() else getattr(fn, "__wrapped__", None)


def nct_sf() -> Any:
    """scipy.special's ``_nct_sf`` ufunc, the one ``scipy.stats.nct.sf`` calls (without importing
    ``scipy.stats``), or None on the plain path or where this scipy has none under that name."""
    if is_plain():
        return None
    try:
        from scipy.special import _ufuncs
    except ImportError:  # pragma: no cover - other scipy layouts
        return None
    return getattr(_ufuncs, "_nct_sf", None)
