"""What a build tells its caller as it goes: the progress display's phases and one-line notices."""

from __future__ import annotations

import sys
from collections.abc import Callable

Progress = Callable[[int, int, str], None]  # analyses done, of total, the last one's id (the CLI's display)


def phase(progress: Progress | None, text: str, transient: bool = False) -> None:
    """Tell the progress display (the CLI's, which has ``phase``) that a build phase begins."""
    tell = getattr(progress, "phase", None)
    if tell is not None:
        tell(text, transient)


def say(message: str) -> None:
    """A one-line notice of the build (what recovery did, a previous report not carried over) on stderr."""
    print(message, file=sys.stderr)
