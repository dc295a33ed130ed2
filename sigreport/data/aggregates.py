"""From a metric's spec to the corpus-level function the statistics use.

A metric is held as per-item sufficient statistics; its corpus score is ``aggregate(totals, n)``:
mean (one statistic), ratio (two), f_beta (tp, fp, fn), a built-in label average
``sigreport.labels:<precision|recall|specificity|f>_<macro|weighted>`` (tp, fp, fn of every class;
the name is kept for results.json, the function lives in :mod:`sigreport.stats.class_counts`) or a
user function named by import path.

A user's module is the user's input: failing to import it (any exception, a SyntaxError included) or
an exception raised by the function while the analyses run is a
:class:`~sigreport.errors.DataError` naming the metric, the module and the exception's message.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import numpy as np

from sigreport.errors import DataError, Problem
from sigreport.spec import MetricSpec
from sigreport.stats.class_counts import averaged_metric
from sigreport.stats.resampling import CorpusMetric, f_beta_metric, mean_metric, ratio_metric, user_metric

LABEL_AGGREGATE_PREFIX = "sigreport.labels:"
SACREBLEU_PREFIX = "sigreport.sacrebleu:"


class AggregateImportError(Exception):
    """The aggregate named in a metric's spec cannot be used (the message says why)."""


def corpus_metric(m: MetricSpec, folder: Path | None = None, metric: str = "", source: str = "") -> CorpusMetric:
    """The metric's corpus-level function; user aggregates are imported with the spec's folder on the path.

    ``metric`` and ``source`` (the spec file) name the culprit when a user function raises.
    """
    if m.aggregate == "mean":
        return mean_metric()
    if m.aggregate == "ratio":
        return ratio_metric()
    if m.aggregate == "f_beta":
        return f_beta_metric(m.beta)
    if m.aggregate.startswith(LABEL_AGGREGATE_PREFIX):
        return label_average(m)
    if m.aggregate.startswith(SACREBLEU_PREFIX):
        return sacrebleu_metric(m)
    func = _import(m.aggregate, folder, metric)
    guarded = _guarded(func, m.aggregate, metric, source)
    guarded.source_file, guarded.source_digest = module_source(m.aggregate)  # type: ignore[attr-defined]
    return user_metric(guarded, len(m.statistics or ()), name=m.aggregate)


def module_source(path: str) -> tuple[Path | None, str]:
    """The file of the module that defines a user aggregate (``package.module:function``) and a sha256 of its
    bytes, imported already by :func:`_import`. It enters the cache key of every analysis of the metric
    (:meth:`sigreport.data.model.Dataset.fingerprint`) and a release's manifest: editing the function must
    recompute its analyses, never serve the old results from the cache. A module without a file (built
    into Python) is known by its name alone. Only the defining module is hashed: a helper it imports from
    another file is not (docs/guarantees.md says so)."""
    module = sys.modules.get(path.partition(":")[0])  # a module name alone works too
    file = getattr(module, "__file__", None)
    if not file or not Path(file).is_file():
        return None, hashlib.sha256(f"module {path}".encode()).hexdigest()
    data = Path(file).read_bytes()
    return Path(file), hashlib.sha256(data).hexdigest()


def label_average(m: MetricSpec) -> CorpusMetric:
    """A built-in ``sigreport.labels:<base>_<macro|weighted>`` aggregate over 3K statistics."""
    base, _, average = m.aggregate[len(LABEL_AGGREGATE_PREFIX):].rpartition("_")
    try:
        return averaged_metric(m.aggregate, base, average, len(m.statistics or ()), m.beta, tuple(m.statistics or ()))
    except ValueError as exc:
        raise AggregateImportError(f"label aggregate {m.aggregate!r}: {exc}") from None


def sacrebleu_metric(m: MetricSpec) -> CorpusMetric:
    """A built-in ``sigreport.sacrebleu:<metric>`` aggregate: sacrebleu's corpus score from summed statistics."""
    from sigreport.data.sources import text  # imports sacrebleu only when a score is computed

    try:
        func = text.aggregate(m.aggregate)
        text.sacrebleu_module()
    except (ValueError, ImportError) as exc:
        raise AggregateImportError(str(exc)) from None
    return CorpusMetric(name=m.aggregate, n_stats=len(m.statistics or ()), func=func,
                        stat_names=tuple(m.statistics or ()))


def _import(path: str, folder: Path | None, metric: str) -> Callable[..., object]:
    module, _, name = path.partition(":")
    who = f" (metric {metric!r})" if metric else ""
    added = folder is not None and str(folder) not in sys.path
    if added:
        sys.path.insert(0, str(folder))
    try:
        with no_bytecode():
            func = getattr(_current(importlib.import_module(module)), name)
    except (ImportError, AttributeError) as exc:
        raise AggregateImportError(f"cannot import aggregate {path!r}{who}: {exc}") from None
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - a failure inside the user's module is the user's
        raise AggregateImportError(f"cannot import aggregate {path!r}{who}: importing module {module!r} raised "
                                   f"{type(exc).__name__}: {exc}") from None
    finally:
        if added:
            sys.path.remove(str(folder))
    if not callable(func):
        raise AggregateImportError(f"aggregate {path!r}{who}: {name!r} in module {module!r} is not a function")
    return func


@contextlib.contextmanager
def no_bytecode() -> Iterator[None]:
    """Within the block, imports write no ``__pycache__`` beside the module: a user aggregate lives in the
    user's folder, which ``validate``, ``plan`` and ``analyze`` must leave as they found it (and a build
    writes only its report). Python's setting is put back after."""
    before = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        yield
    finally:
        sys.dont_write_bytecode = before


#: sha256 of each user module's file when this process last (re)imported it.
_IMPORTED: dict[str, str] = {}


def _current(module: ModuleType) -> ModuleType:
    """``module`` as its file is now: a module this process imported before (an earlier build through the
    Python API, in a notebook) whose file has changed since is reloaded, so the function that runs is the
    one whose bytes :func:`module_source` hashes into the cache key."""
    digest = module_source(module.__name__)[1]
    if _IMPORTED.get(module.__name__, digest) != digest:
        module = importlib.reload(module)
    _IMPORTED[module.__name__] = digest
    return module


def _guarded(func: Callable[..., object], path: str, metric: str, source: str) -> Callable[[np.ndarray, int], np.ndarray]:
    """``func`` with any exception it raises, and any value it returns that is not one real number per row
    of ``totals``, turned into a DataError naming the metric and the module.

    ``SystemExit`` (a ``sys.exit()`` in the function) and other exceptions outside ``Exception`` count as
    the function's failure too: left to propagate, ``sys.exit(0)`` ended the build with exit code 0 and no
    report. ``KeyboardInterrupt`` is left alone: it is how Ctrl-C stops the build."""
    module = path.partition(":")[0]

    def fail(what: str) -> DataError:
        field = f"metrics.{metric}.aggregate" if metric else "aggregate"
        return DataError(source or path, [Problem(source or path, None, field,
                                                  f"aggregate {path!r} of metric {metric!r} (module {module!r}) {what}")])

    def call(totals: np.ndarray, n_items: int) -> np.ndarray:
        try:
            out = func(totals, n_items)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - the user's function failed, not sigreport
            raise fail(f"raised {type(exc).__name__}: {exc}") from None
        problem = _bad_return(out, np.shape(totals))
        if problem:
            raise fail(problem)
        return out  # type: ignore[return-value]

    call.__qualname__ = getattr(func, "__qualname__", "user")
    return call


def _bad_return(out: object, totals: tuple[int, ...]) -> str:
    """Why ``out`` is not what an aggregate must return for totals of shape ``totals`` (one real number per
    row: an array of shape ``totals[:-1]``), or "" when it is."""
    need = f"it must return one real number per row of totals (shape {totals}): an array of shape {totals[:-1]}"
    try:
        arr = np.asarray(out)
    except Exception:  # noqa: BLE001 - a ragged list, an object numpy cannot hold
        arr = None
    if arr is None or arr.dtype.kind not in "biuf":
        if isinstance(out, np.ndarray):
            return f"returned an array of {out.dtype} values; {need}"
        return f"returned a value of type {type(out).__name__} ({_short(out)}); {need}"
    if arr.shape != totals[:-1]:
        shown = f" ({_short(out)})" if not isinstance(out, np.ndarray) else ""
        return f"returned shape {arr.shape}{shown}; {need}"
    return ""


def _short(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
