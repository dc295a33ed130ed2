"""The built-in methods' declarations (:class:`~sigreport.stats.declaration.MethodDeclaration`), one module per
family of tests, each a ``DECLARATIONS`` tuple listed in :data:`sigreport.stats.registry.BUILTIN`.

A declaration sits beside its computation in the sense that matters: its ``compute`` is the one call of the
statistic (``sigreport.stats.pairwise``, ``rank``, ``resampling``, ``cv``), imported when the method first
runs, because the spec imports the declarations and ``sigreport schema`` must not import numpy or scipy.
"""
