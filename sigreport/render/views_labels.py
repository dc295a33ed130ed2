"""Views of classification and agreement analyses. Filled in by the labels work."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

VIEWS: dict[str, Callable[[Any, Any, Any], Any]] = {}
