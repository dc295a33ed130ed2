"""Reading a spec's YAML: safe loading under size limits, and the line of every key and value.

The limits (``MAX_SPEC_BYTES``, ``MAX_DEPTH``, ``MAX_NODES``, ``MAX_KEYS``, ``MAX_ALIAS_USES``; the package's
docstring says why each) are checked while the YAML is composed, before anything walks or validates it; every
failure is a :class:`SpecError` with its line. :class:`_Positions` remembers where each field path stands, so
that a validation error later names its line.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from sigreport.errors import Problem, SpecError

# --------------------------------------------------------------------------------------------
# Limits: checked while the YAML is read, before anything expensive happens

MAX_SPEC_BYTES = 1024 * 1024
"""Largest spec accepted (1 MiB). Real specs are a few kB; data belong in data tables."""
MAX_DEPTH = 50
"""Deepest nesting of mappings and lists. The spec's own schema needs 4 levels."""
MAX_NODES = 50_000
"""Most values (scalars, lists, mappings) the document may hold with every alias expanded."""
MAX_KEYS = 10_000
"""Most mapping keys the document may hold with every alias expanded."""
MAX_ALIAS_USES = 1_000
"""Most times one anchor may be used through aliases (``*name``)."""


class _TooBig(Exception):
    """A limit was exceeded while composing the YAML; carries the line where it happened."""

    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line = line
        self.message = message


def _line(mark: Any) -> int | None:
    return mark.line + 1 if mark is not None else None


class _SpecLoader(Composer, SafeConstructor, Resolver):
    """Safe YAML loading that counts while it composes: nesting depth, nodes and keys with aliases expanded.

    PyYAML composes an alias as a reference to the anchored node, so composing is linear in the text;
    the cost explodes only later, when a document is walked or validated as if every alias were copied
    (billion laughs), or never ends when an alias refers to the node that contains it. Counting the
    expanded size here, where the references are still visible, refuses both before anything walks them.
    Subclasses add the parser: libyaml's when PyYAML has it (several times faster), else PyYAML's own.
    """

    def __init__(self) -> None:
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        self._depth = 0
        self._nodes = 0
        self._keys = 0
        self._sizes: dict[str, tuple[int, int]] = {}  # anchor -> (nodes, keys) of its expanded subtree
        self._uses: dict[str, int] = {}

    def _count(self, nodes: int, keys: int, mark: Any) -> None:
        self._nodes += nodes
        self._keys += keys
        if self._nodes > MAX_NODES:
            raise _TooBig(_line(mark), f"the spec expands to more than {MAX_NODES:,} values (through aliases "
                          "or sheer size); a spec describes an experiment, its data go in data tables")
        if self._keys > MAX_KEYS:
            raise _TooBig(_line(mark), f"the spec expands to more than {MAX_KEYS:,} keys (through aliases "
                          "or sheer size)")

    def compose_node(self, parent: Any, index: Any) -> yaml.Node:
        if self.check_event(yaml.AliasEvent):
            return self._compose_alias(parent, index)
        event = self.peek_event()
        nested = isinstance(event, yaml.CollectionStartEvent)
        self._depth += nested
        if self._depth > MAX_DEPTH:
            raise _TooBig(_line(event.start_mark), f"nesting deeper than {MAX_DEPTH} levels")
        start = (self._nodes, self._keys)
        self._count(1, 0, event.start_mark)
        node = super().compose_node(parent, index)
        if isinstance(node, yaml.MappingNode):
            self._count(0, len(node.value), event.start_mark)
        self._depth -= nested
        if event.anchor is not None:
            self._sizes[event.anchor] = (self._nodes - start[0], self._keys - start[1])
        return node

    def _compose_alias(self, parent: Any, index: Any) -> yaml.Node:
        event = self.peek_event()
        name = event.anchor
        if name in self.anchors and name not in self._sizes:
            raise _TooBig(_line(event.start_mark), f"alias *{name} is used inside the value it names "
                          "(a recursive alias)")
        node = super().compose_node(parent, index)  # an undefined alias raises ComposerError here
        self._uses[name] = self._uses.get(name, 0) + 1
        if self._uses[name] > MAX_ALIAS_USES:
            raise _TooBig(_line(event.start_mark), f"alias *{name} is used more than {MAX_ALIAS_USES:,} times")
        self._count(*self._sizes[name], event.start_mark)
        return node

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        """Explicit tags on values they cannot hold (``!!int x``, ``!!timestamp abc``) become YAML errors."""
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, AttributeError, KeyError, OverflowError, IndexError):
            implicit = isinstance(node, yaml.ScalarNode) and self.resolve(yaml.ScalarNode, node.value,
                                                                           (True, False)) == node.tag
            hint = " (quote it to keep it as text)" if implicit else ""
            raise yaml.constructor.ConstructorError(
                None, None, f"{_shown(node.value)} cannot be read as {_short_tag(node.tag)}{hint}",
                node.start_mark) from None

    def construct_undefined(self, node: yaml.Node) -> Any:
        raise yaml.constructor.ConstructorError(
            None, None, f"unknown tag {_short_tag(node.tag)}; a spec needs no tags (plain YAML values only)",
            node.start_mark)


# YAML 1.2 numbers that PyYAML's YAML 1.1 rules read as text: an exponent without a dot (1e-3) or with
# an unsigned exponent (1.5e3). Read as numbers, since strict fields would otherwise refuse them.
_SpecLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."))
_SpecLoader.add_constructor(None, _SpecLoader.construct_undefined)


class _PySpecLoader(_SpecLoader, Reader, Scanner, Parser):
    """The pure-Python parser, for PyYAML builds without libyaml."""

    def __init__(self, stream: str):
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        _SpecLoader.__init__(self)

    def fetch_flow_collection_start(self, TokenClass: Any) -> None:  # noqa: N803 (PyYAML's name)
        """Refuse deep flow nesting (``[[[[...``) while scanning: PyYAML's scanner slows down with every level."""
        if self.flow_level >= MAX_DEPTH:
            raise _TooBig(self.line + 1, f"nesting deeper than {MAX_DEPTH} levels")
        super().fetch_flow_collection_start(TokenClass)


_LOADERS: list[type[_SpecLoader]] = [_PySpecLoader]
try:
    from yaml._yaml import CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    pass
else:
    class _CSpecLoader(_SpecLoader, CParser):  # type: ignore[misc, valid-type]
        """libyaml's parser (in C) feeding the counting composer."""

        def __init__(self, stream: str):
            CParser.__init__(self, stream)
            _SpecLoader.__init__(self)

    _LOADERS.insert(0, _CSpecLoader)


def _short_tag(tag: str) -> str:
    return "!!" + tag[len("tag:yaml.org,2002:"):] if tag.startswith("tag:yaml.org,2002:") else tag


def _shown(value: Any, limit: int = 60) -> str:
    """A user's value for a message: repr, cut to ``limit`` characters."""
    if not isinstance(value, (str, int, float, bool)) or value is None:
        return "a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict) else repr(value)
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "...'"


def _parse_yaml(text: str, source: str, loader_class: type[_SpecLoader] | None = None
                ) -> tuple[yaml.Node | None, Any]:
    """Compose and construct ``text`` once, under the limits; every failure is a SpecError with its line."""
    loader = None
    try:
        loader = (loader_class or _LOADERS[0])(text)  # type: ignore[call-arg]
        node = loader.get_single_node()
        return node, (loader.construct_document(node) if node is not None else None)
    except _TooBig as exc:
        raise SpecError(source, [Problem(source, exc.line, "", exc.message)]) from None
    except yaml.YAMLError as exc:
        line, what = _yaml_error(exc, text)
        if "maximum nesting depth" in what:  # libyaml (0.2.5+) scans ahead and has a limit of its own
            raise SpecError(source, [Problem(source, line, "", f"nesting deeper than {MAX_DEPTH} levels")]) from None
        raise SpecError(source, [Problem(source, line, "", f"not valid YAML: {what}")]) from None
    except RecursionError:  # pragma: no cover - MAX_DEPTH keeps composing far from the recursion limit
        raise SpecError(source, [Problem(source, None, "", f"nesting deeper than {MAX_DEPTH} levels")]) from None
    finally:
        if loader is not None:
            getattr(loader, "dispose", lambda: None)()


def _yaml_error(exc: yaml.YAMLError, text: str) -> tuple[int | None, str]:
    """(line, one-line message) of a YAML error; a reader error knows only its character position."""
    if isinstance(exc, yaml.reader.ReaderError):
        line = text.count("\n", 0, exc.position) + 1 if isinstance(exc.position, int) else None
        char = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "?")
        return line, f"character #x{char:04x} is not allowed (control characters and invalid text are refused)"
    mark = getattr(exc, "problem_mark", None)
    what = getattr(exc, "problem", None) or str(exc)
    return _line(mark), " ".join(str(what).split())


# --------------------------------------------------------------------------------------------
# YAML with positions


class _Positions:
    """Line of every key/value in a YAML document, by field path (tuple of keys and indices)."""

    def __init__(self) -> None:
        self.lines: dict[tuple[Any, ...], int] = {}
        self.problems: list[Problem] = []
        self._checked: set[int] = set()

    def walk(self, node: yaml.Node, path: tuple[Any, ...], source: str) -> None:
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            first = id(node) not in self._checked  # a mapping reached again through an alias: report once
            self._checked.add(id(node))
            seen: set[Any] = set()
            for key_node, value_node in node.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else id(key_node)
                if key in seen and first:
                    self.problems.append(Problem(source, key_node.start_mark.line + 1, _dotted(path + (key,)),
                                                 f"key {key!r} appears more than once"))
                seen.add(key)
                self.lines[path + (key,)] = key_node.start_mark.line + 1
                self.walk(value_node, path + (key,), source)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                self.walk(item, path + (i,), source)

    def line_of(self, path: tuple[Any, ...]) -> int | None:
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return None



def _dotted(path: tuple[Any, ...]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"
