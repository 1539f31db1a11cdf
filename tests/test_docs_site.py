"""The documentation site builds without a warning, and every public name has an API page."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pybnc

# The Sphinx build runs the gallery: minutes. The edit loop (-m 'not slow') leaves it out.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, PYBNC_PROGRESS="0", MPLBACKEND="Agg")
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                          "-d", str(out / "doctrees"), str(ROOT / "docs"), str(out / "html")],
                         capture_output=True, text=True, env=env, cwd=ROOT)
    assert run.returncode == 0, f"sphinx-build -W failed:\n{run.stdout[-4000:]}\n{run.stderr[-8000:]}"
    return out / "html"


def test_site_builds_with_warnings_as_errors(site):
    assert (site / "index.html").is_file()
    assert (site / "auto_examples" / "index.html").is_file()


def test_every_public_name_has_an_api_page(site):
    missing = [name for name in pybnc.__all__ if name != "__version__"
               and not (site / "generated" / f"pybnc.{name}.html").is_file()]
    assert not missing, f"no API page for {missing}: add them to docs/api.rst"


def test_every_user_guide_page_is_in_the_site(site):
    pages = sorted(p.stem for p in (ROOT / "docs").glob("*.md"))
    assert [p for p in pages if not (site / f"{p}.html").is_file()] == []


def test_a_classifiers_page_documents_its_inherited_methods(site):
    import re

    page = (site / "generated" / "pybnc.TAN.html").read_text()
    documented = set(re.findall(r'id="pybnc\.TAN\.([a-z_]+)"', page))
    assert {"fit", "partial_fit", "predict", "predict_proba", "predict_log_proba", "explain", "plot", "score",
            "get_params", "set_params"} <= documented
    assert not documented & {"set_fit_request", "get_metadata_routing"}  # scikit-learn's routing machinery


def test_the_explanation_has_a_page_with_its_methods_not_pandas(site):
    import re

    page = (site / "generated" / "pybnc.estimators.explain.Explanation.html").read_text()
    documented = set(re.findall(r'id="pybnc\.estimators\.explain\.Explanation\.([a-z_]+)"', page))
    assert documented == {"feature_values", "importance", "plot"}
