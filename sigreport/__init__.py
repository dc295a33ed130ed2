"""sigreport: significance reports for comparing systems, from one YAML spec.

The Python API (see docs/api.md)::

    import sigreport
    spec = sigreport.load_spec("configs/summarizers.yaml")   # a path, YAML text or a mapping
    results = sigreport.analyze(spec)                         # computes everything, writes nothing
    report = sigreport.build(spec, "out/")                    # what `sigreport build` does

Errors are exceptions: :class:`SpecError` and :class:`DataError`, both :class:`UserError`, carry the
list of problems the command line prints. Names are imported on first use, so that ``import
sigreport`` (and ``sigreport --help``) stay fast.
"""

from __future__ import annotations

from typing import Any

from sigreport.version import __version__

__all__ = ["DataError", "Report", "Results", "SpecError", "UserError", "__version__", "analyze", "build",
           "load_spec"]

_LAZY = {"load_spec": "sigreport.api", "analyze": "sigreport.api", "build": "sigreport.api",
         "Report": "sigreport.api", "Results": "sigreport.results", "UserError": "sigreport.errors",
         "SpecError": "sigreport.errors", "DataError": "sigreport.errors"}


_MODULES = ("from_sklearn",)  # helper modules reached as attributes: sigreport.from_sklearn.cross_validate(...)


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        import importlib

        return importlib.import_module(f"sigreport.{name}")
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'sigreport' has no attribute {name!r}")
