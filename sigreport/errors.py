"""User-facing errors: each names the file, the line, the field and what is wrong.

A :class:`UserError` is a mistake in the user's input; the CLI prints it without a traceback and
exits with code 2. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Problem:
    """One problem: where (file, line, field) and what."""

    file: str
    line: int | None
    field: str
    message: str

    def render(self) -> str:
        where = self.field or ""
        if self.line is not None:
            where = f"{where} (line {self.line})" if where else f"line {self.line}"
        return f"{where}: {self.message}" if where else self.message


class UserError(Exception):
    """Bad input from the user. ``problems`` are all reported at once."""

    kind = "input"

    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = list(problems)
        super().__init__(self.render())

    def render(self) -> str:
        n = len(self.problems)
        head = f"error: {self.source} is invalid ({n} problem{'s' if n != 1 else ''})"
        return "\n".join([head] + [f"  {p.render()}" for p in self.problems])


class SpecError(UserError):
    kind = "spec"


class DataError(UserError):
    kind = "data"


class StrictError(UserError):
    """Warnings turned into failure by --strict."""

    kind = "strict"

    def render(self) -> str:
        n = len(self.problems)
        head = f"error: {n} warning{'s' if n != 1 else ''} with --strict"
        return "\n".join([head] + [f"  {p.render()}" for p in self.problems])
