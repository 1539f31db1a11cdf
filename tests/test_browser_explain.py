"""The evidence view's contributions panel in headless Chromium: each set feature's
Shapley value, as the model's own explain() gives it (fixtures of test_browser_web)."""

import numpy as np
import pandas as pd
import pytest

from test_browser_web import (browser, by_id, car_file, css, figures, learned_run, no_script_errors,  # noqa: F401
                              screenshot, server, wait_for)

# A real browser: the edit loop (-m 'not slow') leaves it out; CI runs it.
pytestmark = pytest.mark.slow


def test_contributions_panel_shows_the_shapley_values_of_the_evidence(server, browser, car_file, figures):
    from selenium.webdriver.support.ui import Select

    app, url = server
    run = learned_run(server, car_file, browser=browser)
    model = app.extensions["pybnc_runs"].runs[run].models["tan"]
    browser.get(f"{url}/runs/{run}?model=tan")
    wait_for(browser, lambda b: len(css(b, "#network-svg .node[data-feature]")) == 6, "the drawn network")
    assert css(browser, "#contribution-bars .contribution") == []
    for feature, value in ((5, "low"), (3, "more"), (0, "vhigh")):
        Select(by_id(browser, f"ev-{feature}")).select_by_visible_text(value)
    wait_for(browser, lambda b: by_id(b, "contribution-bars").get_attribute("data-evidence") == '{"0":3,"3":2,"5":1}',
             "the contributions of safety = low, persons = more, buying = vhigh")
    row = pd.DataFrame([[None] * 6], columns=model.feature_names_in_)
    row["safety"], row["persons"], row["buying"] = "low", "more", "vhigh"
    assert [model.encoder_.categories_[j][k] for j, k in ((0, 3), (3, 2), (5, 1))] == ["vhigh", "more", "low"]
    expected = model.explain(row)
    shown = {int(r.get_attribute("data-feature")): float(r.get_attribute("data-value"))
             for r in css(browser, "#contribution-bars .contribution")}
    assert sorted(shown) == [0, 3, 5]
    for feature, value in shown.items():
        assert value == np.float64(expected.iloc[0, feature])  # the very numbers of explain()
    labels = [r.find_element("css selector", ".label").text for r in css(browser, "#contribution-bars .contribution")]
    assert labels[0] == "safety = low"  # largest first
    texts = [r.find_element("css selector", ".value").text for r in css(browser, "#contribution-bars .contribution")]
    assert [float(t.replace("−", "-")) for t in texts] == [round(expected.iloc[0][n.split(" = ")[0]], 2 if
                                                              abs(expected.iloc[0][n.split(" = ")[0]]) >= 0.1 else 3)
                                                        for n in labels]
    # The note adds them up: the prior's log-odds of the top class, then the posterior's.
    proba = model.predict_proba(row)[0]
    top = int(np.argmax(proba))
    note = by_id(browser, "contribution-note").text
    assert f"log-odds of {model.classes_[top]}: prior {expected['base_value'].iloc[0]:.2f}" in note
    assert f"→ {np.log(proba[top]) - np.log1p(-proba[top]):.2f}" in note
    screenshot(browser, figures, "explain", by_id(browser, "evidence-panel"))
    by_id(browser, "clear-evidence").click()
    wait_for(browser, lambda b: by_id(b, "contribution-bars").get_attribute("data-evidence") == "{}", "a cleared panel")
    assert css(browser, "#contribution-bars .contribution") == []
    no_script_errors(browser)


def test_contributions_route_checks_the_evidence(server, car_file):
    app, _ = server
    client = app.test_client()
    run = learned_run(server, car_file, client=client)
    answer = client.post(f"/api/runs/{run}/tan/contributions", json={"evidence": {"5": 1, "0": 0}}).get_json()
    assert [m["feature"] for m in answer["values"]] == sorted([5, 0], key=lambda f: -abs(
        next(m["value"] for m in answer["values"] if m["feature"] == f)))
    assert abs(answer["base"] + sum(m["value"] for m in answer["values"]) - answer["total"]) < 1e-9
    assert client.post(f"/api/runs/{run}/tan/contributions", json={"evidence": {"9": 0}}).status_code == 400
    assert client.post(f"/api/runs/{run}/tan/contributions", json={"evidence": {}}).get_json()["values"] == []
