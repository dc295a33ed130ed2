"""Inputs that crashed, hung or misled a build, found by probing it from outside: each is now a user
error (exit 2, one line per problem naming where, no traceback, nothing written) or a warning that
names what it is about. Scheduler addresses, --wait, user aggregates that return the wrong thing or
exit, warnings that named systems by index, unknown API formats, scores whose squares overflow, a huge
integer alpha, a byte-order mark inside a table, and output-folder errors that did not say which
setting chose the folder."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from conftest import GOOD_DATA, GOOD_SPEC, aggregate_spec, assert_user_error

# ------------------------------------------------------------------------------------------- Dask scheduler


@pytest.mark.parametrize("address", ["tcp://", "tcp://host:port:x", "foo://bar:1", "tcp://localhost:99999",
                                     "tcp://[::1", "tcp://localhost:0", " ", "tcp://a b:80"])
def test_malformed_scheduler_address_is_refused_by_the_parser(cli, workdir, capsys, address):
    spec = workdir.write("spec.yaml", GOOD_SPEC)
    workdir.write("scores.csv", GOOD_DATA)
    with pytest.raises(SystemExit) as info:
        cli("build", spec, "-o", workdir.path / "out", "--executor", "dask", "--scheduler", address)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"--scheduler takes an address tcp://HOST:PORT (PORT from 1 to 65535; an IPv6 host in brackets), " \
           f"not {address!r}" in err and "Traceback" not in err
    assert not (workdir.path / "out").exists()


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "127.0.0.1:8786", "tls://sched.example.org:8786",
                                     "tcp://[::1]:8786", "ws://host-1.local:65535"])
def test_well_formed_scheduler_addresses_pass_the_parser(address):
    from sigreport.cli import parser

    assert parser().parse_args(["build", "s.yaml", "--executor", "dask", "--scheduler", address]).scheduler == address


def _server(answer: bytes | None) -> tuple[socket.socket, int]:
    """A local TCP server that accepts connections and says nothing (``answer`` None) or replies ``answer``
    to the first bytes it receives, like a web server answering a request it does not understand."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            held.append(conn)
            if answer is not None:
                try:
                    conn.recv(1024)
                    conn.sendall(answer)
                except OSError:
                    pass

    threading.Thread(target=serve, daemon=True).start()
    return srv, srv.getsockname()[1]


@pytest.mark.parametrize("answer, fragment", [
    (None, "no Dask handshake within 1 s (is a Dask scheduler listening there? --scheduler-timeout SECONDS "
           "waits longer)"),
    (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", "what answers there does not speak Dask's "
                                                          "protocol (is it another service, such as a web server?)"),
], ids=["silent port", "port answering HTTP"])
def test_a_port_that_is_not_a_dask_scheduler_is_one_line_within_the_timeout(cli, workdir, answer, fragment):
    pytest.importorskip("dask.distributed")
    spec = workdir.write("spec.yaml", GOOD_SPEC)
    workdir.write("scores.csv", GOOD_DATA)
    srv, port = _server(answer)
    try:
        t0 = time.monotonic()
        r = cli("build", spec, "-q", "-o", workdir.path / "out", "--executor", "dask", "--no-cache",
                "--scheduler", f"tcp://127.0.0.1:{port}", "--scheduler-timeout", "1")
        took = time.monotonic() - t0
    finally:
        srv.close()
    assert r.code == 2 and "Traceback" not in r.err, r.err
    assert r.err.strip() == f"error: cannot reach the Dask scheduler at tcp://127.0.0.1:{port}: {fragment}; " \
                            "nothing was written", r.err
    assert took < 30  # hung for over 90 s before (silent), or tried to allocate 3 EiB (HTTP)
    assert not (workdir.path / "out").exists()


def test_the_api_refuses_a_malformed_scheduler_address(workdir):
    pytest.importorskip("dask.distributed")
    from sigreport.api.pipeline import build
    from sigreport.api.running import RunError, RunOptions

    spec = workdir.write("spec.yaml", GOOD_SPEC)
    workdir.write("scores.csv", GOOD_DATA)
    with pytest.raises(RunError, match="cannot reach the Dask scheduler at tcp://: "):
        build(spec, workdir.path / "out", run=RunOptions(executor="dask", scheduler="tcp://", cache=None))
    assert not (workdir.path / "out").exists()


# ------------------------------------------------------------------------------------------- seconds


@pytest.mark.parametrize("option, value", [("--wait", "nan"), ("--wait", "inf"), ("--wait", "-1"), ("--wait", "x"),
                                           ("--scheduler-timeout", "0"), ("--scheduler-timeout", "nan"),
                                           ("--scheduler-timeout", "-inf")])
def test_seconds_that_no_deadline_reaches_are_refused(cli, capsys, option, value):
    with pytest.raises(SystemExit) as info:
        cli("build", "spec.yaml", f"{option}={value}")
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: {option} takes a number of seconds" in err and repr(value) in err


def test_a_wait_of_nan_is_refused_by_the_api_too(workdir):
    from sigreport.api.pipeline import build
    from sigreport.api.running import RunError

    spec = workdir.write("spec.yaml", GOOD_SPEC)
    workdir.write("scores.csv", GOOD_DATA)
    for wait in (float("nan"), float("inf"), -1.0):
        with pytest.raises(RunError, match="wait: a number of seconds, 0 or more, is needed"):
            build(spec, workdir.path / "out", wait=wait)
    assert not (workdir.path / "out").exists()


# ------------------------------------------------------------------------------------------- API formats


def test_an_unknown_api_format_is_refused_before_anything_is_written(workdir):
    import sigreport

    spec = workdir.write("spec.yaml", GOOD_SPEC)
    workdir.write("scores.csv", GOOD_DATA)
    with pytest.raises(sigreport.UserError) as info:
        sigreport.build(spec, workdir.path / "out", formats=["docx", "html"])
    assert info.value.render() == "error: formats: unknown format 'docx'; known: html, pdf, latex, json"
    with pytest.raises(sigreport.UserError, match="not the string 'html'"):
        sigreport.build(spec, workdir.path / "out", formats="html")  # type: ignore[arg-type]
    assert not (workdir.path / "out").exists()
    assert sigreport.build(spec, workdir.path / "out", formats=["json"]).files == ("results.json",)


# ------------------------------------------------------------------------------------------- user aggregates


WRONG_RETURNS = {
    "text": ("return 'x'", "returned a value of type str ('x')"),
    "none": ("return None", "returned a value of type NoneType (None)"),
    "scalar": ("return 0.5", "returned shape () (0.5)"),
    "too many": ("return np.zeros(t.shape[:-1] + (3,))", "returned shape (2, 3)"),
    "complex": ("return t[..., 0] * 1j", "returned an array of complex128 values"),
    "sys.exit(0)": ("sys.exit(0)", "raised SystemExit: 0"),
    "SystemExit(3)": ("raise SystemExit(3)", "raised SystemExit: 3"),
}


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("case", list(WRONG_RETURNS))
def test_an_aggregate_returning_the_wrong_thing_or_exiting_is_a_user_error(cli, workdir, case, jobs):
    body, fragment = WRONG_RETURNS[case]
    module = "agg_wrong_" + "".join(c if c.isalnum() else "_" for c in case) + f"_{jobs}"
    spec = aggregate_spec(workdir, module, f"import sys\nimport numpy as np\n\ndef precision(t, n):\n    {body}\n")
    r = cli("build", "-q", "-j", jobs, "-o", workdir.path / "out", spec)
    assert r.code == 2 and "Traceback" not in r.err, r  # sys.exit(0) ended the build with exit 0 and no report
    lines = r.err.rstrip("\n").splitlines()
    assert len(lines) == 2 and lines[0].startswith("error: "), r.err
    assert lines[1].startswith(f"  metrics.p.aggregate: aggregate '{module}:precision' of metric 'p' (module "
                               f"'{module}') {fragment}"), r.err
    if not case.startswith(("sys", "System")):
        assert "it must return one real number per row of totals (shape (" in lines[1]
    assert not (workdir.path / "out").exists()


def test_a_right_aggregate_still_builds(cli, workdir):
    spec = aggregate_spec(workdir, "agg_right", "import numpy as np\n\ndef precision(t, n):\n"
                                                 "    return t[..., 0] / np.maximum(t[..., 0] + t[..., 1], 1)\n")
    r = cli("build", "-q", "--formats", "json", "-o", workdir.path / "out", spec)
    assert r.code == 0, r.err
    rows = workdir.results()["analyses"][0]["systems"]
    # precision by hand: A = (1+1+2) / (4+1) = 0.8; B = (0+1+1) / (2+2) = 0.5
    assert [(row["system"], row["mean"]) for row in rows] == [("A", pytest.approx(0.8)), ("B", pytest.approx(0.5))]


# ------------------------------------------------------------------------------------------- warnings name systems


def test_warnings_about_undefined_metrics_name_the_systems(cli, workdir):
    """A ratio metric that is 0/0 for two systems: the engine says 'system 0 and system 1'; the report names them."""
    rows = ["system,corpus,item,metric,value"]
    for s in ("alpha", "beta", "gamma"):
        for i in range(6):
            rows += [f"{s},c,i{i},num,{0 if s == 'alpha' else i % 2}", f"{s},c,i{i},den,{0 if s != 'gamma' else 1}"]
    workdir.write("s.csv", "\n".join(rows) + "\n")
    spec = workdir.write("spec.yaml", """
        title: t
        data: {scores: s.csv}
        metrics: {r: {higher_is_better: true, aggregate: ratio, statistics: [num, den]}}
        tests: {pairwise: bootstrap, resamples: 99}
        """)
    r = cli("build", "-q", "--formats", "json", "-o", workdir.path / "out", spec)
    assert r.code == 0, r.err
    text = json.dumps(workdir.results())
    assert "the metric is undefined (0/0) for system alpha and system beta on the full data: no test" in text
    assert "the metric is undefined (0/0) for system alpha on the full data" in text
    assert "system 0" not in text and "system 1" not in text


# ------------------------------------------------------------------------------------------- numbers


def test_scores_whose_squares_overflow_are_refused_naming_the_metric(cli, workdir):
    table = ("system,corpus,item,metric,value\nA,c,t1,m,1e308\nA,c,t2,m,0.5\nA,c,t3,m,1.7e308\n"
             "B,c,t1,m,-1e308\nB,c,t2,m,0.4\nB,c,t3,m,0.3\nA,c,t1,n,1\nA,c,t2,n,2\nA,c,t3,n,3\nB,c,t1,n,1\n"
             "B,c,t2,n,2\nB,c,t3,n,2\n")
    workdir.write("scores.csv", table)
    spec = workdir.write("spec.yaml", GOOD_SPEC + "  n:\n    higher_is_better: true\n")
    assert_user_error(cli, spec, workdir.path / "out", "1e308", [
        "metric 'm': values beyond ±1e+150 in column 'value' at lines 2, 4, 5 (first: 1e+308); sums of their "
        "squares overflow double precision"])


def test_scores_up_to_the_limit_give_finite_statistics(cli, workdir):
    """At 1e149 the means, SDs and the paired t test are finite numbers (they were null, silently, near 1e308)."""
    table = "system,corpus,item,metric,value\n" + "".join(
        f"{s},c,t{i},m,{v}e149\n" for s, vs in (("A", (9, 8, 7, 9)), ("B", (-9, -7, -8, -6))) for i, v in enumerate(vs))
    workdir.write("scores.csv", table)
    spec = workdir.write("spec.yaml", GOOD_SPEC)
    r = cli("build", "-q", "--formats", "json", "-o", workdir.path / "out", spec)
    assert r.code == 0, r.err
    desc, pair = workdir.results()["analyses"][:2]
    # mean of A: (9 + 8 + 7 + 9) / 4 * 1e149 = 8.25e149 (by hand)
    assert desc["systems"][0]["mean"] == pytest.approx(8.25e149) and desc["systems"][0]["sd"] is not None
    assert pair["pairs"][0]["pvalue"] is not None


def test_a_huge_integer_alpha_is_a_spec_error(cli, workdir):
    workdir.write("scores.csv", GOOD_DATA)
    spec = workdir.write("spec.yaml", GOOD_SPEC + "alpha: " + "9" * 400 + "\n")
    assert_user_error(cli, spec, workdir.path / "out", "alpha", [
        "alpha (line 7): expected a number, given the whole number 999999999999...9999 (400 digits), too large "
        "for a floating-point number"])


# ------------------------------------------------------------------------------------------- byte-order marks


def test_a_byte_order_mark_inside_the_table_is_refused_naming_its_lines(cli, workdir):
    """Two files joined after each began with a BOM: the second one's first name carries it. It made an
    invisible second system ('\\ufeffB' beside 'B') and crashed matplotlib's PDF writer (IndexError)."""
    table = GOOD_DATA.replace("B,c,t1", "\ufeffB,c,t1").replace("B,c,t2", "\ufeffB,c,t2").replace("B,c,t3",
                                                                                                  "\ufeffB,c,t3")
    workdir.write("scores.csv", "\ufeff" + table)  # the BOM at the start of the file is read as one
    spec = workdir.write("spec.yaml", GOOD_SPEC)
    assert_user_error(cli, spec, workdir.path / "out", "bom", [
        "column 'system' at lines 5, 6, 7: '\\ufeffB' contains a byte-order mark (U+FEFF, invisible; files joined "
        "after each began with one?): remove it"])


def test_a_byte_order_mark_in_a_label_of_the_spec_is_drawn_in_every_format(cli, workdir):
    workdir.write("scores.csv", GOOD_DATA)
    spec = workdir.write("spec.yaml", GOOD_SPEC + '    label: "\\ufeffROUGE"\n')
    r = cli("build", "-q", "--formats", "json,html,latex", "-o", workdir.path / "out", spec)
    assert r.code == 0 and "Traceback" not in r.err, r.err
    pdfs = list((workdir.path / "out" / "figures").glob("*.pdf"))
    assert pdfs and all(p.read_bytes().startswith(b"%PDF") for p in pdfs)


# ------------------------------------------------------------------------------------------- file names


def test_names_that_collide_when_joined_lose_no_file(cli, workdir):
    """Metric a on corpus b--c and metric a--b on corpus c both join to a--b--c: the build's file count is the
    number of files on disk, with LaTeX tables and figures."""
    rows = ["system,corpus,item,metric,value"]
    for k, s in enumerate("ABC"):
        rows += [f"{s},{c},i{i},{m},{0.1 * k + 0.03 * ((i * 5 + len(m) + len(c)) % 7):.3f}"
                 for m in ("a", "a--b") for c in ("b--c", "c") for i in range(8)]
    workdir.write("s.csv", "\n".join(rows) + "\n")
    spec = workdir.write("spec.yaml", """
        title: t
        data: {scores: s.csv}
        metrics: {a: {higher_is_better: true}, a--b: {higher_is_better: true}}
        outputs: {formats: [json, html, latex]}
        """)
    r = cli("build", "-o", workdir.path / "out", spec)
    assert r.code == 0, r.err
    reported = int(r.out.split("(", 1)[1].split(" files", 1)[0])
    on_disk = [p for p in (workdir.path / "out").rglob("*") if p.is_file() and p.name != ".sigreport-report"]
    assert reported == len(on_disk) > 40


# ------------------------------------------------------------------------------------------- outputs.dir


@pytest.mark.parametrize("folder, fragment", [
    (".", "the output folder contains {spec}, which this build reads"),
    ("scores.csv/out", "{path}/scores.csv is a file, so no folder can be made below it"),
])
def test_output_folder_errors_name_outputs_dir_when_the_spec_chose_the_folder(cli, workdir, folder, fragment):
    workdir.write("scores.csv", GOOD_DATA)
    spec = workdir.write("spec.yaml", GOOD_SPEC + f"outputs:\n  dir: '{folder}'\n")
    r = cli("build", "-q", spec)
    assert r.code == 2 and "Traceback" not in r.err, r.err
    expected = fragment.format(spec=spec, path=workdir.path)
    assert any(line.startswith(f"  outputs.dir (line 8): {expected}") for line in r.err.splitlines()), r.err
    assert not (workdir.path / ".sigreport-cache").exists()  # refused before anything was made
    r = cli("build", "-q", "-o", workdir.path / folder, spec)  # the same folder from -o: no outputs.dir
    assert r.code == 2 and "outputs.dir (line" not in r.err and expected in r.err, r.err
