"""``--strict``: each note once, naming the analyses (and pairs) it came from; ``strict.allow`` accepts known
notes, and an entry that matches no note fails (issue 32, item 13)."""

from __future__ import annotations


SPEC = "title: t\ndata:\n  scores: scores.csv\nmetrics:\n  m:\n    higher_is_better: true\n  n:\n    higher_is_better: true\n"


def write(workdir, extra: str = ""):
    """Two metrics on two corpora; A and B identical on every item (the paired t's note on each of the four
    blocks), C's scores a linear function of the items (Mauchly's note on each omnibus test)."""
    rows = ["system,corpus,item,metric,value"]
    for c in ("c", "d"):
        for m in ("m", "n"):
            for i in range(3):
                rows += [f"A,{c},t{i},{m},0.5", f"B,{c},t{i},{m},0.5", f"C,{c},t{i},{m},0.{i}"]
    workdir.write("scores.csv", "\n".join(rows) + "\n")
    return workdir.write("spec.yaml", SPEC + extra)


def test_each_note_once_with_its_analyses(cli, workdir):
    r = cli("build", "-q", "--strict", "--formats", "json", "-o", workdir.path / "out", write(workdir))
    assert r.code == 2 and not (workdir.path / "out").exists()
    lines = r.err.splitlines()
    assert lines[0] == "error: 2 warnings with --strict"  # 8 notes before: the same two, four times each
    assert lines[1] == ("  m/c/pairwise, A vs B; m/d/pairwise, A vs B; n/c/pairwise, A vs B; n/d/pairwise, A vs B: "
                        "the two systems have identical scores on every item: t is undefined, p taken as 1")
    assert lines[2].startswith("  m/c/omnibus; m/d/omnibus; n/c/omnibus; n/d/omnibus: Mauchly's test is not computable")
    assert len(lines) == 3


def test_strict_allow_accepts_known_notes(cli, workdir):
    """An entry is a piece of the note's line 'ANALYSIS: NOTE': the note's text, or an analysis id."""
    spec = write(workdir, "strict:\n  allow:\n    - identical scores on every item\n    - /omnibus\n")
    r = cli("build", "-q", "--strict", "--formats", "json", "-o", workdir.path / "out", spec)
    assert r.code == 0, r.err
    spec = write(workdir, "strict:\n  allow:\n    - m/c/pairwise\n")
    r = cli("build", "-q", "--strict", "--formats", "json", "-o", workdir.path / "out2", spec)
    assert r.code == 2
    assert "  m/d/pairwise, A vs B; n/c/pairwise, A vs B; n/d/pairwise, A vs B: the two systems" in r.err
    assert "m/c/pairwise" not in r.err


def test_an_allow_entry_that_matches_nothing_fails(cli, workdir):
    spec = write(workdir, "strict:\n  allow:\n    - identical scores\n    - /omnibus\n    - no such note\n")
    r = cli("build", "-q", "--strict", "--formats", "json", "-o", workdir.path / "out", spec)
    assert r.code == 2
    assert r.err.splitlines()[1:] == ["  strict.allow[2] (line 13): 'no such note' matches no note: remove it"]
    ok = cli("build", "-q", "--formats", "json", "-o", workdir.path / "out", spec)  # without --strict: a build
    assert ok.code == 0, ok.err


def test_strict_allow_must_hold_text(cli, workdir):
    r = cli("validate", write(workdir, "strict:\n  allow: [\"\"]\n"))
    assert r.code == 2 and "strict.allow[0]" in r.err and "Traceback" not in r.err
    r = cli("validate", write(workdir, "strict:\n  alow: [x]\n"))
    assert r.code == 2 and "unknown key 'alow' (did you mean 'allow'?)" in r.err
