"""Command line: ``sigreport build|validate|plan|schema``.

Maps user mistakes (:class:`~sigreport.errors.UserError`) to one line per problem and exit code 2,
without a traceback; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from sigreport import __version__
from sigreport.errors import UserError, printable

FORMATS = ("html", "pdf", "latex", "json")


class Progress:
    """A one-line progress display on a terminal, only for builds that take more than a moment."""

    def __init__(self, enabled: bool):
        self.enabled = enabled and sys.stderr.isatty()
        self.start = time.monotonic()
        self.shown = False

    def __call__(self, done: int, total: int, what: str) -> None:
        if not self.enabled or (not self.shown and time.monotonic() - self.start < 0.5):
            return
        self.shown = True
        sys.stderr.write(f"\r\x1b[K[{done}/{total}] {printable(what)}"[:120])
        sys.stderr.flush()

    def finish(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _formats(value: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    bad = [v for v in items if v not in FORMATS]
    if bad or not items:
        raise argparse.ArgumentTypeError(f"unknown format(s) {', '.join(bad) or '(none)'}; known: {', '.join(FORMATS)}")
    return items


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="sigreport", description="Significance reports for comparing systems.")
    ap.add_argument("--version", action="version", version=f"sigreport {__version__}")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    b = sub.add_parser("build", help="validate, run every analysis and write the report")
    b.add_argument("spec", help="the YAML spec")
    b.add_argument("-o", "--output", help="report folder (default: the spec's outputs.dir)")
    b.add_argument("--formats", type=_formats, help="comma-separated subset of html,pdf,latex,json")
    b.add_argument("--strict", action="store_true", help="fail (exit 2) when any analysis has a warning")
    b.add_argument("--templates", help="folder of templates overriding the built-in ones (html/, latex/)")
    b.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    v = sub.add_parser("validate", help="check the spec and the data; compute nothing")
    v.add_argument("spec")
    v.add_argument("-q", "--quiet", action="store_true")
    p = sub.add_parser("plan", help="print the analysis DAG: nodes and dependencies")
    p.add_argument("spec")
    s = sub.add_parser("schema", help="print the JSON Schema of the spec")
    s.add_argument("-o", "--output", help="write to this file instead of standard output")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return _run(args)
    except UserError as exc:
        print(exc.render(), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; nothing was written", file=sys.stderr)
        return 130


def _run(args: argparse.Namespace) -> int:
    from sigreport import build as b

    if args.command == "schema":
        from sigreport.spec import json_schema

        text = json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
        else:
            sys.stdout.write(text)
        return 0
    if args.command == "validate":
        p = b.prepare(args.spec)
        if not args.quiet:
            ds = p.dataset
            print(f"ok: {args.spec}: {len(ds.systems)} systems, {len(ds.corpora)} corpora, {len(ds.metrics)} metrics, "
                  f"{ds.n_rows} score rows; {len(p.plan.nodes)} analyses planned")
        return 0
    if args.command == "plan":
        print(b.prepare(args.spec).plan.describe())
        return 0
    progress = Progress(not args.quiet)
    try:
        dest, written, warnings = b.build(args.spec, args.output, args.formats, args.strict, progress, args.templates)
    finally:
        progress.finish()
    if not args.quiet:
        print(f"wrote {dest} ({len(written)} files: {', '.join(_summary(written))})")
        if warnings:
            print(f"{len(warnings)} warning{'s' if len(warnings) != 1 else ''} (shown in the report; --strict fails on them)")
    return 0


def _summary(written: list[str]) -> list[str]:
    tex = [w for w in written if w.startswith("tables/")]
    out = [w for w in written if not w.startswith("tables/")]
    if tex:
        out.append(f"{len(tex)} LaTeX tables in tables/")
    return out


if __name__ == "__main__":
    sys.exit(main())
