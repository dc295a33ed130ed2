"""House style that can be checked mechanically: no function in the package is longer than one screen.

A function is measured from its ``def`` line to its last line (docstring and comments included, decorators
not), nested functions and methods each on their own. Longer than ``MAX_LINES`` is allowed only for a
documented transcription of a reference algorithm, which is easier to check against its source whole:
such a function goes into ``ALLOWED`` below with the reason, and its docstring (or its module's) must say
that it is a transcription.
"""

from __future__ import annotations

import ast
import re

from conftest import ROOT

PACKAGE = ROOT / "sigreport"
MAX_LINES = 80

# "module:qualified.name" -> why it may stay whole. Empty today: every function fits in MAX_LINES
# (stats/roots.brentq_many, a line-by-line transcription of scipy's brentq.c, is 75 lines).
# An entry must name a function that exists, is over MAX_LINES and is documented as a transcription.
ALLOWED: dict[str, str] = {}


def function_lengths(source: str) -> dict[str, tuple[int, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function's qualified name (``outer.inner``, ``Class.method``) -> (lines, node)."""
    out: dict[str, tuple[int, ast.FunctionDef | ast.AsyncFunctionDef]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                assert child.end_lineno is not None
                out[name] = (child.end_lineno - child.lineno + 1, child)
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return out


def package_functions() -> dict[str, tuple[int, ast.FunctionDef | ast.AsyncFunctionDef, ast.Module]]:
    """``module:qualified.name`` -> (lines, node, module tree) for every function in the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        for name, (lines, node) in function_lengths(source).items():
            out[f"{module}:{name}"] = (lines, node, tree)
    return out


def test_no_function_is_longer_than_one_screen():
    too_long = {name: lines for name, (lines, _, _) in package_functions().items()
                if lines > MAX_LINES and name not in ALLOWED}
    listing = "\n".join(f"  {name}: {lines} lines" for name, lines in sorted(too_long.items(), key=lambda x: -x[1]))
    assert not too_long, (f"functions over {MAX_LINES} lines (split them into named steps, or list a documented "
                          f"transcription in ALLOWED):\n{listing}")


def test_every_allowed_function_is_a_long_documented_transcription():
    functions = package_functions()
    for name, reason in ALLOWED.items():
        assert reason.strip(), f"{name}: say why it may stay whole"
        assert name in functions, f"{name} is in ALLOWED but no such function exists"
        lines, node, tree = functions[name]
        assert lines > MAX_LINES, f"{name} is {lines} lines, within {MAX_LINES}: remove it from ALLOWED"
        docs = (ast.get_docstring(node) or "") + (ast.get_docstring(tree) or "")
        assert "transcription" in docs.lower(), f"{name}: its docstring (or its module's) must say it is a transcription"


def test_the_measure_counts_every_line_and_every_nesting():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))  # def line + MAX_LINES lines
    source = (f"def long():\n{body}\n\n\n"
              "class C:\n    def method(self):\n        def inner():\n            return 1\n        return inner()\n\n\n"
              "def caller():\n    async def helper():\n        pass\n    return helper\n")
    lengths = {name: lines for name, (lines, _) in function_lengths(source).items()}
    assert lengths == {"long": MAX_LINES + 1, "C.method": 4, "C.method.inner": 2, "caller": 4, "caller.helper": 2}


# A comment or docstring cites the paper or document it rests on ("Demšar 2006", "Leite and Rino 2009"),
# not a pointer into the project's own history ("seed 003", "issue 12") that a reader cannot follow.
POINTER = re.compile(r"\bseed[ -]?0\d\d|\bseed0|\bthe seed(?:'s| does)\b|\bseed example\b|\b[Ii]ssues? #?\d+\b"
                     r"|\bseeds?'? README\b|\bseeds/")
# Files other changes were editing when the pointers were replaced (issue 29, item 10): pending, to be
# checked once those changes have landed. Each entry is a path relative to sigreport/. None is left.
POINTERS_PENDING: frozenset[str] = frozenset()


def test_no_seed_or_issue_pointers_in_the_package() -> None:
    found = [f"{path.relative_to(PACKAGE)}:{n}: {line.strip()}"
             for path in sorted(PACKAGE.rglob("*.py"))
             if path.relative_to(PACKAGE).as_posix() not in POINTERS_PENDING
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if POINTER.search(line)]
    assert not found, "cite the source instead of a seed/issue pointer:\n" + "\n".join(found)


def test_pending_pointer_files_exist() -> None:
    missing = sorted(p for p in POINTERS_PENDING if not (PACKAGE / p).is_file())
    assert not missing, f"POINTERS_PENDING names files that do not exist: {missing}"


# A test's build helper goes through conftest's (cli_build, build_results, build_files): one place that runs
# a build, requires exit 0 and shows the build's message. Helpers that run sigreport in another process on
# purpose (subprocess: a process to kill, a fresh interpreter, an installed plugin) are not in-process builds.
def _direct_builds(tree: ast.AST) -> list[str]:
    found = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        if not re.match(r"_?(run_)?build", fn.name):
            continue
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
            name = call.func.id if isinstance(call.func, ast.Name) else None
            first = call.args[0] if call.args else None
            builds = (isinstance(first, ast.Constant) and first.value == "build" or isinstance(first, ast.List) and
                      first.elts and isinstance(first.elts[0], ast.Constant) and first.elts[0].value == "build")
            if name in ("main", "cli") and builds:
                found.append(f"{fn.name}:{call.lineno}")
    return found


def test_build_helpers_in_tests_go_through_conftest() -> None:
    tests = ROOT / "tests"
    found = [f"{path.relative_to(tests)}: {where}" for path in sorted(tests.rglob("*.py")) if path.name != "conftest.py"
             for where in _direct_builds(ast.parse(path.read_text(encoding="utf-8")))]
    assert not found, "use conftest's cli_build / build_results / build_files:\n" + "\n".join(found)
