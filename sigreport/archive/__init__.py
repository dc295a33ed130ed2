"""Everything about keeping reports on disk: the crash-safe store of one report folder (``store``).

Nothing here computes or renders; it only decides what may be written, removed or swapped, so the
rules that protect the user's files live in one place.
"""
