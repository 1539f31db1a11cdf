"""The web page of ``pybnc serve``, through Flask's test client (no network)."""

import html
import io
import re

import pytest

from pybnc.datasets import load_dataset
from pybnc.web import create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app(max_upload_mb=1, temp_root=tmp_path_factory.mktemp("web"))
    return app.test_client()


@pytest.fixture(scope="module")
def car_csv():
    X, y = load_dataset("car")
    return X.assign(verdict=y).to_csv(index=False).encode()


def post(client, data: bytes, name="table.csv", **fields):
    form = {"file": (io.BytesIO(data), name), "model": "tan", **fields}
    return client.post("/result", data=form, content_type="multipart/form-data")


def error_of(response) -> str:
    match = re.search(r'class="error"[^>]*>(.*?)</div>', response.get_data(as_text=True), re.S)
    assert match, "no error message on the page"
    return html.unescape(re.sub(r"<[^>]+>", "", match.group(1)))


def test_form_lists_models_and_datasets(client):
    page = client.get("/").get_data(as_text=True)
    assert 'type="file"' in page
    for key in ("nb", "tan", "fan", "aode", "kdb"):
        assert f'value="{key}"' in page
    assert "<option>car</option>" in page


def test_upload_car_shows_network_scores_arcs_and_tables(client, car_csv):
    response = post(client, car_csv, name="car.csv")  # class column: the last one by default
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "<svg" in page and 'class="network"' in page
    assert "Class column <code>verdict</code>" in page
    # TAN on car: 5 augmenting arcs, each listed parent -> child.
    arcs = re.findall(r"<li><code>([^<]+)</code> → <code>([^<]+)</code></li>", page)
    assert len(arcs) == 5 and ("buying", "maint") in arcs
    scores = re.findall(r"<tr[^>]*><td>(\w+)</td><td>([\d.]+) ± [\d.]+</td>", page)
    assert [name for name, _ in scores] == ["nb", "tan"]
    assert float(scores[1][1]) > float(scores[0][1])  # TAN beats naive Bayes on car
    assert page.count('<details id="cpt-') == 6 and 'class="dataframe cpt"' in page


def test_downloads_give_model_and_predictions(client, car_csv):
    from pybnc.io import load

    page = post(client, car_csv, name="car.csv").get_data(as_text=True)
    links = dict((name, url) for url, name in
                 re.findall(r'href="(/download/[0-9a-f]{32}/([\w.]+))"', page))
    model = load(io.BytesIO(client.get(links["model.pybnc"]).data))
    assert type(model).__name__ == "TAN" and len(model.arcs_) == 5
    predictions = client.get(links["predictions.csv"]).get_data(as_text=True).splitlines()
    assert predictions[0] == "verdict,prediction,P(acc),P(good),P(unacc),P(vgood)"
    assert len(predictions) == 1729
    assert client.get("/download/../model.pybnc").status_code == 404
    assert client.get("/download/" + "0" * 32 + "/model.pybnc").status_code == 404


def test_bundled_dataset_by_get_and_model_without_one_network(client):
    page = client.get("/result?dataset=car&model=aode").get_data(as_text=True)
    assert "AODE on car" in page and "averages many networks" in page and "<svg" not in page
    assert re.findall(r"<td>(\w+)</td><td>[\d.]+ ±", page) == ["nb", "aode"]


@pytest.mark.parametrize("data, fields, expected", [
    (None, {"target": "colour"}, "There is no column 'colour'"),
    (b"a,b\nx,1\ny,1\nz,1\n", {}, "single value"),
    (b"", {}, "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00", {}, "binary file"),
    (b"a,b\n1,2\n3,4,5,6\n", {}, "Could not read the file as CSV"),
    (b"justone\nx\ny\n", {}, "at least one feature column"),
    (b"a,b\nx,0.5\ny,1.7\nz,2.2\n", {}, "continuous"),
    (None, {"model": "nosuch"}, "unknown model"),
])
def test_bad_input_is_a_message_on_the_form(client, car_csv, data, fields, expected):
    response = post(client, car_csv if data is None else data, **fields)
    assert response.status_code == 400
    assert expected in error_of(response)
    assert "Traceback" not in response.get_data(as_text=True)


def test_nothing_chosen_unknown_dataset_and_too_large(client):
    assert "Choose a CSV file" in error_of(client.post("/result", data={"model": "tan"}))
    assert "Unknown dataset" in error_of(client.get("/result?dataset=nosuch"))
    response = post(client, b"a,b\n" + b"x,y\n" * 300_000)  # 1.2 MB > the fixture's 1 MB
    assert response.status_code == 413 and "larger than the limit of 1 MB" in error_of(response)


def test_cli_serve_help():
    from click.testing import CliRunner

    from pybnc.cli import cli

    result = CliRunner().invoke(cli, ["serve", "--help"])
    assert result.exit_code == 0 and "--port" in result.output and "127.0.0.1" in result.output


def test_identifier_columns_are_left_out_with_a_note(client, car_csv):
    from pybnc.web import analysis

    X, y = load_dataset("car")
    table = X.assign(id=[f"row{i}" for i in range(len(X))], verdict=y)
    page = post(client, table.to_csv(index=False).encode()).get_data(as_text=True)
    assert f"more than {analysis.MAX_LEVELS} distinct values" in page and "id" in page
    assert "6 features" in page
