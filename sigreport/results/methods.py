"""The method declarations as the layers above the results read them (the renderer reads no ``sigreport.stats``
module: ``tests/render/test_render_model.py``): the registry's look-ups and the declarations' types, re-exported
from :mod:`sigreport.stats.registry` and :mod:`sigreport.stats.declaration`."""

from __future__ import annotations

from sigreport.stats.declaration import (ALL_KINDS, KINDS, OUTSIDE_TESTS, ExtraColumn, Head, MethodDeclaration,
                                         ProcedureDeclaration)
from sigreport.stats.registry import (PluginError, UnknownMethod, by_spec_name, method, methods, names, origin,
                                      spec_names)
from sigreport.stats import proportion, samples  # the declared proportion intervals; pass@k metric names
from sigreport.stats.methods.equivalence import TOST  # the declared equivalence and non-inferiority tests
from sigreport.stats.methods.replicability import combination  # the declared partial-conjunction combinations

__all__ = ["ALL_KINDS", "KINDS", "OUTSIDE_TESTS", "ExtraColumn", "Head", "MethodDeclaration", "PluginError",
           "ProcedureDeclaration", "TOST", "UnknownMethod", "by_spec_name", "combination", "method", "methods", "names",
           "origin", "proportion", "samples", "spec_names"]
