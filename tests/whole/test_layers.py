"""The package's layers import in one direction only, with no cycle (function-local imports included).

Layers, lowest first (docs/architecture.md): a module imports only from lower layers or from inside its own
package; a few same-or-lower edges are forbidden outright because they would tie a layer to what it
must not know (the renderer to the analyses or the spec, the data layer to statistics tests, ...).
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "sigreport"

LAYERS = {
    "sigreport.version": 1, "sigreport.errors": 1, "sigreport.forking": 1, "sigreport.defaults": 1,
    "sigreport.escaping": 1,
    "sigreport.speed": 2,
    "sigreport.stats": 3,
    "sigreport.spec": 4, "sigreport.results": 4,
    "sigreport.data": 5, "sigreport.plan": 5, "sigreport.archive": 5,
    "sigreport.analyses": 6, "sigreport.execute": 6, "sigreport.render": 6,
    "sigreport.api": 7, "sigreport.from_sklearn": 7, "sigreport": 7,
    "sigreport.cli": 8,
}
FORBIDDEN = [  # (importer package, imported package): allowed by layer, refused by design
    ("sigreport.render", "sigreport.spec"), ("sigreport.render", "sigreport.data"),
    ("sigreport.render", "sigreport.plan"), ("sigreport.execute", "sigreport.spec"),
    ("sigreport.execute", "sigreport.data"), ("sigreport.plan", "sigreport.spec"),
    ("sigreport.plan", "sigreport.data"), ("sigreport.archive", "sigreport.data"),
    ("sigreport.archive", "sigreport.plan"), ("sigreport.results", "sigreport.spec"),
]


def modules() -> dict[str, Path]:
    out = {}
    for f in PACKAGE.rglob("*.py"):
        parts = list(f.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every sigreport module ``name`` imports, anywhere in the file."""
    found = set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            cands = [f"{target}.{a.name}" for a in node.names] + [target]
        elif isinstance(node, ast.Import):
            cands = [a.name for a in node.names]
        else:
            continue
        for c in cands:
            if c in known:
                found.add(c)
                break
    found.discard(name)
    return found


def owner(module: str) -> str:
    """The layer entry a module belongs to (the longest matching prefix)."""
    best = ""
    for key in LAYERS:
        if (module == key or module.startswith(key + ".")) and len(key) > len(best):
            best = key
    assert best, f"{module} is in no layer: add it to LAYERS"
    return best


def graph() -> dict[str, set[str]]:
    known = modules()
    return {m: imports(m, p, known) for m, p in known.items()}


def test_every_module_has_a_layer():
    for m in modules():
        owner(m)


def test_no_upward_or_sideways_import():
    bad = []
    for m, targets in graph().items():
        om = owner(m)
        for t in targets:
            ot = owner(t)
            if ot == om:
                continue
            if LAYERS[ot] >= LAYERS[om] or (om, ot) in FORBIDDEN:
                bad.append(f"{m} ({om}, layer {LAYERS[om]}) imports {t} ({ot}, layer {LAYERS[ot]})")
    assert not bad, "\n".join(sorted(bad))


def test_no_import_cycle():
    g = graph()
    state: dict[str, int] = {}
    cycles = []

    def visit(v: str, stack: list[str]) -> None:
        state[v] = 1
        for w in sorted(g[v]):
            if state.get(w) == 1:
                cycles.append(" -> ".join(stack[stack.index(w):] + [v, w]) if w in stack else f"{v} -> {w}")
            elif w not in state:
                visit(w, stack + [v])
        state[v] = 2

    for v in sorted(g):
        if v not in state:
            visit(v, [])
    assert not cycles, "\n".join(cycles)


def test_the_checker_sees_function_local_imports(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("def f():\n    from sigreport.render import html\n")
    assert imports("sigreport.stats.m", f, {"sigreport.render": f, "sigreport.render.html": f}) == \
        {"sigreport.render.html"}


# ---- render/ reads typed records and its own options, never Any chains or the spec ----------------------------

RENDER = PACKAGE / "render"
TYPED_READERS = [*sorted(RENDER.rglob("*.py")), PACKAGE / "results" / "decisions.py"]  # they read the records
ANY_ALLOWED = {  # (file, function or class, parameter or field): why it takes anything; keep this list short
    ("render/figures/output.py", "get_glyphs_subset", "fontfile"): "matplotlib's private function, replaced",
    ("render/figures/output.py", "get_glyphs_subset", "glyphs"): "matplotlib's private function, replaced",
    ("render/figures/output.py", "font_as_file", "font"): "matplotlib's private function, replaced",
    ("render/figures/output.py", "measured", "renderer"): "matplotlib's private function, replaced",
    ("render/figures/output.py", "measured", "prop"): "matplotlib's private function, replaced",
    ("render/figures/output.py", "measured", "ismath"): "matplotlib's private function, replaced",
    ("render/views/__init__.py", "data_files", "info"): "results.json's data section (JSON data), not a record",
    ("render/views/settings.py", "data_rows", "data"): "results.json's data section (JSON data), not a record",
    ("render/views/settings.py", "_score_rows", "data"): "results.json's data section (JSON data), not a record",
    ("render/views/settings.py", "Tests", ""): "results.json's tests section (JSON data), not a record",
    ("render/model.py", "ReportModel", "methods"): "views.methods.Methods, made above the model (no import back)",
    ("results/decisions.py", "analysis_key", "a"): "an analysis of a hand-made document, before it is read",
    ("results/decisions.py", "decide_document", "doc"): "a hand-made document, before it is read",
}


def _mentions_any(node: ast.AST | None, aliases: set[str]) -> bool:
    return node is not None and any(
        (isinstance(n, ast.Name) and (n.id == "Any" or n.id in aliases)) or (isinstance(n, ast.Attribute)
                                                                             and n.attr == "Any")
        for n in ast.walk(node))


def _any_aliases(tree: ast.Module, rel: str, found: list[str]) -> set[str]:
    """Module-level names bound to a type mentioning Any (so that an alias cannot hide it)."""
    out = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and _mentions_any(node.value, set()) and isinstance(node.value, (ast.Subscript, ast.BinOp)):
            name = node.targets[0].id
            if (rel, name, "") not in ANY_ALLOWED:  # an allowed alias is allowed wherever it is used
                out.add(name)
                found.append(f"{rel}: alias {name} = ... Any")
    return out


def any_annotations(path: Path, root: Path = PACKAGE) -> list[str]:
    """Parameters and class fields annotated with Any (or an alias of it) in ``path``, not in ANY_ALLOWED."""
    rel = path.relative_to(root).as_posix()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    aliases = _any_aliases(tree, rel, found)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, (a.vararg, a.kwarg))]:
                if _mentions_any(arg.annotation, aliases) and (rel, node.name, arg.arg) not in ANY_ALLOWED:
                    found.append(f"{rel}:{node.lineno} {node.name}({arg.arg})")
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and \
                        _mentions_any(item.annotation, aliases) and (rel, node.name, item.target.id) not in ANY_ALLOWED:
                    found.append(f"{rel}:{item.lineno} {node.name}.{item.target.id}")
    return found


def test_render_and_decisions_take_typed_records_not_any():
    """Records reach render/ and the decisions typed (built by the analyses, or read back from results.json into
    the same classes), so no function there takes Any (the few that truly take anything are listed above)."""
    found = [f for path in TYPED_READERS for f in any_annotations(path)]
    assert found == []


def test_the_any_checker_sees_parameters_fields_and_aliases(tmp_path):
    probe = tmp_path / "render" / "probe.py"
    probe.parent.mkdir()
    probe.write_text("from typing import Any\nRecordish = dict[str, Any]\n"
                     "def view(r: Any, lab: int, *rest: 'str') -> None: ...\n"
                     "def other(r: Recordish) -> None: ...\n"
                     "class Col:\n    desc: Any\n    ok: int\n")
    assert any_annotations(probe, tmp_path) == ["render/probe.py: alias Recordish = ... Any",
                                                "render/probe.py:3 view(r)", "render/probe.py:4 other(r)",
                                                "render/probe.py:6 Col.desc"]


def test_no_attribute_chains_on_records_in_render_or_decisions():
    """No ``getattr``/``hasattr`` reads a record by name where records are read: views, the figures of records,
    the decisions (matplotlib's own objects in figures/output.py and the figure cache are not records)."""
    readers = [p for p in TYPED_READERS if p.name not in ("output.py", "figure_cache.py", "svg_text.py")]
    found = []
    for path in readers:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr",
                                                                                                  "hasattr"):
                found.append(f"{path.relative_to(PACKAGE).as_posix()}:{node.lineno}")
        found += [f"{path.relative_to(PACKAGE).as_posix()}:{node.lineno} def {node.name}" for node in tree.body
                  if isinstance(node, ast.FunctionDef) and node.name in ("get", "_get", "extra")]
    assert found == []


def test_render_reads_nothing_that_came_from_the_spec():
    """The renderer takes the results and its options (sigreport.render.options), built from the spec in api/:
    no render module imports the spec (FORBIDDEN above), names a spec type, or reads a ``spec`` attribute."""
    found = []
    for path in sorted(RENDER.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("spec", "spec_file"):
                found.append(f"{rel}:{node.lineno} .{node.attr}")
            elif isinstance(node, ast.Name) and (node.id in ("Spec", "SpecFile") or node.id.endswith("Spec")):
                found.append(f"{rel}:{node.lineno} {node.id}")
            elif isinstance(node, ast.Constant) and node.value in ("spec", "spec_file", "outputs"):
                found.append(f"{rel}:{node.lineno} {node.value!r}")
    assert found == []


def _pydantic_inside(value: object, seen: set[int] | None = None) -> bool:
    import dataclasses

    from pydantic import BaseModel

    seen = set() if seen is None else seen
    if id(value) in seen or isinstance(value, (str, int, float, bool, type(None))):
        return False
    seen.add(id(value))
    if isinstance(value, BaseModel):
        return True
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(_pydantic_inside(getattr(value, f.name), seen) for f in dataclasses.fields(value))
    if isinstance(value, dict):
        return any(_pydantic_inside(v, seen) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_pydantic_inside(v, seen) for v in value)
    return False


def test_results_and_render_options_hold_no_spec_model():
    """Results carry no spec (no field of a pydantic type, nothing pydantic inside an analysed example), and the
    options api/ gives the renderer are plain data too."""
    import typing

    from pydantic import BaseModel

    import sigreport
    from conftest import CONFIGS
    from sigreport.api.options import render_options
    from sigreport.results import Results

    hints = typing.get_type_hints(Results)
    kinds = {t for hint in hints.values() for t in [hint, *typing.get_args(hint)] if isinstance(t, type)}
    assert "spec" not in hints and not any(issubclass(t, BaseModel) for t in kinds)
    for name in ("summarization", "classifiers"):
        sf = sigreport.load_spec(CONFIGS / f"{name}.yaml")
        results = sigreport.analyze(sf)
        assert not _pydantic_inside(results) and not _pydantic_inside(render_options(sf.spec))
    assert _pydantic_inside({"x": [sf.spec.outputs]})  # the check finds a model where there is one
