"""Release archives and the report store: atomic replacement, release folders with their manifest, the
index of releases, the diff of two releases' conclusions and verification of a release.

Layer 4: works on results.json documents and folders of files; never computes statistics or renders a report.
"""
