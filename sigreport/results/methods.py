"""The method declarations as the layers above the results read them (the renderer reads no ``sigreport.stats``
module: ``tests/render/test_render_model.py``): the registry's look-ups and the declarations' types, re-exported
from :mod:`sigreport.stats.registry` and :mod:`sigreport.stats.declaration`."""

from __future__ import annotations

from sigreport.stats.declaration import ALL_KINDS, KINDS, ExtraColumn, Head, MethodDeclaration, ProcedureDeclaration
from sigreport.stats.registry import PluginError, UnknownMethod, method, methods, names, origin
from sigreport.stats import proportion, samples  # the declared proportion intervals; pass@k metric names
from sigreport.stats.methods.equivalence import TOST  # the declared equivalence and non-inferiority tests
from sigreport.stats.methods.replicability import combination  # the declared partial-conjunction combinations

__all__ = ["ALL_KINDS", "KINDS", "ExtraColumn", "Head", "MethodDeclaration", "PluginError", "ProcedureDeclaration", "TOST",
           "UnknownMethod", "combination", "method", "methods", "names", "origin", "proportion", "samples"]
