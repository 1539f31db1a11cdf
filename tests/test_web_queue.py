"""Several people use the page at once (issue 24, item 3): with two job slots the others'
jobs wait in the queue, first in first out, and every loop (upload, job, result,
evidence, predict) completes: no 5xx, no 429 while the queue has room, nothing lost.
A real threaded server on 127.0.0.1 and the simulated people of
``benchmarks/_web_users.py`` (``benchmarks/web_load.py`` runs 16 of them for 90 s)."""

import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from pybnc.datasets import load_dataset
from pybnc.web import create_app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _web_users import User  # noqa: E402

PEOPLE = 4


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from werkzeug.serving import make_server

    app = create_app(temp_root=tmp_path_factory.mktemp("queue"), max_jobs=2, max_queue=PEOPLE - 2)
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


def test_people_at_once_all_get_their_results_in_turn(server):
    app, url = server
    X, y = load_dataset("car")
    table = X.assign(verdict=y).sample(300, random_state=0)
    data, new_rows = table.to_csv(index=False).encode(), table.head(50).to_csv(index=False).encode()
    loops = []
    people = [User(url, data, new_rows, "verdict", seed=i, timeout=120) for i in range(PEOPLE)]
    threads = [threading.Thread(target=lambda u=u: loops.append(u.loop()), daemon=True) for u in people]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    assert len(loops) == PEOPLE and not [loop.error for loop in loops if loop.error]
    statuses = [s for loop in loops for s in loop.statuses]
    assert max(statuses) < 500 and 429 not in statuses  # the queue had room for everyone
    assert all(loop.state == "done" for loop in loops)
    assert max(loop.queued_at for loop in loops) >= 1  # some waited their turn
    np.testing.assert_allclose([loop.posterior_sum for loop in loops], 1.0, atol=1e-9)
    # First in, first out: the jobs started in the order they were submitted.
    jobs = sorted((j for j in app.extensions["pybnc_jobs"]._jobs.values()), key=lambda j: j.submitted)
    assert len(jobs) == PEOPLE and [j.started for j in jobs] == sorted(j.started for j in jobs)
    assert len(app.extensions["pybnc_runs"].runs) == PEOPLE
