"""The package's layers import in one direction only, with no cycle (function-local imports included).

Layers, lowest first (docs/architecture.md): a module imports only from lower layers or from inside its own
package; a few same-or-lower edges are forbidden outright because they would tie a layer to what it
must not know (the renderer to the analyses or the spec, the data layer to statistics tests, ...).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "sigreport"

LAYERS = {
    "sigreport.version": 1, "sigreport.errors": 1, "sigreport.forking": 1, "sigreport.defaults": 1,
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
