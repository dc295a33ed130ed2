"""Libraries' log warnings that mean nothing to a report's reader, silenced where sigreport calls them."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator


@contextlib.contextmanager
def quiet(*loggers: str) -> Iterator[None]:
    """Within the block, ``loggers`` report errors only (WeasyPrint's warnings about CSS, fontTools' about a
    font's time stamps, matplotlib's about a fallback font without bold); their levels are put back after, so
    a caller's logging is left as it was."""
    found = [logging.getLogger(name) for name in loggers]
    levels = [log.level for log in found]
    for log in found:
        log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for log, level in zip(found, levels):
            log.setLevel(level)
