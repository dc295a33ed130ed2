"""The speed seam is imported where a trick is applied, not spread over the package (design.md, "Speed behind
a seam"): the modules outside sigreport/speed/ that import it are the ones listed here, each with the trick it
applies, and none of them reads the switch (``is_plain``) itself: the speed module that applies a trick decides.
"""

from __future__ import annotations

import ast

from conftest import ROOT

PACKAGE = ROOT / "sigreport"

SEAM_USERS = {  # module -> the trick it applies (or the switch it sets); a new entry needs its reason
    "sigreport/cli.py": "owns its process (gc freezing) and leaves an unchanged report as it is",
    "sigreport/api/__init__.py": "sets the switch for a library call (plain=True)",
    "sigreport/api/outputs.py": "writes results.json in a forked process while the report renders",
    "sigreport/api/running.py": "forks figure workers before the data is read",
    "sigreport/api/pipeline.py": "the build's tricks: unchanged reports, gc freezing, import prefetch, workers",
    "sigreport/execute/runner.py": "BLAS held to one thread in the serial executor",
    "sigreport/render/figures/output.py": "figures drawn in forked workers; matplotlib's font subsets, "
                                          "text measurements and font lookups kept; layout without a draw",
    "sigreport/render/views/__init__.py": "takes the forked figure workers (their Ready and Waiting types)",
    "sigreport/api/figures.py": "runs the figure tasks on workers forked ahead of their work",
    "sigreport/execute/forked.py": "the executor of workers forked ahead of their work (figure tasks)",
    "sigreport/render/views/drawing.py": "draws a figure task in a worker made ready ahead (the Ready type)",
    "sigreport/results/io.py": "results.json written in one pass",
    "sigreport/stats/registry.py": "plugins looked up without importlib.metadata's scan when none is installed",
    "sigreport/data/sources/lm_eval.py": "no collector passes while the samples JSON is parsed (a tree, no cycles)",
    "sigreport/data/sources/trec.py": "no collector passes while the qrels and runs are read (dicts, no cycles)",
    "sigreport/stats/tails.py": "scipy's private routines (nct, studentized range, Shapiro-Wilk)",
}


def speed_imports(path) -> set[str]:
    """The names of sigreport.speed a module imports (its modules or functions), anywhere in the file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and (node.module == "sigreport.speed"
                                                                 or node.module.startswith("sigreport.speed.")):
            found |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("sigreport.speed")}
    return found


def outside_speed() -> dict[str, set[str]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if not rel.startswith("sigreport/speed/") and (names := speed_imports(path)):
            out[rel] = names
    return out


def test_only_the_modules_that_apply_a_trick_import_the_seam():
    users = outside_speed()
    assert sorted(users) == sorted(SEAM_USERS), "a module imports sigreport.speed: apply the trick there and say " \
        "why in SEAM_USERS, or route it through the module that applies it"
    assert all(reason.strip() for reason in SEAM_USERS.values())


def test_no_module_outside_the_seam_reads_the_switch():
    readers = {m: n for m, n in outside_speed().items() if "sigreport.speed.is_plain" in n}
    assert readers == {}


def test_the_check_sees_function_local_imports(tmp_path):
    probe = tmp_path / "m.py"
    probe.write_text("def f():\n    from sigreport.speed import is_plain, unchanged\n    import sigreport.speed.mpl\n")
    assert speed_imports(probe) == {"sigreport.speed.is_plain", "sigreport.speed.unchanged", "sigreport.speed.mpl"}
