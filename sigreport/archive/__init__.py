"""Release archives and the report store.

:mod:`.store` writes a report folder safely (lock, inputs never inside the output, foreign files refused,
crash-safe swap, recovery); :mod:`.releases`, :mod:`.manifest`, :mod:`.diff` and :mod:`.verify` keep
releases with their manifest, the index of releases, the diff of two releases' conclusions and the
verification of a release. Layer 4: works on results.json documents and folders of files; never computes
statistics or renders a report.
"""
