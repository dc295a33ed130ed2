"""What ``validate`` and ``plan`` run, and every build starts with: the spec file, its data, the plan.

Apart from :mod:`sigreport.api.pipeline` (which re-exports these names) so that ``sigreport validate`` imports
the spec, data and analysis layers alone, not the build's writers, archive, cache and worker processes
(docs/performance.md: start-up). Nothing here creates, renames or deletes a file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sigreport.analyses import build_plan, figure_problems
from sigreport.data import Dataset, load_data, with_frames
from sigreport.errors import Problem, SpecError, strict_problems
from sigreport.plan import Plan
from sigreport.results import Results
from sigreport.spec import SpecFile, load_spec_file, output_dir


@dataclasses.dataclass(frozen=True)
class Prepared:
    """A validated spec, its data and its plan, and the output folder a build would write."""

    spec_file: SpecFile
    dataset: Dataset
    plan: Plan
    dest: Path
    steps: tuple[Any, ...] | None = None  # None: COLLECT_STEPS; the power step on the Dask workers when they hold the blocks (:mod:`.shards`)


def spec_file(source: SpecFile | str | Path) -> SpecFile:
    """A loaded spec, or the spec file at a path (the command line's argument is always a file)."""
    return source if isinstance(source, SpecFile) else load_spec_file(source)


def prepare(spec_path: SpecFile | str | Path, out: str | Path | None = None,
            previous: Results | None = None, frames: Mapping[str, Any] | None = None) -> Prepared:
    """Validate spec and data and expand the plan (no statistics yet): what ``validate``, ``plan`` and
    ``analyze`` do, which create, rename and delete nothing (what a stopped build left beside the output
    folder waits for the next build's recovery). ``previous``: the previous report's results, for
    ``selection``; nothing is read from the output folder here. ``frames``: data frames standing in for the
    spec's tables (Python API)."""
    sf = with_frames(spec_file(spec_path), frames or {})
    ds = load_data(sf, frames)
    dest = Path(out).resolve() if out else output_dir(sf)
    return Prepared(sf, ds, plan_of(sf, ds, previous), dest)


def plan_of(sf: SpecFile, ds: Dataset, previous: Results | None) -> Plan:
    """The plan of a validated spec on its data; a figure kind listed that no analysis can draw is an error."""
    plan = build_plan(sf.spec, ds, previous)
    problems = figure_problems(sf, plan)
    if problems:
        raise SpecError(str(sf.path), problems)
    return plan


def strict_failures(sf: SpecFile, warnings: list[Problem], unused: bool = True) -> list[Problem]:
    """The warnings that fail ``--strict`` (:func:`sigreport.errors.strict_problems`: each note once with the
    analyses it came from, less those ``strict.allow`` accepts; ``unused``: an entry that matches no note fails)."""
    allow = sf.spec.strict.allow
    return strict_problems(warnings, allow, str(sf.path), [sf.line_of("strict", "allow", i) for i in range(len(allow))],
                           unused)
