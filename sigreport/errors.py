"""User-facing errors: each names the file, the line, the field and what is wrong.

A :class:`UserError` is a mistake in the user's input; the CLI prints it without a traceback and
exits with code 2. Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping

_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: object) -> str:
    """``text`` with every control character (C0, DEL, C1, line/paragraph separators) written as an escape.

    Names come from the user's files: printed raw, an ESC sequence could repaint the terminal and a
    newline could forge an extra problem line. ``\\x1b`` is shown as the four characters ``\\x1b``.
    """
    s = str(text)
    if not _UNPRINTABLE.search(s):
        return s
    return _UNPRINTABLE.sub(lambda m: _SHORT.get(m.group(), f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                                                  else f"\\u{ord(m.group()):04x}"), s)


def did_you_mean(given: object, known: Iterable[object], aliases: Mapping[str, str] | None = None) -> str:
    """`` (did you mean 'x'?)`` when a known name is close to the one given, else "": the one place that suggests
    a name, for unknown keys, methods, metrics, systems and corpora alike. Names are compared lower-cased without
    spaces, hyphens and underscores by :func:`difflib.get_close_matches` (ratio at least 0.6); ``aliases`` (another
    spelling -> its name, e.g. a method's display name "paired t test" -> ``paired_t``) are compared too, so that
    ``ttest`` finds ``paired_t``."""
    import difflib

    def norm(x: str) -> str:
        return re.sub(r"[\s_\-]+", "", x.lower())

    forms: dict[str, str] = {}
    for name in (str(k) for k in known):
        forms.setdefault(norm(name), name)
    for alias, name in (aliases or {}).items():
        forms.setdefault(norm(alias), name)
    g = norm(str(given))
    close = difflib.get_close_matches(g, list(forms), n=1, cutoff=0.6) if g and forms else []
    return f" (did you mean {forms[close[0]]!r}?)" if close and forms[close[0]] != str(given) else ""


@dataclasses.dataclass(frozen=True)
class Problem:
    """One problem: where (file, line, field) and what."""

    file: str
    line: int | None
    field: str
    message: str

    def render(self) -> str:
        """One line, whatever the field and message hold (control characters escaped)."""
        where = printable(self.field or "")
        if self.line is not None:
            where = f"{where} (line {self.line})" if where else f"line {self.line}"
        message = printable(self.message)
        return f"{where}: {message}" if where else message


class UserError(Exception):
    """Bad input from the user. ``problems`` are all reported at once."""

    kind = "input"

    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = list(problems)
        super().__init__(self.render())

    def __reduce__(self) -> tuple:
        """Pickled whole (a user aggregate's error travels back from a worker process): the subclasses'
        constructors differ, so the object is rebuilt from its attributes, not its arguments."""
        return (_restore, (type(self), self.__dict__))

    def render(self) -> str:
        n = len(self.problems)
        head = f"error: {printable(self.source)} is invalid ({n} problem{'s' if n != 1 else ''})"
        return "\n".join([head] + [f"  {p.render()}" for p in self.problems])


def _restore(cls: type[UserError], state: dict) -> UserError:
    err = cls.__new__(cls)
    err.__dict__.update(state)
    Exception.__init__(err, err.render())
    return err


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


def note_place(p: Problem, spec_path: str = "") -> str:
    """Where a build's note comes from, as ``--strict`` names it: the analysis id (and pair), or the spec field."""
    where = p.field or ""
    if p.line is not None:
        where = f"{where} (line {p.line})" if where else f"line {p.line}"
    return ", ".join(x for x in ((p.file if p.file != spec_path else ""), where) if x) or "(the build)"


def strict_problems(notes: Iterable[Problem], allow: Iterable[str] = (), spec_path: str = "",
                    allow_lines: Iterable[int | None] = (), unused: bool = True) -> list[Problem]:
    """The notes that fail ``--strict``: each distinct note once, naming every analysis (and pair) it came from,
    in order of first appearance; a note whose ``ANALYSIS: NOTE`` line holds one of ``allow`` (``strict.allow``)
    is accepted; an ``allow`` entry that matches no note is itself a problem (a stale entry is said), unless
    ``unused`` is false (a check before the analyses, whose notes are not known yet)."""
    allow = list(allow)
    lines = list(allow_lines) or [None] * len(allow)
    used = [False] * len(allow)
    grouped: dict[str, list[str]] = {}
    for p in notes:
        place = note_place(p, spec_path)
        hits = [i for i, a in enumerate(allow) if a in f"{place}: {p.message}"]
        for i in hits:
            used[i] = True
        if not hits:
            places = grouped.setdefault(p.message, [])
            if place not in places:
                places.append(place)
    out = [Problem(spec_path, None, _places(places), message) for message, places in grouped.items()]
    out += [Problem(spec_path, line, f"strict.allow[{i}]", f"{a!r} matches no note: remove it")
            for i, (a, line, u) in enumerate(zip(allow, lines, used)) if unused and not u]
    return out


def _places(places: list[str], shown: int = 4) -> str:
    if len(places) <= shown:
        return "; ".join(places)
    return f"{'; '.join(places[:shown])} and {len(places) - shown} more"

