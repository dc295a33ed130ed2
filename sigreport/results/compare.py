"""Comparing two builds of the same inputs: exact where a value is a decision, a count or text, within a stated
tolerance where it is a floating-point number.

Two machines with different CPUs give results.json files that differ in the last digits of some numbers:
numpy's BLAS kernels (OpenBLAS picks one per CPU: Haswell, SkylakeX, Zen, Sandybridge, ...) sum in another
order, and a p-value far in a tail can move by a few units in the 14th digit. The decisions, counts, labels
and the shape of the document do not move. :func:`compare_documents` says which of the two a pair of
results.json documents is: the same except for floats within ``rtol`` (reproduced), or not. The golden tests
and ``sigreport verify`` use it, with :data:`RTOL` and :data:`ATOL`.

:func:`compare_text` does the same for rendered text (HTML, LaTeX, Markdown): every character outside the
numbers must match, and a number printed with d decimals may differ by one unit in its last printed place
(the value underneath moved across a rounding boundary), never more.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterator
from typing import Any

# Relative tolerance for floats of results.json across machines. Observed across OpenBLAS kernels (Zen,
# Sandybridge) on the example reports: at most 3.7e-14; 1e-9 leaves four orders of
# magnitude for an unlucky condition number while still catching any change of a computation.
RTOL = 1e-9
# Absolute tolerance, for values that are zero in exact arithmetic (a difference of equal means, a
# statistic of identical scores): round-off leaves them at about 1e-16 with either sign. Kept small so that
# a p-value of 1e-10 is still compared by its digits.
ATOL = 1e-15
SHOWN_DIFFERENCES = 20


@dataclasses.dataclass(frozen=True)
class Comparison:
    """What differs between two documents.

    ``differences``: values that differ beyond the tolerance, or that must match exactly and do not (strings,
    booleans, integers, nulls, keys, lengths), each as ``path: expected -> actual``.
    ``max_rel_diff``: the largest relative difference among the floats that differ at all (0.0 when none).
    ``floats_differ``: how many floats differ at all, within the tolerance or beyond it.
    """

    differences: tuple[str, ...]
    max_rel_diff: float
    floats_differ: int

    @property
    def equal(self) -> bool:
        """Equal within the tolerance: the same decisions, counts and text; floats within ``rtol``."""
        return not self.differences

    @property
    def identical(self) -> bool:
        return self.equal and self.floats_differ == 0

    def summary(self) -> str:
        if self.identical:
            return "identical"
        if self.equal:
            return (f"equal within tolerance ({self.floats_differ} number(s) differ, largest relative "
                    f"difference {self.max_rel_diff:.1e})")
        shown = "; ".join(self.differences[:SHOWN_DIFFERENCES])
        more = f" and {len(self.differences) - SHOWN_DIFFERENCES} more" if len(self.differences) > SHOWN_DIFFERENCES else ""
        return f"{len(self.differences)} difference(s): {shown}{more}"


def relative_difference(a: float, b: float) -> float:
    """|a - b| relative to the larger magnitude (0 when equal, inf when one is not finite and they differ)."""
    if a == b:
        return 0.0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(a - b) / max(abs(a), abs(b))


def close(a: float, b: float, rtol: float = RTOL, atol: float = ATOL) -> bool:
    return a == b or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= max(atol, rtol * max(abs(a), abs(b))))


def compare_documents(expected: Any, actual: Any, rtol: float = RTOL, atol: float = ATOL) -> Comparison:
    """Compare two parsed JSON documents (dicts, lists, str, int, float, bool, None)."""
    diffs: list[str] = []
    worst, count = 0.0, 0
    for path, a, b in _walk(expected, actual, "$"):
        if isinstance(a, float) and isinstance(b, float):
            if a == b:
                continue
            count += 1
            worst = max(worst, relative_difference(a, b))
            if not close(a, b, rtol, atol):
                diffs.append(f"{path}: {a!r} -> {b!r}")
        else:
            diffs.append(f"{path}: {_show(a)} -> {_show(b)}")
    return Comparison(tuple(diffs), worst, count)


def _walk(a: Any, b: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    """Yield (path, a, b) for every pair of leaves that are not exactly equal, and for every structural
    mismatch (a missing key, another length, another type)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a:
            if key in b:
                yield from _walk(a[key], b[key], f"{path}.{key}")
            else:
                yield f"{path}.{key}", a[key], _Missing()
        for key in b:
            if key not in a:
                yield f"{path}.{key}", _Missing(), b[key]
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            yield f"{path} (length)", len(a), len(b)
        for i, (x, y) in enumerate(zip(a, b)):
            yield from _walk(x, y, f"{path}[{i}]")
    elif type(a) is not type(b) or a != b:
        yield path, a, b


class _Missing:
    def __repr__(self) -> str:
        return "(missing)"


def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


# A number as printed in a report: optional sign (also the Unicode minus), digits, optional decimals and
# exponent. Digits inside names (sys-11, F1, a hash) are numbers too; they must match exactly unless they
# carry decimals, which is what the tolerance is for.
_NUMBER = re.compile(r"(?<![\w.])[-\u2212]?\d+(?:\.(\d+))?(?:[eE][-+]?\d+)?")


def compare_text(expected: str, actual: str) -> Comparison:
    """Compare two rendered texts: equal outside numbers; a number printed with decimals may differ by one
    unit in its last printed place (with the same number of decimals), an integer not at all."""
    ea, aa = _split_numbers(expected), _split_numbers(actual)
    if [t for t, _ in ea] != [t for t, _ in aa] or len(ea) != len(aa):
        return Comparison((_first_text_difference(expected, actual),), math.inf, 0)
    diffs: list[str] = []
    worst, count = 0.0, 0
    for (text, (num_e, dec_e)), (_, (num_a, dec_a)) in zip(ea, aa):
        if num_e == num_a:
            continue
        ok = dec_e is not None and dec_e == dec_a and _unit_apart(num_e, num_a, dec_e)
        count += 1
        worst = max(worst, relative_difference(_value(num_e), _value(num_a)))
        if not ok:
            diffs.append(f"after {text[-40:]!r}: {num_e} -> {num_a}")
    return Comparison(tuple(diffs), worst, count)


def _split_numbers(text: str) -> list[tuple[str, tuple[str, int | None]]]:
    """[(text before the number, (the number as printed, its decimals or None)), ...] plus a trailing
    (rest, ("", None))."""
    out, start = [], 0
    for m in _NUMBER.finditer(text):
        out.append((text[start:m.start()], (m.group(0), len(m.group(1)) if m.group(1) is not None else None)))
        start = m.end()
    out.append((text[start:], ("", None)))
    return out


def _value(printed: str) -> float:
    try:
        return float(printed.replace("\u2212", "-"))
    except ValueError:
        return math.nan


def _unit_apart(a: str, b: str, decimals: int) -> bool:
    """Two printed numbers with the same decimals differ by at most one unit in the last place."""
    if ("e" in a.lower()) != ("e" in b.lower()):
        return False
    if "e" in a.lower():  # 1.23e-07: compare mantissas, exponents must match
        (ma, ea), (mb, eb) = a.lower().split("e"), b.lower().split("e")
        return ea == eb and _unit_apart(ma, mb, decimals)
    va, vb = _value(a), _value(b)
    return abs(va - vb) <= 1.5 * 10.0 ** (-decimals)


def _first_text_difference(expected: str, actual: str) -> str:
    """Where two texts first differ outside their numbers, with a little context."""
    e = _NUMBER.sub("#", expected)
    a = _NUMBER.sub("#", actual)
    i = next((k for k, (x, y) in enumerate(zip(e, a)) if x != y), min(len(e), len(a)))
    return f"text differs at {e[max(0, i - 40):i + 40]!r} -> {a[max(0, i - 40):i + 40]!r}"


_SVG = re.compile(r"<svg\b([^>]*)>.*?</svg>", re.DOTALL)
_ARIA = re.compile(r'\saria-label="[^"]*"')


def strip_figures(html: str) -> str:
    """The HTML with every inline figure reduced to ``<svg aria-label="..."/>``: what sigreport wrote about
    the figure (its accessible label) stays, matplotlib's drawing (glyph outlines that move with a
    matplotlib, FreeType or font update, and the size measured from them) goes."""
    def keep_label(m: re.Match[str]) -> str:
        label = _ARIA.search(m.group(1))
        return f"<svg{label.group(0) if label else ''}/>"
    return _SVG.sub(keep_label, html)
