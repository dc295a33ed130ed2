"""Loading a spec: a file, YAML text or a mapping, validated into a :class:`SpecFile` that knows its lines."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sigreport.errors import Problem, SpecError
from sigreport.spec.messages import _message
from sigreport.spec.models import Spec, _At
from sigreport.spec.sources import FORMATS
from sigreport.spec.yaml_loading import MAX_SPEC_BYTES, _dotted, _parse_yaml, _Positions

@dataclasses.dataclass(frozen=True)
class SpecFile:
    """A validated spec with where it came from, so later stages can point at its lines.

    ``path`` is the spec file; for YAML text or a mapping it is a stand-in name (``<spec text>``,
    ``<spec mapping>``) used in messages. ``folder`` is where relative paths (data tables, outputs.dir,
    user aggregate modules) resolve: the file's folder, the current folder at load time for text and
    mappings, or ``base_dir`` when given to :func:`load_spec`.
    """

    path: Path
    spec: Spec
    lines: dict[tuple[Any, ...], int]
    folder: Path
    from_file: bool = True

    @property
    def name(self) -> str:
        """Short name of the spec: the file name without suffix, or 'spec' for text and mappings."""
        return self.path.stem if self.from_file else "spec"

    def line_of(self, *path: Any) -> int | None:
        p = tuple(path)
        while p:
            if p in self.lines:
                return self.lines[p]
            p = p[:-1]
        return None

    def problem(self, message: str, *path: Any) -> Problem:
        return Problem(str(self.path), self.line_of(*path), _dotted(tuple(path)), message)

    def resolve(self, relative: str) -> Path:
        return (self.folder / relative).resolve()


SpecSource = str | os.PathLike[str] | Mapping[str, Any] | Spec | SpecFile
TEXT_SOURCE = Path("<spec text>")
MAPPING_SOURCE = Path("<spec mapping>")


def is_spec_path(source: str | os.PathLike[str]) -> bool:
    """The rule :func:`load_spec` uses: a ``Path`` (any ``os.PathLike``) is a file; a ``str`` is a file name
    when it has no newline and ends in ``.yaml`` or ``.yml`` (any case), and YAML text otherwise."""
    if isinstance(source, os.PathLike):
        return True
    return "\n" not in source and source.lower().endswith((".yaml", ".yml"))


def load_spec(source: SpecSource, *, base_dir: str | os.PathLike[str] | None = None) -> SpecFile:
    """Read and validate a spec from a file, YAML text or a mapping; raise SpecError listing every problem.

    A ``Path`` is a file; a ``str`` is a file when it has no newline and ends in ``.yaml``/``.yml``,
    otherwise it is YAML text (see :func:`is_spec_path`); a mapping (or a :class:`Spec`) is validated as
    it is; a :class:`SpecFile` is returned as it is. Problems carry their field path, and their line when
    there is text. Relative paths in the spec resolve against ``base_dir`` when given, else the file's
    folder, else the current folder at the time of the call.
    """
    base = Path(base_dir).resolve() if base_dir is not None else None
    if isinstance(source, SpecFile):
        return source if base is None else dataclasses.replace(source, folder=base)
    if isinstance(source, Spec):
        return SpecFile(MAPPING_SOURCE, source, {}, base or Path.cwd().resolve(), from_file=False)
    if isinstance(source, Mapping):
        return _validate(dict(source), _Positions(), MAPPING_SOURCE, base or Path.cwd().resolve(), False)
    if isinstance(source, (str, os.PathLike)) and is_spec_path(source):
        path = Path(source)
        return _load_text(_read_spec(path), path, base or path.resolve().parent, True)
    if isinstance(source, str):
        return _load_text(source, TEXT_SOURCE, base or Path.cwd().resolve(), False)
    raise TypeError(f"load_spec takes a path, YAML text or a mapping, not {type(source).__name__}")


def load_spec_file(path: str | os.PathLike[str]) -> SpecFile:
    """A spec file (whatever its name ends in), with its path and line positions."""
    path = Path(path)
    return _load_text(_read_spec(path), path, path.resolve().parent, True)


def _read_spec(path: Path) -> str:
    """The file's text, refusing before reading anything larger than :data:`MAX_SPEC_BYTES`."""
    source = str(path)
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_SPEC_BYTES + 1)
    except FileNotFoundError:
        raise SpecError(source, [Problem(source, None, "", "file not found")]) from None
    except IsADirectoryError:
        raise SpecError(source, [Problem(source, None, "", "is a folder, not a spec file")]) from None
    except OSError as exc:
        raise SpecError(source, [Problem(source, None, "", f"cannot read: {exc.strerror or exc}")]) from None
    if len(data) > MAX_SPEC_BYTES:
        raise SpecError(source, [_too_large(source)])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SpecError(source, [Problem(source, None, "", f"cannot read: not UTF-8 text ({exc.reason} at "
                                         f"byte {exc.start})")]) from None


def _too_large(source: str) -> Problem:
    return Problem(source, None, "", f"the spec is larger than {MAX_SPEC_BYTES // 1024 // 1024} MiB; a spec "
                   "describes an experiment, its data go in data tables")


def _load_text(text: str, path: Path, folder: Path, from_file: bool) -> SpecFile:
    source = str(path)
    if len(text) > MAX_SPEC_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_SPEC_BYTES:
        raise SpecError(source, [_too_large(source)])
    node, raw = _parse_yaml(text, source)
    positions = _Positions()
    if node is not None:
        positions.walk(node, (), source)
    if positions.problems:
        raise SpecError(source, positions.problems)
    if not isinstance(raw, dict):
        hint = ("; to load a file, pass a Path or a name ending in .yaml"
                if not from_file and isinstance(raw, str) and "\n" not in text.strip() else "")
        raise SpecError(source, [Problem(source, 1, "", "the spec must be a YAML mapping (key: value lines)" + hint)])
    return _validate(raw, positions, path, folder, from_file)


def _validate(raw: dict[Any, Any], positions: _Positions, path: Path, folder: Path, from_file: bool) -> SpecFile:
    source = str(path)
    try:
        return SpecFile(path, Spec.model_validate(raw), dict(positions.lines), folder, from_file)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            loc = _without_tags(tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))))
            at = (err.get("ctx") or {}).get("error")
            if isinstance(at, _At):
                loc = loc + at.path
            problems.append(Problem(source, positions.line_of(loc), _dotted(loc), _message(err, loc)))
        raise SpecError(source, problems) from None


def _without_tags(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """A field path without the tag pydantic puts after ``data.scores`` to say which source model it tried."""
    for i in range(2, len(loc)):
        if loc[i - 2:i] in (("data", "scores"), ("data", "outcomes")) and loc[i] in (*FORMATS, "path"):
            return loc[:i] + loc[i + 1:]
    return loc


def output_dir(sf: SpecFile) -> Path:
    """Report folder: ``outputs.dir`` (relative to the spec's folder) or ``reports/<spec name>/`` in that folder."""
    if sf.spec.outputs.dir:
        return sf.resolve(sf.spec.outputs.dir)
    return sf.folder / "reports" / sf.name


def json_schema() -> dict[str, Any]:
    """JSON Schema of the spec, for editors (committed as schema/sigreport.schema.json)."""
    schema = Spec.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "sigreport spec"
    return schema
