"""The web page of ``pybnc serve``, through Flask's test client (no network).

Jobs run in real worker processes here too; tests/test_web_jobs.py covers their
limits, tests/test_browser_web.py the page's scripts in a real browser.
"""

import html
import io
import re

import numpy as np
import pandas as pd
import pytest

from pybnc.datasets import load_dataset
from pybnc.web import analysis, create_app
from pybnc.encode import Encoder


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return create_app(max_upload_mb=1, temp_root=tmp_path_factory.mktemp("web"), max_jobs=4)


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


@pytest.fixture(scope="module")
def car_csv():
    X, y = load_dataset("car")
    return X.assign(verdict=y).to_csv(index=False).encode()


def post(client, data: bytes, name="table.csv", models=("tan",), **fields):
    form = {"file": (io.BytesIO(data), name), "models": list(models), **fields}
    return client.post("/result", data=form, content_type="multipart/form-data")


def error_of(response) -> str:
    match = re.search(r'class="error"[^>]*>(.*?)</div>', response.get_data(as_text=True), re.S)
    assert match, "no error message on the page"
    return html.unescape(re.sub(r"<[^>]+>", "", match.group(1)))


def finish(client, response, timeout=120):
    """Follow a started job to its end; the run's page (or the job's, if it failed)."""
    assert response.status_code == 303, response.get_data(as_text=True)[:2000]
    job_id = response.headers["Location"].rsplit("/", 1)[1]
    job = client.application.extensions["pybnc_jobs"].wait(job_id, timeout=timeout)
    return job, client.get(f"/jobs/{job_id}", follow_redirects=True)


@pytest.fixture(scope="module")
def car_run(client, car_csv):
    job, page = finish(client, post(client, car_csv, name="car.csv", models=("tan", "aode")))
    assert job.state == "done", job.message
    return job.result, page.get_data(as_text=True)


def test_form_lists_models_datasets_and_discretisers(client):
    page = client.get("/").get_data(as_text=True)
    assert 'type="file"' in page
    for key in ("nb", "tan", "fan", "aode", "kdb", "tanhc"):
        assert f'name="models" value="{key}"' in page
    assert "<option>car</option>" in page
    assert 'value="mdl"' in page and 'name="n_bins"' in page


def test_upload_car_compares_models_and_shows_the_network(car_run):
    _, page = car_run
    assert "Class column <code>verdict</code>" in page
    scores = re.findall(r'<tr class="[^"]*"><td><a [^>]*>(\w+)</a></td>\s*<td>([\d.]+) ± [\d.]+</td>', page)
    assert [name for name, _ in scores] == ["nb", "tan", "aode"]
    assert float(scores[1][1]) > float(scores[0][1])  # TAN beats naive Bayes on car
    assert page.count('class="verdict"') == 2  # the t-test against naive Bayes, for tan and aode
    assert page.count('<table class="confusion">') == 3
    assert 'aria-label="reliability diagram"' in page and page.count('class="curve"') == 3
    # The shown model is TAN: its 5 arcs, its 6 tables, its drawing data and evidence panel.
    arcs = re.findall(r"<li><code>([^<]+)</code> → <code>([^<]+)</code></li>", page)
    assert len(arcs) == 5 and ("buying", "maint") in arcs
    assert page.count('<details id="cpt-') == 6 and 'class="dataframe cpt"' in page
    assert 'id="network-data"' in page and page.count('<select id="ev-') == 6


def test_compare_numbers_are_the_out_of_fold_ones(client, car_run):
    """The page's per-class tables come from the same folds as pybnc.evaluation's."""
    from sklearn.metrics import confusion_matrix

    from pybnc.evaluation import cross_validate

    run, _ = car_run
    learned = client.application.extensions["pybnc_runs"].runs[run]
    X, y = load_dataset("car")
    results, proba = cross_validate({"tan": analysis.build("tan")}, X, y, cv=10, random_state=0,
                                    verbose=0, return_proba=True)
    classes, codes = np.unique(y, return_inverse=True)
    expected = confusion_matrix(codes, proba["tan"].argmax(axis=1))
    assert learned.compare["classes"]["tan"]["confusion"] == expected.tolist()
    mean = results["accuracy"].mean()
    row = next(r for r in learned.compare["table"] if r["model"] == "tan")
    assert row["accuracy"].startswith(f"{mean:.4f}")


def test_class_report_and_scores_count_as_sklearn_does():
    from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

    from pybnc.web import compare

    rng = np.random.default_rng(0)
    for _ in range(100):
        k, n = int(rng.integers(2, 6)), int(rng.integers(1, 40))
        y, proba = rng.integers(0, k, n), rng.random((n, k))
        report, predicted = compare.class_report(y, proba, k), proba.argmax(axis=1)
        precision, recall, _, support = precision_recall_fscore_support(y, predicted, labels=np.arange(k),
                                                                        zero_division=0)
        np.testing.assert_allclose(report["precision"], precision)
        np.testing.assert_allclose(report["recall"], recall)
        assert report["support"] == support.tolist()
        assert report["confusion"] == confusion_matrix(y, predicted, labels=np.arange(k)).tolist()
        classes = [f"c{i}" for i in range(k)]
        truth = np.array([classes[i] if i < k else "unseen" for i in rng.integers(0, k + 1, n)])
        score = compare._score(truth, np.array(classes)[predicted], classes)
        labels = classes + sorted(set(truth) - set(classes))
        assert score["confusion"] == confusion_matrix(truth, np.array(classes)[predicted],
                                                      labels=labels)[:, :k].tolist()


def test_downloads_give_models_and_predictions(client, car_run):
    from pybnc.io import load

    run, page = car_run
    links = dict((name, url) for url, name in re.findall(r'href="(/download/[0-9a-f]{32}/([\w.-]+))"', page))
    assert set(links) == {"nb.pybnc", "nb-predictions.csv", "tan.pybnc", "tan-predictions.csv",
                          "aode.pybnc", "aode-predictions.csv"}
    model = load(io.BytesIO(client.get(links["tan.pybnc"]).data))
    assert type(model).__name__ == "TAN" and len(model.arcs_) == 5
    predictions = client.get(links["tan-predictions.csv"]).get_data(as_text=True).splitlines()
    assert predictions[0] == "verdict,prediction,P(acc),P(good),P(unacc),P(vgood)"
    assert len(predictions) == 1729
    # Made when first asked for, from the run's rows; then served as written.
    X, y = load_dataset("car")
    first = pd.read_csv(io.StringIO("\n".join(predictions)))
    np.testing.assert_allclose(first.iloc[:, 2:].to_numpy(), model.predict_proba(X), rtol=0, atol=1e-12)
    assert (first["verdict"] == y.to_numpy()).all()
    assert client.get(links["tan-predictions.csv"]).get_data(as_text=True).splitlines() == predictions
    assert client.get(links["tan-predictions.csv"].replace("tan-", "kdb-")).status_code == 404  # no such model
    assert client.get(f"/download/{run}/rows.pkl").status_code == 404  # the rows themselves are no download
    assert client.get("/download/../tan.pybnc").status_code == 404
    assert client.get(f"/download/{run}/..%2Ftan.pybnc").status_code == 404
    assert client.get("/download/" + "0" * 32 + "/tan.pybnc").status_code == 404


def test_posterior_endpoint_is_predict_proba_with_the_rest_missing(client, car_run):
    run, _ = car_run
    learned = client.application.extensions["pybnc_runs"].runs[run]
    model = learned.models["tan"]
    X, _ = load_dataset("car")
    evidence = {"0": 2, "4": 1, "5": 0}  # buying, lug_boot, safety
    answer = client.post(f"/api/runs/{run}/tan/posterior", json={"evidence": evidence}).get_json()
    row = pd.DataFrame([[None] * X.shape[1]], columns=X.columns, dtype=object)
    levels = model.encoder_.categories_
    for f, v in evidence.items():
        row.iloc[0, int(f)] = levels[int(f)][v]
    expected = model.predict_proba(row)[0]
    np.testing.assert_allclose(answer["proba"], expected, rtol=0, atol=1e-12)
    # Influence: the log-odds of the top class with and without each feature's value.
    top = int(np.argmax(expected))
    logit = lambda p: np.log(p[top]) - np.log1p(-p[top])  # noqa: E731
    for item in answer["influence"]:
        without = row.copy()
        without.iloc[0, item["feature"]] = None
        assert item["delta"] == pytest.approx(logit(expected) - logit(model.predict_proba(without)[0]), abs=1e-9)
    quick = client.post(f"/api/runs/{run}/tan/posterior", json={"evidence": evidence, "influence": False})
    assert quick.get_json()["proba"] == answer["proba"] and quick.get_json()["influence"] is None
    prior = client.post(f"/api/runs/{run}/tan/posterior", json={"evidence": {}}).get_json()
    np.testing.assert_allclose(prior["proba"], model.predict_proba(row.map(lambda _: None))[0], atol=1e-12)
    for bad in ({"evidence": {"9": 0}}, {"evidence": {"0": 7}}, {"evidence": {"x": 0}}, {"evidence": [1]}):
        assert client.post(f"/api/runs/{run}/tan/posterior", json=bad).status_code == 400
    assert client.post(f"/api/runs/{run}/nosuch/posterior", json={}).status_code == 404


def test_a_panel_added_to_the_evidence_view_is_shown_with_its_script(client, car_run, monkeypatch):
    import jinja2

    from pybnc.web.pages import ask

    run, _ = car_run
    app = client.application
    monkeypatch.setattr(ask, "PANELS", [ask.Panel("ask/probe.html", "probe.js")])
    monkeypatch.setattr(app, "jinja_loader", jinja2.ChoiceLoader([
        app.jinja_loader, jinja2.DictLoader({"ask/probe.html": '<p id="probe">{{ key }} of {{ run }}</p>'})]))
    app.jinja_env.cache.clear()
    page = client.get(f"/runs/{run}?model=tan").get_data(as_text=True)
    app.jinja_env.cache.clear()
    panel = page.index(f'<p id="probe">tan of {run}</p>')
    assert page.index('id="posterior"') < panel < page.index('id="evidence"')  # below the posterior
    assert page.index('src="/static/network.js"') < page.index('src="/static/probe.js"')


def test_evidence_values_of_discretised_columns_fall_in_their_bins():
    from pybnc import TAN
    from pybnc.web.network import evidence_domains

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.exponential(size=200) - 3.0,
                      "c": rng.choice(["x", "y"], 200), "d": rng.integers(0, 3, 200)})
    model = TAN(encoder=Encoder(n_bins=4)).fit(X, rng.choice(["p", "q"], 200))
    for j, (name, labels, values) in enumerate(evidence_domains(model)):
        frame = pd.DataFrame({c: [None] * len(values) for c in X.columns}, dtype=object)
        frame[name] = values
        assert model.encoder_.transform(frame)[:, j].tolist() == list(range(len(labels)))


def test_predict_a_second_file(client, car_run, car_csv):
    run, _ = car_run
    learned = client.application.extensions["pybnc_runs"].runs[run]
    X, y = load_dataset("car")
    rows = X.iloc[::7].assign(verdict=y[::7], note="extra").drop(columns=["doors"])
    response = client.post(f"/runs/{run}/tan/predict", content_type="multipart/form-data",
                           data={"file": (io.BytesIO(rows.to_csv(index=False).encode()), "new.csv")})
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    model = learned.models["tan"]
    expected = model.predict_proba(rows.drop(columns=["verdict", "note"]).reindex(columns=X.columns))
    accuracy = np.mean(model.classes_[expected.argmax(axis=1)] == rows["verdict"].to_numpy())
    assert f"accuracy {accuracy:.4f}" in page
    assert "1 feature column(s) are not in the file" in page and "doors" in page
    assert "1 column(s) the model does not know were ignored: note" in page
    link = re.search(r'href="(/download/[0-9a-f]{32}/new-[0-9a-f]{32}\.csv)"', page).group(1)
    table = pd.read_csv(io.BytesIO(client.get(link).data))
    assert len(table) == len(rows) and list(table.columns[:2]) == ["verdict", "prediction"]
    np.testing.assert_allclose(table.filter(like="P(").to_numpy(), expected, atol=1e-12)
    # Without the class column: predictions only; a file with none of the features: a message.
    no_class = rows.drop(columns=["verdict"]).to_csv(index=False).encode()
    page = client.post(f"/runs/{run}/tan/predict", content_type="multipart/form-data",
                       data={"file": (io.BytesIO(no_class), "x.csv")}).get_data(as_text=True)
    assert "predictions</a>" not in page and "accuracy" not in page and f"{len(rows)} predictions" in page
    response = client.post(f"/runs/{run}/tan/predict", content_type="multipart/form-data",
                           data={"file": (io.BytesIO(b"p,q\n1,2\n"), "x.csv")})
    assert response.status_code == 400 and "none of the model's feature columns" in error_of(response)


def test_a_link_fills_the_form_and_the_button_runs_a_model_without_one_network(client):
    manager = client.application.extensions["pybnc_jobs"]
    before = len(manager._jobs)
    form = client.get("/result?dataset=car&models=aode")  # a link starts nothing
    text = form.get_data(as_text=True)
    assert form.status_code == 200 and len(manager._jobs) == before
    assert "<option selected>car</option>" in text and re.search(r'value="aode"\s+checked', text)
    job, page = finish(client, client.post("/result", data={"dataset": "car", "models": "aode"}))
    page = page.get_data(as_text=True)
    assert job.state == "done" and "nb, aode on car" in page and "averages many networks" in page
    assert 'id="network-svg"' not in page and page.count('<select id="ev-') == 6  # still answers


@pytest.mark.parametrize("data, fields, expected", [
    (None, {"target": "colour"}, "There is no column 'colour'"),
    (b"a,b\nx,1\ny,1\nz,1\n", {}, "single value"),
    (b"", {}, "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00", {}, "binary file"),
    (b"a,b\n1,2\n3,4,5,6\n", {}, "line 3 has 4 fields"),
    (b"justone\nx\ny\n", {}, "at least one feature column"),
    (b"a,b\nx,0.5\ny,1.7\nz,2.2\n", {}, "continuous"),
    (None, {"models": ["nosuch"]}, "unknown model"),
    (None, {"n_bins": "1"}, "number of bins"),
    (None, {"discretizer": "magic"}, "unknown discretiser"),
])
def test_bad_input_is_a_message_on_the_form(client, car_csv, data, fields, expected):
    response = post(client, car_csv if data is None else data, **fields)
    assert response.status_code == 400
    assert expected in error_of(response)
    assert "Traceback" not in response.get_data(as_text=True)


def test_nothing_chosen_unknown_dataset_and_too_large(client):
    assert "Choose a CSV file" in error_of(client.post("/result", data={"models": "tan"}))
    assert "Unknown dataset" in error_of(client.post("/result", data={"dataset": "nosuch"}))
    response = post(client, b"a,b\n" + b"x,y\n" * 300_000)  # 1.2 MB > the fixture's 1 MB
    assert response.status_code == 413 and "larger than the limit of 1 MB" in error_of(response)


def test_unknown_runs_and_jobs_are_404(client):
    for url in ("/runs/" + "0" * 32, "/runs/nonsense", "/jobs/" + "0" * 32, "/api/jobs/x"):
        assert client.get(url).status_code == 404


def test_cli_serve_help():
    from click.testing import CliRunner

    from pybnc.cli import cli

    result = CliRunner().invoke(cli, ["serve", "--help"])
    assert result.exit_code == 0 and "127.0.0.1" in result.output
    for option in ("--port", "--max-jobs", "--max-queue", "--job-time-limit", "--client-timeout", "--job-memory-mb"):
        assert option in result.output


def test_identifier_and_constant_columns_are_left_out_with_a_note(client):
    X, y = load_dataset("car")
    table = X.assign(id=[f"row{i}" for i in range(len(X))], row_id=range(len(X)), same="x", verdict=y)
    job, page = finish(client, post(client, table.to_csv(index=False).encode(), models=("nb",)))
    page = page.get_data(as_text=True)
    assert "Left out 3 column(s): id (ID-like), row_id (ID-like), same (constant)" in page
    assert "6 features" in page and 'class="left-out" data-column="id"' in page


def columns_of(client, **form):
    response = client.post("/api/columns", data=form, content_type="multipart/form-data")
    return response.status_code, response.get_json()


def test_a_workbook_and_a_european_csv_are_read_as_the_page_says(client):
    """An .xlsx upload reads its first sheet; a semicolon file with decimal commas reads
    its numbers as numbers; the page's note says how each was read."""
    table = pd.DataFrame({"size": [1.5, 2.25, 3.0, 4.5], "colour": ["red", "blue", "red", "blue"],
                          "label": ["p", "q", "p", "q"]})
    workbook = io.BytesIO()
    table.to_excel(workbook, index=False, engine="openpyxl")
    status, answer = columns_of(client, file=(io.BytesIO(workbook.getvalue()), "t.xlsx"))
    assert status == 200 and answer["columns"] == ["size", "colour", "label"]
    assert "t.xlsx: Excel workbook, sheet &#39;Sheet1&#39;; 4 rows, 3 columns" in answer["html"]
    european = table.to_csv(index=False, sep=";", decimal=",").encode()
    status, answer = columns_of(client, file=(io.BytesIO(european), "t.csv"))
    assert status == 200 and "decimal commas read as numbers in 1 column" in answer["html"]
    assert '<tr data-column="size"><td><code>size</code></td><td>number</td>' in answer["html"]


def test_column_report_before_learning(client):
    """Type, levels, share missing, flags, and the cut points of the chosen discretiser."""
    rng = np.random.default_rng(0)
    n = 200
    y = np.where(rng.random(n) < 0.5, "p", "q")
    table = pd.DataFrame({"name": [f"n{i}" for i in range(n)], "colour": rng.choice(["red", "blue"], n),
                          "x": np.where(y == "p", 0.0, 5.0) + rng.random(n), "empty": np.nan, "label": y})
    table.loc[:9, "colour"] = None
    data = table.to_csv(index=False).encode()
    status, answer = columns_of(client, file=(io.BytesIO(data), "t.csv"))
    assert status == 200 and answer["target"] == "label" and answer["columns"] == list(table.columns)
    report = analysis.report_columns(table.drop(columns="label"), y, "quantile")
    rows = {r["name"]: r for r in report["columns"]}
    assert rows["name"]["flag"] == "ID-like" and rows["empty"]["flag"] == "constant"
    assert rows["colour"] == {**rows["colour"], "type": "text", "levels": 2, "missing": 0.05, "flag": None}
    assert rows["x"]["as"] == "5 bins" and len(rows["x"]["cuts"]) == 4
    assert report["kept"] == ["colour", "x"]
    assert "Left out 2 column(s)" in answer["html"] and "5 %" in answer["html"]
    # The supervised discretiser finds the one cut between the classes' ranges.
    status, answer = columns_of(client, file=(io.BytesIO(data), "t.csv"), discretizer="mdl", target="label")
    mdl = analysis.report_columns(table.drop(columns="label"), y, "mdl")
    cut = {r["name"]: r for r in mdl["columns"]}["x"]["cuts"]
    assert len(cut) == 1 and 1.0 <= cut[0] <= 5.0 and "%.4g" % cut[0] in answer["html"]
    # A bundled dataset, and a file that is not a table.
    status, answer = columns_of(client, dataset="car")
    assert status == 200 and answer["target"] == "class" and "6 rows" not in answer["html"]
    status, answer = columns_of(client, file=(io.BytesIO(b"\x89PNG\r\n\x1a\n\x00\x00"), "x.csv"))
    assert status == 400 and "binary" in answer["html"]


HOSTILE = ["$\\frac{$", "<script>alert(1)</script>", "a&b \"q\" 'r'", "$x_1^2$"]


def test_hostile_names_are_plain_text_and_escaped(client):
    """Column names are never typeset as mathtext (that gave HTTP 500) nor read as markup."""
    X, y = load_dataset("car")
    X = X.set_axis(HOSTILE + ["doors", "persons"], axis=1)
    table = X.assign(**{"<b>class</b>": y})
    job, response = finish(client, post(client, table.to_csv(index=False).encode(), models=("tan",)))
    page = response.get_data(as_text=True)
    assert job.state == "done" and response.status_code == 200
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>class</b>" not in page and "&lt;b&gt;class&lt;/b&gt;" in page
    data = re.search(r'<script type="application/json" id="network-data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in data  # Flask's tojson escapes it inside the script element
    import json

    assert json.loads(data)["features"][:4] == HOSTILE


def test_plot_network_draws_names_as_plain_text(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from pybnc import TAN
    from pybnc.plotting import network_svg, plot_network

    X, y = load_dataset("car")
    model = TAN().fit(X.set_axis(HOSTILE + ["doors", "persons"], axis=1), y)
    plot_network(model, path=tmp_path / "net.png")  # mathtext would raise on "$\frac{$"
    assert "\\frac{" in network_svg(model)


def test_notebooks_show_the_network():
    from pybnc import AODE, TAN

    X, y = load_dataset("car")
    assert TAN()._repr_svg_() is None and "image/svg+xml" not in TAN()._repr_mimebundle_()
    bundle = TAN().fit(X, y)._repr_mimebundle_()
    assert bundle["image/svg+xml"].startswith("<svg") and bundle["text/html"] == bundle["image/svg+xml"]
    assert "text/plain" in bundle
    assert not hasattr(AODE(), "_repr_svg_")  # no single network: scikit-learn's own display


def test_learn_reports_progress_to_the_end(tmp_path):
    seen = []
    learned = analysis.learn({"dataset": "car", "source": "car", "models": ["tan", "tanhc"],
                              "folder": str(tmp_path)}, lambda *step: seen.append(step))
    done = [d for d, _, _ in seen]
    assert done == sorted(done) and done[-1] == seen[-1][1] == 3 * (1 + learned.n_folds)
    texts = " ".join(t for _, _, t in seen)
    assert "folds done" in texts and "TAN-HC search step" in texts  # folds, and the search's steps


@pytest.mark.slow  # AutoBNC's whole search behind a page
def test_auto_shows_the_learner_it_chose(client):
    X, y = load_dataset("car")
    small = X.assign(verdict=y).sample(80, random_state=0).to_csv(index=False).encode()
    # eleven AutoBNC fits (ten folds and the final one): a minute on a quiet machine, more on a busy one
    job, page = finish(client, post(client, small, name="car80.csv", models=("auto",)), timeout=400)
    assert job.state == "done", job.message
    from pybnc.io import load

    page = page.get_data(as_text=True)
    url = re.search(r'href="(/download/[0-9a-f]{32}/auto\.pybnc)"', page).group(1)
    model = load(io.BytesIO(client.get(url).data))
    assert "nb, auto on car80.csv" in page
    chosen = re.search(r'id="auto-choice">(.*?)</p>', page, re.S).group(1)
    assert f"AutoBNC chose {html.escape(model.best_candidate_)} among" in chosen
    view = analysis.describe(model, X.head(5), np.zeros(5, dtype=int))
    assert view["name"] == type(model.best_estimator_).__name__
