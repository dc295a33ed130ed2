"""Shared shapes of statistical results.

Every function in :mod:`sigreport.stats` takes arrays and returns a frozen dataclass.
Field names follow scipy's vocabulary (``statistic``, ``pvalue``, ``df``, ...) and never
depend on arguments. A value that cannot be computed is ``None`` (or NaN inside the
function) *and* a sentence in ``warnings`` that says why; :func:`to_jsonable` turns any
result into JSON-safe data (non-finite floats become ``None``).
"""

from __future__ import annotations

import dataclasses
import math
import types
from typing import Any

import numpy as np


@dataclasses.dataclass(frozen=True, kw_only=True)
class EffectSize:
    """A named effect size with an optional confidence interval."""

    name: str
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None


def finite_or_none(x: Any) -> float | None:
    """``float(x)`` when finite, else ``None``."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def is_significant(p: float | None, alpha: float) -> bool | None:
    """The one significance rule of a report: ``p <= alpha`` (``p`` adjusted where a family's correction
    applies); ``None`` when ``p`` is missing or not a number (no decision, never a silent "not significant").

    Every analysis that decides from a p-value calls this, so the rule (``<=``, not ``<``: a p-value equal
    to alpha rejects, as R's ``p.adjust`` users and Demšar's tables read it) lives in one place. Critical-
    difference procedures (Nemenyi, Bonferroni-Dunn) decide by their CD, which is their definition."""
    if p is None:
        return None
    p = float(p)
    return None if p != p else bool(p <= alpha)


def rejects(p: np.ndarray, alpha: float) -> np.ndarray:
    """:func:`is_significant` over an array of p-values (simulations): True where ``p <= alpha``, False where
    not or where ``p`` is NaN (a simulated data set without a p-value does not reject)."""
    with np.errstate(invalid="ignore"):
        return np.asarray(p, dtype=np.float64) <= alpha


def to_jsonable(obj: Any) -> Any:
    """Recursively convert results (dataclasses, numpy scalars/arrays, tuples) to JSON data.

    A dataclass may name its JSON fields and their order in a class attribute ``json_fields``
    (attributes or properties); its ``extra`` mapping then follows them as further fields. Objects
    with plain attributes (``types.SimpleNamespace``, as records read back from JSON) keep them.

    Linear in the size of the result: plain numbers and strings return at once, and each class's
    field names are looked up once (a 1M-row report has hundreds of thousands of values)."""
    kind = type(obj)
    if kind is str or kind is bool or kind is int or obj is None:
        return obj
    if kind is float:
        return obj if math.isfinite(obj) else None
    fields = _FIELDS.get(kind)
    if fields is None and dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = _fields_of(kind)
    if fields is not None:
        names, custom = fields
        out = {name: to_jsonable(getattr(obj, name)) for name in names}
        if custom:
            for k, v in (getattr(obj, "extra", None) or {}).items():
                out.setdefault(k, to_jsonable(v))
        return out
    if isinstance(obj, types.SimpleNamespace):
        return {k: to_jsonable(v) for k, v in vars(obj).items()}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [to_jsonable(v) for v in obj.tolist()]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return finite_or_none(obj)
    return obj


_FIELDS: dict[type, tuple[tuple[str, ...], bool]] = {}


def json_fields_of(kind: type) -> tuple[tuple[str, ...], bool] | None:
    """For a dataclass type: its JSON field names and whether they were named (``json_fields``, then ``extra``
    follows them), as :func:`to_jsonable` writes its instances; ``None`` for any other type."""
    fields = _FIELDS.get(kind)
    if fields is None and dataclasses.is_dataclass(kind):
        fields = _fields_of(kind)
    return fields


def _fields_of(cls: type) -> tuple[tuple[str, ...], bool]:
    """A dataclass's JSON field names (its ``json_fields``, else its fields) and whether they were named."""
    custom = getattr(cls, "json_fields", None)
    names = tuple(custom) if custom else tuple(f.name for f in dataclasses.fields(cls))
    _FIELDS[cls] = (names, bool(custom))
    return _FIELDS[cls]


@dataclasses.dataclass(frozen=True, kw_only=True)
class PairedTestResult:
    """One two-system comparison on paired items (a minus b).

    Shared by every pairwise method (paired t, Wilcoxon, sign, bootstrap, permutation, ...).
    ``estimate`` is the method's estimate of the difference a - b (mean difference, median
    difference, ...), with its confidence interval at ``ci_level``. ``extra`` holds what only
    this method has (Wilcoxon ``r_plus``/``r_minus``/``zero_method``/``exact``, resampling
    ``n_resamples``/``mc_se``, ...); its keys are fixed per method and go into results.json as
    fields of the pair.
    """

    method: str
    n: int
    statistic: float | None
    df: float | None
    pvalue: float | None
    alternative: str
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    ci_level: float
    critical_value: float | None
    effect_size: EffectSize | None
    warnings: tuple[str, ...] = ()
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)
