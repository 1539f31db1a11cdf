"""A local server that no web page can drive and no small file can take down.

Hostile uploads (decompression bombs, huge sheets, malformed and hostile XML, wide
lines) get a 4xx with their reason (a header line past the csv module's field bound is
read), fast, in the form the client asked for, and the server's memory stays flat; other sites (cross-origin requests, forged ``Host``, a
``GET`` of ``/result``) start nothing; another browser session cannot see, open or
cancel a job; ``pybnc serve`` runs waitress, quietly, and stops on SIGTERM."""

from __future__ import annotations

import io
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pybnc.io import read_table
from pybnc.web import create_app
from pybnc.web.guard import HEADERS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import _hostile  # noqa: E402

#: The reason each hostile file is refused with, as the page shows it.
REASONS = {"gzip bomb": r"bomb\.csv\.gz holds more than [\d,]+ (bytes|lines)",
           "xlsx of spaces": r"spaces\.xlsx \(its members together\) holds more than [\d,]+ bytes",
           "xlsx of 5 M rows": r"rows\.xlsx \(its members together\) holds more than [\d,]+ bytes",
           "malformed xlsx": r"malformed\.xlsx is a damaged Excel workbook: xl/worksheets/sheet1\.xml is not "
                             r"well-formed XML",
           "xxe xlsx": r"xxe\.xlsx is not a workbook pybnc reads: .* declares a document type",
           "billion laughs xlsx": r"laughs\.xlsx is not a workbook pybnc reads: .* declares a document type"}


@pytest.fixture(scope="module")
def hostile():
    return {what: make() for what, make in _hostile.SMALL.items()}


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return create_app(max_upload_mb=5, temp_root=tmp_path_factory.mktemp("security"), max_jobs=1, max_queue=2)


def _peak_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) / 1024


def _reset_peak() -> float:
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    return _peak_mb()


# -- hostile files ----------------------------------------------------------------------------
@pytest.mark.parametrize("what", list(REASONS))
def test_read_table_refuses_each_hostile_file_fast_naming_it(hostile, what):
    name, data = hostile[what]
    start = time.perf_counter()
    with pytest.raises(ValueError) as caught:
        read_table(data, name=name, max_bytes=100 << 20, max_rows=1_000_000)
    assert time.perf_counter() - start < 5
    assert re.search(REASONS[what], str(caught.value)), str(caught.value)


def test_a_header_line_past_the_csv_modules_field_bound_is_read_not_a_500(app, hostile):
    name, data = hostile["wide header"]
    assert read_table(data, name=name).columns.tolist() == ["x" * 140_000, "b"]
    report = app.test_client().post("/api/columns", data={"file": (io.BytesIO(data), name)},
                                    content_type="multipart/form-data")
    assert report.status_code == 200 and report.json["columns"] == ["x" * 140_000, "b"]


def test_the_bounds_are_parameters_and_a_trusted_file_reads(hostile):
    name, data = hostile["gzip bomb"]
    with pytest.raises(ValueError, match=r"bomb\.csv\.gz holds more than 1,000 lines.*read_table\(\.\.\., max_rows"):
        read_table(data, name=name, max_rows=1000)
    small = _hostile.gzip_bomb(1)[1]  # 1 MB of lines: within the defaults
    assert read_table(small).shape == (262_144, 2)
    with pytest.raises(ValueError, match=r"more than 100 bytes uncompressed.*max_bytes"):
        read_table(b"a,b\n" + b"1,2\n" * 100, max_bytes=100)
    name, data = hostile["xlsx of 5 M rows"]  # within the default bytes: its rows are counted, streamed
    with pytest.raises(ValueError, match=r"sheet1\.xml\) holds more than 1,048,576 rows, more than an Excel sheet"):
        read_table(data, name=name)
    with pytest.raises(ValueError, match=r"sheet1\.xml\) holds more than 1,000 rows.*max_rows"):
        read_table(data, name=name, max_rows=1000)


def test_a_parquet_file_is_bounded_by_its_footer(tmp_path):
    import pandas as pd

    pytest.importorskip("pyarrow")
    path = tmp_path / "t.parquet"
    pd.DataFrame({"a": ["x" * 100] * 20_000, "b": range(20_000)}).to_parquet(path)  # dictionary-coded: small
    assert read_table(path).shape == (20_000, 2)
    with pytest.raises(ValueError, match=r"t\.parquet holds more than 1,000 rows.*max_rows"):
        read_table(path, max_rows=1000)
    with pytest.raises(ValueError, match=r"t\.parquet holds more than 10,000 bytes uncompressed.*max_bytes"):
        read_table(path, max_bytes=10_000)


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="peak memory is read from /proc")
def test_hostile_uploads_are_4xx_with_their_reason_and_memory_stays_flat(app, hostile):
    client = app.test_client()
    before = _reset_peak()
    for what, (name, data) in hostile.items():
        if what not in REASONS:
            continue
        start = time.perf_counter()
        report = client.post("/api/columns", data={"file": (io.BytesIO(data), name)},
                             content_type="multipart/form-data")
        job = client.post("/result", data={"file": (io.BytesIO(data), name), "models": "tan"},
                          content_type="multipart/form-data")
        assert time.perf_counter() - start < 10, what
        assert report.status_code == 400 and job.status_code == 400, what
        assert re.search(REASONS[what], report.json["html"]), report.json["html"]
        assert re.search(REASONS[what], job.get_data(as_text=True)), what
    assert _peak_mb() - before < 500
    assert not app.extensions["pybnc_jobs"]._jobs  # nothing was started


def test_json_endpoints_answer_json_errors_413_included(app):
    client = app.test_client()
    big = client.post("/api/columns", data={"file": (io.BytesIO(b"a,b\n" * (2 << 20)), "big.csv")},
                      content_type="multipart/form-data")
    assert big.status_code == 413 and "larger than the limit of 5 MB" in big.json["error"]
    for url in ("/api/jobs/" + "0" * 32, "/api/runs/" + "0" * 32 + "/tan/posterior", "/api/nowhere"):
        answer = client.post(url, json={}) if "runs" in url else client.get(url)
        assert answer.status_code == 404 and answer.is_json and "error" in answer.json


# -- other sites ------------------------------------------------------------------------------
def test_other_sites_start_nothing(app):
    client, manager = app.test_client(), app.extensions["pybnc_jobs"]
    form = {"dataset": "car", "models": "aode"}
    assert client.get("/result?dataset=car&models=aode").status_code == 200  # an <img src=...>: the form
    for headers in ({"Origin": "http://attacker.example"}, {"Origin": "null"},
                    {"Referer": "http://attacker.example/page.html"}, {"Origin": "http://localhost:9999"}):
        answer = client.post("/result", data=form, headers=headers)
        assert answer.status_code == 403 and "another site" in answer.get_data(as_text=True), headers
    for broken in ({"Origin": "http://[nonsense"}, {"Referer": "http://127.0.0.1:notaport/"}):
        assert client.post("/result", data=form, headers=broken).status_code == 403, broken
    assert client.get("/", headers={"Host": "[nonsense"}).status_code == 400
    rebound = client.post("/result", data=form, headers={"Host": "attacker.example"})
    assert rebound.status_code == 400 and "does not answer to the host name" in rebound.get_data(as_text=True)
    assert client.get("/", headers={"Host": "attacker.example:8000"}).status_code == 400
    assert not manager._jobs
    assert client.post("/api/jobs/" + "0" * 32 + "/cancel", headers={"Origin": "http://attacker.example"}
                       ).status_code == 403


def test_the_security_headers_are_on_every_response(app):
    client = app.test_client()
    answers = [client.get("/"), client.get("/static/job.js"), client.get("/nowhere"), client.get("/api/nowhere"),
               client.get("/", headers={"Host": "attacker.example"}),
               client.post("/result", headers={"Origin": "http://attacker.example"})]
    for answer in answers:
        for name, value in HEADERS.items():
            assert answer.headers.get(name) == value, (answer.request.path, name)
    assert "frame-ancestors 'none'" in HEADERS["Content-Security-Policy"]
    cookie = answers[0].headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_allowed_hosts_add_names_and_a_wildcard_bind_adds_none(tmp_path):
    client = create_app(temp_root=tmp_path, allowed_hosts=("pybnc.lan", "0.0.0.0")).test_client()
    assert client.get("/", headers={"Host": "pybnc.lan:8000"}).status_code == 200
    assert client.get("/", headers={"Host": "[::1]:8000"}).status_code == 200
    assert client.get("/", headers={"Host": "0.0.0.0:8000"}).status_code == 400


# -- sessions ---------------------------------------------------------------------------------
def test_a_second_session_cannot_see_open_or_cancel_the_first_ones_job(app):
    mine, theirs = app.test_client(), app.test_client()
    started = mine.post("/result", data={"dataset": "car", "models": "tan"})
    assert started.status_code == 303
    job = started.headers["Location"].rsplit("/", 1)[1]
    assert job in mine.get("/").get_data(as_text=True)
    assert job not in theirs.get("/").get_data(as_text=True)
    for url in (f"/jobs/{job}", f"/api/jobs/{job}"):
        assert theirs.get(url).status_code == 404
    assert theirs.post(f"/api/jobs/{job}/cancel").status_code == 404
    assert theirs.post(f"/jobs/{job}/cancel").status_code == 404
    theirs.post(f"/api/jobs/{job}/leave")
    done = app.extensions["pybnc_jobs"].wait(job, timeout=120)
    assert done.state == "done", done.message
    run = done.result
    for url in (f"/runs/{run}", f"/download/{run}/tan.pybnc", f"/download/{run}/tan-predictions.csv"):
        assert theirs.get(url).status_code == 404 and mine.get(url).status_code == 200, url
    for panel in ("posterior", "contributions"):
        url = f"/api/runs/{run}/tan/{panel}"
        assert theirs.post(url, json={"evidence": {}}).status_code == 404
        assert mine.post(url, json={"evidence": {"0": 1}}).status_code == 200
    no_body = mine.post(f"/api/runs/{run}/tan/posterior")
    assert no_body.status_code == 400 and "Send a JSON object" in no_body.json["error"]


def test_a_run_keeps_its_newest_predictions_only(app):
    client = app.test_client()
    job = client.post("/result", data={"dataset": "car", "models": "nb"}).headers["Location"].rsplit("/", 1)[1]
    run = app.extensions["pybnc_jobs"].wait(job, timeout=120).result
    rows = b"buying,maint,doors,persons,lug_boot,safety\nvhigh,vhigh,2,2,small,low\n"
    for _ in range(5):
        assert client.post(f"/runs/{run}/nb/predict", data={"file": (io.BytesIO(rows), "new.csv")},
                           content_type="multipart/form-data").status_code == 200
    folder = app.extensions["pybnc_runs"].root / run
    assert len(list(folder.glob("new-*.csv"))) == 3


# -- the server -------------------------------------------------------------------------------
def test_pybnc_serve_runs_waitress_quietly_and_stops_on_sigterm(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    server = subprocess.Popen([sys.executable, "-c", "from pybnc.cli import cli; cli()", "serve", "--port",
                               str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
                    connection.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    reply = connection.recv(4096)
                break
            except OSError:
                time.sleep(0.2)
        assert reply.startswith(b"HTTP/1.1 200") and b"Server: pybnc" in reply
        assert list(tmp_path.glob("pybnc-web-*"))
    finally:
        server.send_signal(signal.SIGTERM)
        out, err = server.communicate(timeout=30)
    assert server.returncode == 0
    assert "development server" not in err and "GET /" not in err  # quiet: no access log
    assert err.strip().splitlines() == [f"pybnc web page on http://127.0.0.1:{port}/ (Ctrl+C stops it)"]
    assert not list(tmp_path.glob("pybnc-web-*"))  # the run folder went with it


def test_a_file_slow_to_parse_is_stopped_in_its_reader_process(app):
    """Within every bound (rows, bytes) but slow: 300,000 rows of a workbook take openpyxl
    far longer than a reader process may run; the server says so, and stays free."""
    import threading

    client, readers = app.test_client(), app.extensions["pybnc_readers"]
    name, data = _hostile.xlsx_rows(300_000)
    limit, readers.time_limit = readers.time_limit, 2.0
    try:
        answers, start = [], time.perf_counter()
        upload = threading.Thread(target=lambda: answers.append(client.post(
            "/api/columns", data={"file": (io.BytesIO(data), name)}, content_type="multipart/form-data")))
        upload.start()
        time.sleep(0.5)
        form_start = time.perf_counter()
        assert client.get("/").status_code == 200  # the server answers meanwhile
        form_seconds = time.perf_counter() - form_start
        upload.join(60)
    finally:
        readers.time_limit = limit
    assert time.perf_counter() - start < 15 and form_seconds < 2
    assert answers[0].status_code == 400
    assert "rows.xlsx took more than 2 s to parse, a limit of this server" in answers[0].json["html"]


def test_the_reader_processes_keep_no_table(app):
    client = app.test_client()
    table = b"a,b,c\n" + b"x,1,p\ny,2,q\n" * 50
    assert client.post("/api/columns", data={"file": (io.BytesIO(table), "t.csv")},
                       content_type="multipart/form-data").status_code == 200
    assert all(job.result is None for job in app.extensions["pybnc_readers"]._jobs.values())
