"""Every method sigreport can run: the built-in declarations and the plugins', collected once.

:func:`methods` and :func:`method` are what the spec, the analyses, the views, the power step and
``sigreport methods`` ask; an unknown name raises :class:`UnknownMethod` naming the known ones (as ranx's
metric switch does), never a silent default.

Plugins: a distribution registers entry points in the group ``sigreport.methods`` (docs/extending.md). Each
entry point loads to a module (its ``DECLARATIONS``, or its one ``DECLARATION``), a
:class:`~sigreport.stats.declaration.MethodDeclaration`, an iterable of them, or a callable returning them. The
entry points are read the first time the registry is asked (the spec asks when it is imported: ``validate``,
``build``, ``schema``), never for ``sigreport --help``; a plugin that fails to load or declares a bad method is a
:class:`PluginError` naming the entry point, and a plugin may not replace a built-in method.
"""

from __future__ import annotations

import importlib
import threading
import types
from collections.abc import Iterable
from typing import Any

from sigreport.errors import Problem, UserError
from sigreport.stats.declaration import ALL_KINDS, Declaration, MethodDeclaration, check

ENTRY_POINT_GROUP = "sigreport.methods"
BUILTIN = ("sigreport.stats.methods.paired_t", "sigreport.stats.methods.rank", "sigreport.stats.methods.resampling",
           "sigreport.stats.methods.cv", "sigreport.stats.methods.procedures",
           "sigreport.stats.methods.preferences", "sigreport.stats.methods.corrections",
           "sigreport.stats.methods.classification", "sigreport.stats.methods.agreement")
"""The modules of the built-in declarations (each a ``DECLARATIONS`` tuple), in the order the spec lists them."""


class UnknownMethod(KeyError):
    """A method name no declaration has."""

    def __str__(self) -> str:
        return str(self.args[0])


class PluginError(UserError):
    """A plugin of the ``sigreport.methods`` entry point group that cannot be used: which entry point, what is
    wrong (printed as a user error: exit 2, no traceback)."""

    def __init__(self, where: str, message: str):
        super().__init__(f"plugin {where}", [Problem(file="", line=None, field="", message=message)])


_lock = threading.Lock()
_loaded: dict[tuple[str, str], Declaration] | None = None
_origin: dict[tuple[str, str], str] = {}


def methods(kind: str) -> tuple[Any, ...]:
    """The declarations of ``kind`` (``declaration.ALL_KINDS``: 'pairwise', 'cv', then the procedures'
    'omnibus', 'posthoc', 'bayesian'), built-ins first in their order, then plugins'."""
    if kind not in ALL_KINDS:
        raise UnknownMethod(f"unknown kind of method {kind!r}; known: {', '.join(ALL_KINDS)}")
    return tuple(d for (k, _), d in _all().items() if k == kind)


def names(kind: str) -> tuple[str, ...]:
    """The spec names of ``kind``'s methods."""
    return tuple(d.name for d in methods(kind))


def spec_names(kind: str) -> tuple[str, ...]:
    """The spec values of ``kind``'s procedures (``tests.omnibus``, ``tests.posthoc``, ``tests.correction``), in
    the declarations' order: a post-hoc's spec value can differ from the method results.json records
    (``paired`` runs ``paired_t``)."""
    return tuple(d.spec_name for d in methods(kind) if d.spec_name is not None)


def by_spec_name(kind: str, value: str) -> Any:
    """The declaration whose spec value is ``value``; :class:`UnknownMethod` when there is none."""
    found = next((d for d in methods(kind) if getattr(d, "spec_name", None) == value), None)
    if found is None:
        raise UnknownMethod(f"unknown {kind} {value!r}; known: {', '.join(spec_names(kind))}")
    return found


def method(kind: str, name: str) -> Any:  # MethodDeclaration for pairwise and cv, else ProcedureDeclaration
    """The declaration of ``name`` among ``kind``'s methods; :class:`UnknownMethod` when there is none."""
    found = _all().get((kind, name))
    if found is None:
        known = ", ".join(names(kind))
        raise UnknownMethod(f"unknown {kind} method {name!r}; known: {known}")
    return found


def origin(d: Declaration) -> str:
    """Where a declaration comes from: 'built-in', or the plugin's entry point ('name = value')."""
    return _origin.get(d.key, "built-in")


def reset() -> None:
    """Forget the loaded declarations (a test that installs a plugin reads the entry points again)."""
    global _loaded
    with _lock:
        _loaded = None
        _origin.clear()


def _all() -> dict[tuple[str, str], Declaration]:
    global _loaded
    if _loaded is None:
        with _lock:
            if _loaded is None:
                _loaded = _load()
    return _loaded


def _load() -> dict[tuple[str, str], Declaration]:
    out: dict[tuple[str, str], Declaration] = {}
    for module in BUILTIN:
        for d in importlib.import_module(module).DECLARATIONS:
            bad = check(d)
            if bad:
                raise AssertionError("; ".join(bad))  # a built-in's mistake is a bug, with its traceback
            out[d.key] = d
    for ep in _entry_points():
        where = f"entry point {ep.name} = {ep.value} (group {ENTRY_POINT_GROUP})"
        for d in _declarations_of(ep, where):
            bad = check(d) if isinstance(d, MethodDeclaration) else [
                f"{d!r} is not a MethodDeclaration (a plugin adds pairwise or cross-validation tests)"]
            if bad:
                raise PluginError(where, "; ".join(bad))
            if d.key in out:
                raise PluginError(where, f"declares {d.kind} method {d.name!r}, which " + (
                    "is built in" if d.key not in _origin else f"another plugin declares ({_origin[d.key]})"))
            out[d.key] = d
            _origin[d.key] = f"{ep.name} = {ep.value}"
    return out


def _entry_points() -> list[Any]:
    from sigreport.speed.entry_points import entry_points  # importlib.metadata only when a plugin may be there

    return sorted(entry_points(ENTRY_POINT_GROUP), key=lambda ep: (ep.name, ep.value))


def _declarations_of(ep: Any, where: str) -> list[MethodDeclaration]:
    """What an entry point declares (see the module docstring)."""
    try:
        obj = ep.load()
        if isinstance(obj, types.ModuleType):
            obj = getattr(obj, "DECLARATIONS", None) or getattr(obj, "DECLARATION", None)
            if obj is None:
                raise PluginError(where, "the module has neither DECLARATIONS nor DECLARATION")
        if callable(obj) and not isinstance(obj, MethodDeclaration):
            obj = obj()
        found = [obj] if isinstance(obj, MethodDeclaration) else list(obj if isinstance(obj, Iterable) else [obj])
    except PluginError:
        raise
    except Exception as exc:  # a plugin's own bug: the user sees which plugin, and what it raised
        raise PluginError(where, f"could not be loaded: {type(exc).__name__}: {exc}") from exc
    return found
