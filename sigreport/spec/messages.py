"""Messages of spec validation errors in plain words: what was given, what is allowed, the closest name.

Pydantic's error records (type, location, input, context) become one line each: an unknown key with its
allowed neighbours, a value of the wrong YAML type with the fix, a number out of range with both bounds, a
name not allowed with the closest allowed one (a method's display name counts).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from sigreport.errors import did_you_mean
from sigreport.spec.models import Spec
from sigreport.spec.sources import FORMATS
from sigreport.spec.yaml_loading import _shown
from sigreport.stats import registry
from sigreport.stats.declaration import ALL_KINDS

def _allowed_keys(loc: tuple[Any, ...]) -> list[str]:
    """Field names of the model found at ``loc`` (for 'unknown key' messages)."""
    model = _model_at(loc)
    return sorted(model.model_fields) if model is not None and hasattr(model, "model_fields") else []


def _field_at(loc: tuple[Any, ...]) -> Any:
    """The pydantic field at ``loc`` (its constraints, for range messages), or None."""
    if not loc or not isinstance(loc[-1], str):
        return None
    model = _model_at(loc[:-1])
    return model.model_fields.get(loc[-1]) if model is not None and hasattr(model, "model_fields") else None


def _model_at(loc: tuple[Any, ...]) -> Any:
    """The model found at ``loc`` (None where it is not a model)."""
    model: Any = Spec
    for k, part in enumerate(loc):
        if loc[k - 2:k] in (("data", "scores"), ("data", "outcomes")) and part in FORMATS:  # a source's tag
            model = FORMATS[part].model
            continue
        if isinstance(part, int) or model is None:
            continue
        field = model.model_fields.get(part) if hasattr(model, "model_fields") else None
        if field is None:
            # inside a dict of models (metrics.<name>)
            if model is Spec and part in ("metrics",):
                continue
            continue
        ann = field.annotation
        nxt = None
        for cand in (ann, *getattr(ann, "__args__", ())):
            if isinstance(cand, type) and issubclass(cand, BaseModel):
                nxt = cand
            for sub in getattr(cand, "__args__", ()):
                if isinstance(sub, type) and issubclass(sub, BaseModel):
                    nxt = sub
        model = nxt
    return model


def _given(value: Any) -> str:
    """What the user wrote, as YAML read it: 'the text '0.05'', 'the number 5', 'the boolean true'."""
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int) and len(text := str(value)) > 40:
        return f"the whole number {text[:12]}...{text[-4:]} ({len(text.lstrip('-'))} digits)"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the text {_shown(value)}"
    if value is None:
        return "nothing (null)"
    return _shown(value)


def _is_number_text(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        float(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


_EXPECTED = {"float_type": "a number", "int_type": "a whole number", "bool_type": "true or false",
             "string_type": "text", "list_type": "a list", "dict_type": "a mapping (key: value lines)",
             "model_type": "a mapping (key: value lines)"}


def _type_message(typ: str, given: Any) -> str:
    """'expected X, given Y' for a value of the wrong YAML type, with the fix when there is an obvious one."""
    msg = f"expected {_EXPECTED[typ]}, given {_given(given)}"
    if typ == "float_type" and isinstance(given, int) and not isinstance(given, bool) and abs(given) > 2**1024:
        return msg + ", too large for a floating-point number"
    if typ in ("float_type", "int_type") and _is_number_text(given):
        return msg + " (remove the quotes)"
    if typ == "int_type" and isinstance(given, float) and given.is_integer():
        return msg + f" (write {int(given)})"
    if typ == "bool_type" and isinstance(given, str) and given.lower() in ("true", "false", "yes", "no"):
        return msg + " (remove the quotes; write true or false)"
    if typ == "bool_type" and isinstance(given, (int, float)) and not isinstance(given, bool):
        return msg + " (write true or false)"
    if typ == "string_type" and isinstance(given, (int, float)):
        return msg + f" (quote it: '{given}')"
    return msg


_BOUNDS = {"greater_than": "gt", "greater_than_equal": "ge", "less_than": "lt", "less_than_equal": "le"}


def _range_message(loc: tuple[Any, ...], given: Any, ctx: Mapping[str, Any]) -> str:
    """A number outside its field's range, in plain words with both of the field's bounds: "alpha must be
    between 0 and 1 (exclusive); given 5"."""
    field = _field_at(loc)
    bounds = {k: getattr(m, k) for m in (field.metadata if field is not None else ()) for k in ("gt", "ge", "lt", "le")
              if getattr(m, k, None) is not None}
    if not bounds:
        bounds = {k: v for k, v in ctx.items() if k in ("gt", "ge", "lt", "le")}
    name = next((str(p) for p in reversed(loc) if isinstance(p, str)), "the value")
    low = ("gt", bounds["gt"]) if "gt" in bounds else ("ge", bounds["ge"]) if "ge" in bounds else None
    high = ("lt", bounds["lt"]) if "lt" in bounds else ("le", bounds["le"]) if "le" in bounds else None
    def num(v: Any) -> str:
        return f"{v:,}" if isinstance(v, int) else f"{v:g}"
    shown = num(given)
    if low and high and low[0] == "gt" and high[0] == "lt":
        rule = f"between {num(low[1])} and {num(high[1])} (exclusive)"
    elif low and high and low[0] == "ge" and high[0] == "le":
        rule = f"between {num(low[1])} and {num(high[1])} (inclusive)"
    else:
        words = {"gt": "greater than", "ge": "at least", "lt": "less than", "le": "at most"}
        rule = " and ".join(f"{words[b[0]]} {num(b[1])}" for b in (low, high) if b)
    return f"{name} must be {rule}; given {shown}"


def _literal_message(given: Any, expected: str) -> str:
    """A value not among a field's allowed ones, with the closest allowed name (a method's display name counts:
    ``ttest`` -> ``paired_t``)."""
    allowed = re.findall(r"'([^']*)'", expected)
    aliases = {d.display: d.name for kind in ALL_KINDS for d in registry.methods(kind) if d.name in allowed}
    return f"{given!r} is not allowed{did_you_mean(given, allowed, aliases)}; allowed: {expected}"


def _message(err: dict[str, Any], loc: tuple[Any, ...] | None = None) -> str:
    typ = err["type"]
    given = err.get("input")
    ctx = err.get("ctx") or {}
    if typ == "extra_forbidden":
        allowed = _allowed_keys(tuple(err["loc"][:-1]))
        key = err["loc"][-1]
        return (f"unknown key {key!r}{did_you_mean(key, allowed)}" +
                (f"; allowed: {', '.join(allowed)}" if allowed else ""))
    if typ == "missing":
        return "required but missing"
    if typ == "literal_error":
        return _literal_message(given, str(ctx.get("expected", "")))
    if typ in _BOUNDS and isinstance(given, (int, float)) and not isinstance(given, bool):
        return _range_message(tuple(loc if loc is not None else err["loc"]), given, ctx)
    if typ in _EXPECTED:
        return _type_message(typ, given)
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, "):]
    if isinstance(given, (str, int, float, bool)) and typ not in ("string_too_short",):
        return f"{msg} (given: {_shown(given)})"
    return msg
