"""JSON documents read back from disk (results.json, manifest.json), parsed and checked before any use.

These files may have been edited by hand, damaged, or written by something else: every reader (``diff``,
``verify``, ``--previous``, the archive's index) goes through :func:`load_json` and a shape check, so a bad
document is a user error naming the file and the field (``analyses[3].pairs[0].significant: expected true,
false or null, got "yes"``), never a traceback deep inside a comparison.

A shape is plain data: a string of JSON types joined by ``|`` (``"num|null"``); ``("list", item)``;
``("map", value)`` (an object with any keys); ``("or", shape, ...)``; or a dict of the fields an object
may hold (a name ending in ``!`` must be present; other fields are allowed and not checked). Only the
fields sigreport reads are described: later versions may add fields freely.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Any

from sigreport.errors import Problem, UserError

Shape = Any
SHA256 = re.compile(r"[0-9a-f]{64}")
MAX_DECIMALS = 12  # a metric's decimals, as the spec allows them (spec.MetricSpec.decimals)
MAX_DEPTH = 200  # deeper than any document sigreport writes; the json module would recurse much further

_TYPES = {
    "str": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "num": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "sha256": lambda v: isinstance(v, str) and SHA256.fullmatch(v) is not None,
    "any": lambda v: True,
    "decimals": lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_DECIMALS,
}
_NAMES = {"str": "a string", "int": "a whole number", "num": "a number", "bool": "true or false", "null": "null",
          "sha256": "a sha256 (64 lowercase hex digits)", "any": "anything",
          "decimals": f"a whole number from 0 to {MAX_DECIMALS}"}


class DocumentError(UserError):
    """A JSON file sigreport reads back is missing, unreadable or not of the expected shape: one line."""

    def render(self) -> str:
        return "\n".join(f"error: {p.file}: {p.render()}" for p in self.problems)


def document_error(path: Path | str, field: str, message: str) -> DocumentError:
    return DocumentError(str(path), [Problem(str(path), None, field, message)])


def load_json(path: Path, what: str) -> Any:
    """The JSON document at ``path`` (``what`` names it in messages: "results.json", "manifest"); a file
    that cannot be read, is not UTF-8 JSON, holds NaN, Infinity or a number beyond a double (``1e400``), or
    nests absurdly deep is a user error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise document_error(path, "", f"no {what} here") from None
    except IsADirectoryError:
        raise document_error(path, "", f"is a folder, not a {what}") from None
    except OSError as exc:
        raise document_error(path, "", f"cannot read the {what}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise document_error(path, "", f"the {what} is not UTF-8 text (byte {exc.start})") from None
    long_ints: list[str] = []
    try:
        doc = json.loads(text, parse_constant=_no_constant, parse_int=lambda t: _int(t, long_ints))
    except ValueError as exc:
        raise document_error(path, "", f"the {what} is not valid JSON: {exc}") from None
    except RecursionError:
        raise document_error(path, "", f"the {what} nests too deeply to be sigreport's") from None
    too_deep, infinite = _walk(doc, MAX_DEPTH)
    if too_deep:
        raise document_error(path, "", f"the {what} nests deeper than {MAX_DEPTH} levels; not sigreport's")
    huge = _out_of_range(doc) if infinite or long_ints else None
    if huge is not None:
        raise document_error(path, huge[0], f"{huge[1]} beyond the range of a double (largest "
                             f"{sys.float_info.max:.4g}); sigreport writes finite numbers only")
    return doc


def _int(text: str, long_ints: list[str]) -> int:
    """An integer of the document; one of more digits than a double's largest (309) is noted in ``long_ints``."""
    if len(text) > 309:
        long_ints.append(text)
    return int(text)


def _out_of_range(doc: Any) -> tuple[str, str] | None:
    """(field path, what the number is) of the first number no double holds: JSON allows ``1e400`` and
    ``10**400`` written out, which would otherwise end as inf or an OverflowError deep inside a comparison."""
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        v, where = stack.pop()
        if isinstance(v, dict):
            stack += [(x, f"{where}.{k}" if where else str(k)) for k, x in reversed(v.items())]
        elif isinstance(v, list):
            stack += [(x, f"{where}[{i}]") for i, x in reversed(list(enumerate(v)))]
        elif isinstance(v, float) and math.isinf(v):
            return where, "a number"
        elif isinstance(v, int) and not isinstance(v, bool) and abs(v) > sys.float_info.max:
            return where, f"an integer of {len(str(abs(v)))} digits,"
    return None


def finite_document(doc: Any) -> tuple[Any, list[str]]:
    """``doc`` with every non-finite float (inf, nan) as null, and the field paths where it was: a difference
    of two values near the range of a double overflows, and a JSON output must stay JSON (no NaN or Infinity
    token), its nulls named."""
    paths: list[str] = []

    def clean(v: Any, where: str) -> Any:
        if isinstance(v, dict):
            return {k: clean(x, f"{where}.{k}" if where else str(k)) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [clean(x, f"{where}[{i}]") for i, x in enumerate(v)]
        if isinstance(v, float) and not math.isfinite(v):
            paths.append(where)
            return None
        return v

    return clean(doc, ""), paths


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _walk(doc: Any, limit: int) -> tuple[bool, bool]:
    """(nests deeper than ``limit``, holds an infinite float: ``1e400`` as JSON allows it): one walk over the
    containers, the floats compared in C (``inf in values``), so a large report costs little more."""
    stack = [(doc, 1)] if isinstance(doc, (dict, list)) else []
    infinite = False
    while stack:
        v, d = stack.pop()
        if d > limit:
            return True, infinite
        values = v.values() if isinstance(v, dict) else v
        infinite = infinite or math.inf in values or -math.inf in values
        stack += [(x, d + 1) for x in values if isinstance(x, (dict, list))]
    return False, infinite


def first_problem(value: Any, shape: Shape, field: str = "") -> tuple[str, str] | None:
    """(field path, what is wrong) for the first place ``value`` does not fit ``shape``; None when it fits."""
    if isinstance(shape, str):
        kinds = shape.split("|")
        if any(_TYPES[k](value) for k in kinds):
            return None
        return field, f"expected {' or '.join(_NAMES[k] for k in kinds)}, got {_shown(value)}"
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return field, f"expected an object, got {_shown(value)}"
        for name, sub in shape.items():
            key = name.rstrip("!")
            where = f"{field}.{key}" if field else key
            if key not in value:
                if name.endswith("!"):
                    return where, "missing"
                continue
            found = first_problem(value[key], sub, where)
            if found:
                return found
        return None
    kind, *rest = shape
    if kind == "or":
        found = [first_problem(value, s, field) for s in rest]
        return None if None in found else found[-1]
    if kind == "list":
        if not isinstance(value, list):
            return field, f"expected a list, got {_shown(value)}"
        return next((p for i, v in enumerate(value) if (p := first_problem(v, rest[0], f"{field}[{i}]"))), None)
    if kind == "map":
        if not isinstance(value, dict):
            return field, f"expected an object, got {_shown(value)}"
        return next((p for k, v in value.items() if (p := first_problem(v, rest[0], f"{field}.{k}"))), None)
    raise ValueError(f"unknown shape {shape!r}")


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def check(doc: Any, shape: Shape, path: Path | str, what: str) -> Any:
    """``doc`` when it fits ``shape``; else a user error naming the file and the field."""
    found = first_problem(doc, shape)
    if found:
        field, message = found
        raise document_error(path, field, f"{message} (not a {what} sigreport can read)")
    return doc


# ---- results.json: the fields diff, the index and --previous read --------------------------------------

PVALUES = {"pvalue": "num|null", "pvalue_adjusted": "num|null", "pvalue_corrected": "num|null"}
PAIR = {"a!": "str", "b!": "str", "significant": "bool|null", "estimate": "num|null", **PVALUES}
SYSTEM_ROW = ("or", "str", {"system!": "str", "mean": "num|null"})
ANALYSIS = {"id!": "str", "kind!": "str", "method": "str|null", "metric": "str|null", "corpus": "str|null",
            "significant": "bool|null", **PVALUES,
            "selection": ("or", "null", {"method": "str|null", "reason": "str|null"}),
            "average_ranks": ("map", "num|null"), "pairs": ("list", PAIR), "systems": ("list", SYSTEM_ROW)}
RESULTS = {"schema_version!": "int", "title": "str|null", "alpha": "num", "seed": "int",
           "sigreport_version": "str|null", "systems": ("list", "str"), "corpora": ("list", "str"),
           "metrics": ("map", {"higher_is_better": "bool", "decimals": "decimals"}), "tests": ("map", "any"),
           "data": ("map", "any"), "analyses!": ("list", ANALYSIS)}


def read_results_document(path: Path) -> dict[str, Any]:
    """A results.json checked for every field sigreport reads back from it."""
    doc = load_json(path, "results.json")
    if isinstance(doc, dict) and isinstance(doc.get("pairs_file"), dict):  # a leaderboard's pairs beside it
        from sigreport.results.io import PAIRS_FILE, with_pairs

        side = path.parent / str(doc["pairs_file"].get("path") or PAIRS_FILE)
        try:
            doc = with_pairs(doc, side.read_bytes())
        except (OSError, ValueError) as exc:
            raise document_error(side, "", f"the pairs results.json names cannot be read: {exc}") from None
    return check(doc, RESULTS, path, "results.json")
