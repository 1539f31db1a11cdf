"""The web page in a real headless Chromium, driven by Selenium, as a person uses it.

The server runs in this process (a Werkzeug thread; jobs in their own processes), so
a test can compare what the page shows with the fitted model itself. Each test also
takes a screenshot: into docs/figures/web-*.png (docs/web.md shows them) when the
environment variable PYBNC_SCREENSHOTS is set, else into a temporary folder, so that a
plain run of the suite leaves the working tree as it was.

These tests never skip: without Chromium and its driver they fail and say what to
install (``apt-get install chromium chromium-driver``; .ci/run does it).
"""

import io
import os
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pybnc.datasets import load_dataset
from pybnc.web import create_app
from pybnc.web.guard import COOKIE

# A real browser: the edit loop (-m 'not slow') leaves it out; CI runs it.
pytestmark = pytest.mark.slow

DOCS_FIGURES = Path(__file__).resolve().parents[1] / "docs" / "figures"
WAIT = 30  # seconds for anything the page does; a job on car takes about one


def _browser_paths():
    chrome = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    driver = shutil.which("chromedriver")
    if chrome is None or driver is None:
        pytest.fail("The browser tests need Chromium and its WebDriver: apt-get install chromium "
                    "chromium-driver (Debian/Ubuntu); .ci/run installs them.", pytrace=False)
    return chrome, driver


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from werkzeug.serving import make_server

    app = create_app(temp_root=tmp_path_factory.mktemp("browser"), max_jobs=2)
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    for job in app.extensions["pybnc_jobs"].running():
        app.extensions["pybnc_jobs"].cancel(job.id)


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chrome, driver = _browser_paths()
    options = webdriver.ChromeOptions()
    options.binary_location = chrome
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                 "--force-device-scale-factor=1", "--disable-gpu"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    chromium = webdriver.Chrome(service=Service(driver), options=options)
    chromium.set_page_load_timeout(WAIT)
    yield chromium
    chromium.quit()


@pytest.fixture(scope="module")
def car_file(tmp_path_factory):
    """car with its class column first, so that picking it is a real choice."""
    X, y = load_dataset("car")
    path = tmp_path_factory.mktemp("tables") / "car.csv"
    X.insert(0, "verdict", y)
    X.to_csv(path, index=False)
    return path


def wait_for(browser, condition, what, timeout=WAIT):
    from selenium.webdriver.support.ui import WebDriverWait

    from selenium.common.exceptions import StaleElementReferenceException

    return WebDriverWait(browser, timeout, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException,)).until(
        lambda b: condition(b), message=f"the page did not show {what} within {timeout} s")


def by_id(browser, name):
    from selenium.webdriver.common.by import By

    return browser.find_element(By.ID, name)


def css(browser, selector):
    from selenium.webdriver.common.by import By

    return browser.find_elements(By.CSS_SELECTOR, selector)


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    return DOCS_FIGURES if os.environ.get("PYBNC_SCREENSHOTS") else tmp_path_factory.mktemp("figures")


def screenshot(browser, figures, name, element=None):
    """The element (default: the whole page), taller than the window or not, to a PNG."""
    import base64

    # No scroll bar while measuring: capturing beyond the window drops it and widens the page.
    box = browser.execute_script(
        "document.documentElement.style.overflow = 'hidden';"
        "const r = (arguments[0] || document.documentElement).getBoundingClientRect();"
        "return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height};", element)
    shot = browser.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True, "clip": {**box, "scale": 1}})
    browser.execute_script("document.documentElement.style.overflow = '';")
    path = figures / f"web-{name}.png"
    path.write_bytes(base64.b64decode(shot["data"]))
    assert path.stat().st_size > 5000  # a picture, not a blank


def no_script_errors(browser):
    errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors


def client_of(server, browser):
    """A test client in the browser's session (its cookie): what it starts, the browser sees."""
    app, url = server
    if browser.get_cookie(COOKIE) is None:
        browser.get(url + "/")
    client = app.test_client()
    client.set_cookie(COOKIE, browser.get_cookie(COOKIE)["value"])
    return client


def learned_run(server, car_file, models="tan", browser=None, client=None):
    """A finished run on car (started through the app itself, not the browser, but in the
    browser's session when one is given, else in ``client``'s): its id."""
    app, _ = server
    client = client or (client_of(server, browser) if browser is not None else app.test_client())
    response = client.post("/result", content_type="multipart/form-data",
                           data={"file": (io.BytesIO(car_file.read_bytes()), "car.csv"),
                                 "target": "verdict", "models": models})
    job_id = response.headers["Location"].rsplit("/", 1)[1]
    job = app.extensions["pybnc_jobs"].wait(job_id, timeout=120)
    assert job.state == "done", job.message
    return job.result


def test_upload_a_table_and_pick_the_class(server, browser, car_file, figures):
    from selenium.webdriver.support.ui import Select

    app, url = server
    browser.get(url + "/")
    by_id(browser, "file").send_keys(str(car_file))
    # The server reads the file as the job will: the class list is its header, the last
    # column chosen, and the column report lists the six features.
    wait_for(browser, lambda b: "class safety" in by_id(b, "report").text, "the column report")
    assert len(css(browser, "#column-table tbody tr")) == 6
    target = Select(by_id(browser, "target"))
    assert [o.text for o in target.options] == ["verdict", "buying", "maint", "doors", "persons", "lug_boot",
                                                "safety"]
    assert target.first_selected_option.text == "safety"
    target.select_by_visible_text("verdict")
    wait_for(browser, lambda b: "class verdict" in by_id(b, "report").text, "the report for the class verdict")
    assert [r.get_attribute("data-column") for r in css(browser, "#column-table tbody tr")] == [
        "buying", "maint", "doors", "persons", "lug_boot", "safety"]
    assert "4 classes" in by_id(browser, "report").text
    screenshot(browser, figures, "form", css(browser, "fieldset")[0])
    by_id(browser, "go").click()
    wait_for(browser, lambda b: "/runs/" in b.current_url, "the result", timeout=60)
    assert "Class column verdict (4 classes" in browser.find_element("css selector", ".lead").text
    rows = css(browser, "#cv-table tbody tr")
    assert [r.find_element("css selector", "td").text for r in rows] == ["nb", "tan"]
    screenshot(browser, figures, "compare", by_id(browser, "compare"))
    no_script_errors(browser)


def test_evidence_gives_predict_proba(server, browser, car_file, figures):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import Select

    app, url = server
    run = learned_run(server, car_file, browser=browser)
    model = app.extensions["pybnc_runs"].runs[run].models["tan"]
    browser.get(f"{url}/runs/{run}?model=tan")
    wait_for(browser, lambda b: len(css(b, "#network-svg .node[data-feature]")) == 6, "the drawn network")

    def shown():
        return [float(v.text) for v in css(browser, "#posterior .value")]

    prior = model.predict_proba(pd.DataFrame([[None] * 6], columns=model.feature_names_in_))[0]
    np.testing.assert_allclose(shown(), prior, atol=5e-4)
    # Panels of the view (pybnc.web.pages.ask.PANELS) hear of every change of the evidence.
    browser.execute_script("window.heard = [];"
                           "document.addEventListener('pybnc:evidence', e => window.heard.push(e.detail));")
    # One value from the panel, one by clicking the node on the drawing (its first value).
    Select(by_id(browser, "ev-5")).select_by_visible_text("low")
    buying = css(browser, '#network-svg .node[data-feature="0"]')[0]
    buying.click()
    wait_for(browser, lambda b: by_id(b, "posterior").get_attribute("data-evidence") == '{"0":0,"5":1}',
             "the answer to safety = low, buying = high")
    row = pd.DataFrame([[None] * 6], columns=model.feature_names_in_)
    row["safety"], row["buying"] = "low", "high"
    assert model.encoder_.categories_[0][0] == "high"
    expected = model.predict_proba(row)[0]
    np.testing.assert_allclose(shown(), expected, atol=5e-4)  # the same to 3 decimals
    assert "buying = high" in buying.text
    assert browser.execute_script("return window.heard") == [
        {"run": run, "model": "tan", "evidence": {"5": 1}}, {"run": run, "model": "tan", "evidence": {"0": 0, "5": 1}}]
    # Then each value's influence: the change in the log-odds of the top class it brings.
    wait_for(browser, lambda b: by_id(b, "evidence").get_attribute("data-influence") == '{"0":0,"5":1}',
             "the influence of each set feature")
    shown_moves = [float(i.text.replace("−", "-")) for i in css(browser, "#evidence li.set .influence")]
    top = int(np.argmax(expected))
    logit = lambda p: np.log(p[top]) - np.log1p(-p[top])  # noqa: E731
    for feature, move in zip(["buying", "safety"], shown_moves):
        without = row.copy()
        without[feature] = None
        assert move == pytest.approx(logit(expected) - logit(model.predict_proba(without)[0]), abs=0.006)
    # Hovering an augmenting arc names its conditional mutual information.
    arc = css(browser, "#network-svg .arc .hit")[0]
    ActionChains(browser).move_to_element(arc).perform()
    wait_for(browser, lambda b: by_id(b, "tip").is_displayed(), "the arc's tooltip")
    assert "nats" in by_id(browser, "tip").text and "| verdict)" in by_id(browser, "tip").text
    screenshot(browser, figures, "ask", css(browser, "#ask")[0])
    no_script_errors(browser)


def test_multi_model_job_shows_progress_and_cancels(server, browser, figures):
    from selenium.webdriver.support.ui import Select

    app, url = server
    # chess with the slow searches: long enough to watch (tens of seconds) and cancel.
    browser.get(url + "/?dataset=chess&models=tan,tanhc,tanhcsp,fssj,bsej")
    wait_for(browser, lambda b: len(css(b, "#column-table tbody tr")) == 36, "chess's column report")
    assert Select(by_id(browser, "target")).first_selected_option.text == "class"
    by_id(browser, "go").click()
    wait_for(browser, lambda b: "/jobs/" in b.current_url, "the job's page")
    assert by_id(browser, "job-title").text == "nb, tan, tanhc, tanhcsp, fssj, bsej on chess"
    # The bar moves without a reload: naive Bayes done (its fit and its ten folds), then more.
    wait_for(browser, lambda b: int(by_id(b, "job-steps").text.split()[0]) > 11, "progress", timeout=60)
    assert int(css(browser, ".progress")[0].get_attribute("aria-valuenow")) >= 16
    steps = by_id(browser, "job-steps").text
    assert steps.endswith("of 66 steps"), steps  # 6 models x (1 fit + 10 folds)
    screenshot(browser, figures, "job", by_id(browser, "job"))
    job_id = browser.current_url.rsplit("/", 1)[1]
    by_id(browser, "cancel").click()
    wait_for(browser, lambda b: by_id(b, "job-message").is_displayed(), "what happened")
    assert by_id(browser, "job-message").text.startswith("Cancelled at your request after")
    assert by_id(browser, "job-text").text.startswith("Cancelled during: ")
    job = app.extensions["pybnc_jobs"].wait(job_id, timeout=10)
    assert job.state == "cancelled" and not app.extensions["pybnc_jobs"].running()
    assert by_id(browser, "job").get_attribute("data-state") == "cancelled"
    screenshot(browser, figures, "job-cancelled", by_id(browser, "job"))
    no_script_errors(browser)


def test_a_job_waits_its_turn_shows_its_place_and_cancels_while_waiting(server, browser, figures):
    app, url = server
    manager, client = app.extensions["pybnc_jobs"], app.test_client()
    slow = {"dataset": "chess", "models": "tanhc,tanhcsp,fssj,bsej,eskdb"}
    blockers = [client.post("/result", data=slow).headers["Location"].rsplit("/", 1)[1] for _ in range(2)]
    assert [manager.get(j).state for j in blockers] == ["running", "running"]  # both slots taken
    try:
        browser.get(url + "/?dataset=car&models=tan")
        wait_for(browser, lambda b: css(b, "#column-table tbody tr"), "car's column report")
        assert "2 job(s) of other sessions running" in css(browser, ".note")[0].text  # their ids: not shown
        by_id(browser, "go").click()
        wait_for(browser, lambda b: "/jobs/" in b.current_url, "the job's page")
        wait_for(browser, lambda b: by_id(b, "job-queue").is_displayed(), "the place in the queue")
        assert by_id(browser, "job-position").text == "1"
        assert "number 1 in the queue" in by_id(browser, "job-queue").text
        assert "runs 2 jobs at a time" in by_id(browser, "job-queue").text
        assert by_id(browser, "job").get_attribute("data-state") == "queued"
        screenshot(browser, figures, "job-queued", by_id(browser, "job"))
        waiting = browser.current_url.rsplit("/", 1)[1]
        by_id(browser, "cancel").click()
        wait_for(browser, lambda b: by_id(b, "job-message").is_displayed(), "what happened")
        assert by_id(browser, "job-message").text.startswith("Cancelled at your request after waiting")
        assert by_id(browser, "job-text").text == "Cancelled while waiting in the queue"
        assert not by_id(browser, "job-queue").is_displayed() and not css(browser, "#cancel")
        assert manager.get(waiting).state == "cancelled" and manager.get(waiting).pid is None
        screenshot(browser, figures, "job-queued-cancelled", by_id(browser, "job"))
        # Once a slot is free, a waiting job starts by itself and its page shows the progress.
        browser.get(url + "/result?dataset=car&models=tan")  # a link fills the form; its button starts the job
        wait_for(browser, lambda b: css(b, "#column-table tbody tr"), "car's column report")
        assert "/result" in browser.current_url and not manager.queued()
        by_id(browser, "go").click()
        wait_for(browser, lambda b: by_id(b, "job").get_attribute("data-state") == "queued", "a waiting job")
        manager.cancel(blockers[0])
        wait_for(browser, lambda b: "/runs/" in b.current_url, "the result of the job that waited", timeout=60)
        no_script_errors(browser)
    finally:
        for job in blockers:
            manager.cancel(job)


def test_predict_a_second_file(server, browser, car_file, tmp_path, figures):
    app, url = server
    run = learned_run(server, car_file, browser=browser)
    model = app.extensions["pybnc_runs"].runs[run].models["tan"]
    table = pd.read_csv(car_file).sample(300, random_state=1)
    path = tmp_path / "new.csv"
    table.to_csv(path, index=False)
    browser.get(f"{url}/runs/{run}?model=tan")
    by_id(browser, "new-file").send_keys(str(path))
    by_id(browser, "predict-go").click()
    wait_for(browser, lambda b: css(b, "#new-accuracy"), "the accuracy on the new file")
    X, y = table.drop(columns="verdict"), table["verdict"]
    accuracy = float(by_id(browser, "new-accuracy").text.split()[-1])
    assert accuracy == pytest.approx((model.predict(X) == y.to_numpy()).mean(), abs=1e-4)
    cells = [[int(td.text) for td in tr.find_elements("css selector", "td")]
             for tr in css(browser, "table.confusion tbody tr")]
    assert np.sum(cells) == 300 and np.trace(cells) == round(accuracy * 300)
    first = [td.text for td in css(browser, "#predictions tbody tr")[0].find_elements("css selector", "td")]
    proba = model.predict_proba(X.iloc[:1])[0]
    assert [float(v) for v in first[-len(proba):]] == pytest.approx(proba, abs=5e-4)
    href = by_id(browser, "download-new").get_attribute("href")
    download = client_of(server, browser).get(href.replace(url, ""))
    assert download.status_code == 200 and len(pd.read_csv(io.BytesIO(download.data))) == 300
    screenshot(browser, figures, "predict")
    no_script_errors(browser)


def test_column_report_follows_the_discretiser(server, browser, figures):
    from selenium.webdriver.support.ui import Select

    app, url = server
    browser.get(url + "/?dataset=cleve")
    wait_for(browser, lambda b: css(b, "#column-table tbody tr"), "cleve's column report")

    def binned():  # read in one script call: the report may be replaced meanwhile
        return browser.execute_script(
            "const out = {}; for (const r of document.querySelectorAll('#column-table tbody tr')) {"
            "  const td = r.querySelectorAll('td'); if (td[5].textContent.trim()) out[r.dataset.column] = td[2].textContent;"
            "} return out;")

    assert binned()  # the default (supervised) discretiser cuts some numeric columns
    Select(by_id(browser, "discretizer")).select_by_value("uniform")
    by_id(browser, "n_bins").send_keys("4")
    by_id(browser, "n_bins").send_keys("\t")  # leaving the field is its change event
    wait_for(browser, lambda b: binned() and set(binned().values()) == {"4 bins"}, "four equal-width bins")
    assert {"age", "chol"} <= set(binned())
    screenshot(browser, figures, "columns", by_id(browser, "report"))
    no_script_errors(browser)


def test_leaving_the_job_page_stops_the_job(server, browser):
    app, url = server
    # A job that outlasts the 5 s grace: the searches alone now finish within it on chess.
    browser.get(url + "/?dataset=chess&models=tanhc,tanhcsp,fssj,bsej,eskdb")
    wait_for(browser, lambda b: css(b, "#column-table tbody tr"), "chess's column report")
    by_id(browser, "go").click()
    wait_for(browser, lambda b: "/jobs/" in b.current_url, "the job's page")
    job_id = browser.current_url.rsplit("/", 1)[1]
    wait_for(browser, lambda b: int(by_id(b, "job-steps").text.split()[0]) > 0, "progress")
    browser.get(url + "/")  # the page goes: its beacon says so, and no poll comes back
    left = time.monotonic()
    manager = app.extensions["pybnc_jobs"]
    while manager.get(job_id).state == "running" and time.monotonic() - left < 20:
        time.sleep(0.1)  # get, not wait: waiting would count as interest in the job
    job = manager.get(job_id)
    assert job.state == "abandoned" and "was closed" in job.message
    assert time.monotonic() - left < 10  # the 5 s grace for a reload, not the 90 s timeout


def test_hostile_and_too_large_uploads_show_their_reason_on_the_page(browser, tmp_path):
    """A bomb gets the reader's reason in the column report, and so does a file past the
    upload limit (Flask's 413 is JSON, and the script shows its message), and one so far
    past it that waitress cuts the request off; nothing starts. Served as pybnc serve does."""
    import sys

    from selenium.webdriver.support.ui import Select
    from waitress.server import create_server

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import _hostile

    app = create_app(max_upload_mb=0.5, temp_root=tmp_path)
    server = create_server(app, host="127.0.0.1", port=0, max_request_body_size=3 << 20)
    threading.Thread(target=server.run, daemon=True).start()
    try:
        name, data = _hostile.gzip_bomb(64)
        (tmp_path / name).write_bytes(data)
        (tmp_path / "big.csv").write_bytes(b"a,b\n" + b"1,2\n" * 200_000)  # 0.8 MB
        (tmp_path / "huge.csv").write_bytes(b"a,b\n" + b"1,2\n" * 2_000_000)  # 8 MB: past waitress's 3 MB
        browser.get(f"http://127.0.0.1:{server.effective_port}/")
        by_id(browser, "file").send_keys(str(tmp_path / name))
        wait_for(browser, lambda b: "bomb.csv.gz holds more than 1,048,576 bytes uncompressed" in by_id(b, "report").text,
                 "the bomb's reason")
        for big in ("huge.csv", "big.csv"):
            Select(by_id(browser, "dataset")).select_by_visible_text("car")  # another report in between
            wait_for(browser, lambda b: css(b, "#column-table tbody tr"), "car's column report")
            by_id(browser, "file").send_keys(str(tmp_path / big))
            wait_for(browser, lambda b: "larger than the limit of 0.5 MB (pybnc serve --max-upload-mb raises it)"
                     in by_id(b, "report").text, f"the reason {big} is refused (shown: {by_id(browser, 'report').text!r})")
            assert "error" in by_id(browser, "report").get_attribute("class")
        by_id(browser, "go").click()  # the form is not sent: the page says why at once
        assert "/result" not in browser.current_url and "error" in by_id(browser, "report").get_attribute("class")
        assert not app.extensions["pybnc_jobs"]._jobs
        errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
        assert all("Failed to load resource" in e or "Failed to fetch" in e for e in errors), errors
    finally:
        server.close()
