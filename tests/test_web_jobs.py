"""Web jobs are bounded: wall-clock limit, a cap on concurrent jobs, cancel, and stop
when the page is gone; in every case the worker process is killed and the page says
what happened (issue 9, item 3)."""

import io
import os
import time

from pybnc._utils.progress import progress, report_progress
from pybnc.web import create_app, jobs

SLOW = {"dataset": "chess", "models": ["tanhc", "tanhcsp", "fssj", "bsej"]}  # a minute of work


def start(client, **form):
    response = client.post("/result", data={**SLOW, **form})
    assert response.status_code == 303, response.get_data(as_text=True)[:1500]
    return response.headers["Location"].rsplit("/", 1)[1]


def ended(manager, job_id, timeout=30):
    deadline = time.monotonic() + timeout
    while (job := manager.get(job_id)).state == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
    return job


def gone(pid, timeout=5) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def make(tmp_path, **limits):
    app = create_app(temp_root=tmp_path, **limits)
    return app.test_client(), app.extensions["pybnc_jobs"]


def test_a_job_past_its_time_limit_is_killed_and_the_page_says_so(tmp_path):
    client, manager = make(tmp_path, job_time_limit=1.5)
    job_id = start(client)
    started = time.monotonic()
    while manager.touch(job_id).state == "running" and time.monotonic() - started < 30:
        time.sleep(0.1)  # the page keeps polling: only the time limit can stop it
    job = manager.get(job_id)
    assert job.state == "timed out" and time.monotonic() - started < 10
    assert gone(job.pid)
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert "time limit of 1.5 s" in page and "--job-time-limit" in page
    status = client.get(f"/api/jobs/{job_id}").get_json()
    assert status["state"] == "timed out" and "url" not in status


def test_a_job_past_its_memory_limit_is_killed_and_the_page_says_so(tmp_path):
    # 60 MB is less than any worker with numpy and pybnc loaded holds, so it stops at once.
    client, manager = make(tmp_path, job_memory_mb=60)
    job_id = start(client)
    job = ended(manager, job_id, timeout=10)
    assert job.state == "over memory" and gone(job.pid)
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert "more than 60 MB of memory" in page and "--job-memory-mb" in page
    assert jobs._resident_mb(os.getpid()) > 10 and jobs._resident_mb(None) == 0


def test_jobs_beyond_the_slots_queue_and_can_be_cancelled_while_waiting(tmp_path):
    client, manager = make(tmp_path, max_jobs=1, max_queue=2)
    first, second, third = start(client), start(client), start(client)
    assert [manager.get(j).state for j in (first, second, third)] == ["running", "queued", "queued"]
    status = client.get(f"/api/jobs/{third}").get_json()
    assert status["position"] == 2 and status["elapsed"] == 0
    page = client.get(f"/jobs/{second}").get_data(as_text=True)
    assert 'id="job-position">1<' in page and "runs 1 job at a time" in page and 'id="cancel"' in page
    assert "1 more waiting" not in client.get("/").get_data(as_text=True)  # two wait
    # The queue is full: only now is a job refused, saying why and what to do.
    response = client.post("/result", data=SLOW)
    text = response.get_data(as_text=True)
    assert response.status_code == 429 and response.headers["Retry-After"] == "30"
    assert "The queue is full: 1 job(s) running" in text and "--max-queue" in text
    # Cancel while waiting: out of the queue at once, the one behind moves up.
    assert client.post(f"/api/jobs/{second}/cancel").get_json() == {"cancelled": True}
    job = manager.get(second)
    assert job.state == "cancelled" and job.pid is None
    assert "Cancelled at your request after waiting" in client.get(f"/jobs/{second}").get_data(as_text=True)
    assert client.get(f"/api/jobs/{third}").get_json()["position"] == 1
    # The running job's cancel frees its slot: the next in the queue starts.
    assert client.post(f"/jobs/{first}/cancel").status_code == 303
    assert ended(manager, first).state == "cancelled" and gone(manager.get(first).pid)
    deadline = time.monotonic() + 10
    while manager.touch(third).state == "queued" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert manager.get(third).state == "running" and manager.get(third).position == 0
    assert client.post(f"/api/jobs/{first}/cancel").get_json() == {"cancelled": False}
    manager.cancel(third)
    assert ended(manager, third).state == "cancelled"


def test_the_queue_is_first_in_first_out_and_forgets_pages_that_went(tmp_path, monkeypatch):
    monkeypatch.setattr(jobs, "LEAVE_GRACE", 0.3)
    client, manager = make(tmp_path, max_jobs=1, max_queue=5)
    ids = [start(client) for _ in range(4)]
    assert [manager.get(j).position for j in ids] == [0, 1, 2, 3]
    client.post(f"/api/jobs/{ids[1]}/leave")  # its page closed while it waited
    deadline = time.monotonic() + 10
    while manager.get(ids[1]).state == "queued" and time.monotonic() < deadline:
        for j in (ids[0], ids[2], ids[3]):
            manager.touch(j)
        time.sleep(0.1)
    assert manager.get(ids[1]).state == "abandoned" and "Taken out of the queue" in manager.get(ids[1]).message
    assert [manager.get(j).position for j in (ids[2], ids[3])] == [1, 2]
    manager.cancel(ids[0])
    while manager.touch(ids[2]).state == "queued" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert manager.get(ids[2]).state == "running" and manager.get(ids[3]).state == "queued"
    for j in ids:
        manager.cancel(j)
    assert all(ended(manager, j).state in ("cancelled", "abandoned") for j in ids)


def test_a_job_nobody_asks_about_stops(tmp_path):
    client, manager = make(tmp_path, client_timeout=1.0)
    job_id = start(client)
    job = ended(manager, job_id)  # manager.get does not count as the page asking
    assert job.state == "abandoned" and gone(job.pid)
    assert "no request for 1 s" in job.message


def test_a_page_that_says_it_leaves_stops_its_job_unless_it_comes_back(tmp_path, monkeypatch):
    monkeypatch.setattr(jobs, "LEAVE_GRACE", 0.5)
    client, manager = make(tmp_path)
    job_id = start(client)
    assert client.post(f"/api/jobs/{job_id}/leave").status_code == 204
    time.sleep(0.2)
    client.get(f"/api/jobs/{job_id}")  # a reload polls again within the grace: the job goes on
    time.sleep(0.8)
    assert manager.get(job_id).state == "running"
    client.post(f"/api/jobs/{job_id}/leave")
    job = ended(manager, job_id)
    assert job.state == "abandoned" and gone(job.pid)


def test_progress_is_reported_while_running(tmp_path):
    client, manager = make(tmp_path)
    job_id = start(client)
    deadline = time.monotonic() + 30
    while (status := client.get(f"/api/jobs/{job_id}").get_json())["done"] == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert status["state"] == "running" and status["total"] == 5 * 11 and status["done"] >= 1
    assert "rows" in status["text"] or "fold" in status["text"] or "search" in status["text"]
    manager.cancel(job_id)
    ended(manager, job_id)


def test_a_failure_inside_the_job_is_a_message(tmp_path):
    client, manager = make(tmp_path)
    ids = "".join(f"id{i},{'pq'[i % 2]}\n" for i in range(600))  # only an identifier: nothing to learn
    response = client.post("/result", content_type="multipart/form-data",
                           data={"file": (io.BytesIO(("id,c\n" + ids).encode()), "t.csv"), "models": "tan"})
    job_id = response.headers["Location"].rsplit("/", 1)[1]
    job = manager.wait(job_id)
    assert job.state == "failed" and job.message.startswith("No feature column is left to learn from. Left out 1 column(s): id (ID-like)")
    page = client.get(f"/jobs/{job_id}").get_data(as_text=True)
    assert "No feature column is left" in page and "Traceback" not in page


def test_report_progress_sees_bars_even_when_silent():
    seen = []
    with report_progress(lambda *step: seen.append(step)):
        for _ in progress(range(3), desc="cv x", verbose=0):
            pass
        bar = progress(total=None, desc="search", verbose=0)
        bar.update(1)
        bar.set_postfix(cv_accuracy="0.9")
        bar.update(1)
        bar.close()
    assert seen == [("cv x", 0, 3, ""), ("cv x", 1, 3, ""), ("cv x", 2, 3, ""), ("cv x", 3, 3, ""),
                    ("search", 1, None, ""), ("search", 2, None, "cv_accuracy 0.9")]
    assert list(progress(range(2), verbose=0)) == [0, 1]  # no listener: a plain bar


def test_workers_serve_job_after_job_and_a_stopped_one_is_replaced(tmp_path, monkeypatch):
    from pybnc.web import _workers

    client, manager = make(tmp_path, max_jobs=1)
    quick = {"dataset": "car", "models": "nb"}
    first = manager.wait(start(client, **quick), timeout=60)
    second = manager.wait(start(client, **quick), timeout=60)
    assert first.state == second.state == "done" and first.pid == second.pid  # the same process
    stopped = start(client)
    manager.cancel(stopped)
    job = ended(manager, stopped)
    assert job.state == "cancelled" and job.pid == first.pid and gone(job.pid)  # killed with its job
    third = manager.wait(start(client, **quick), timeout=60)
    assert third.state == "done" and third.pid != first.pid
    monkeypatch.setattr(_workers, "RETIRE_GROWTH_MB", -1.0)  # any growth: retired after its job
    fourth = manager.wait(start(client, **quick), timeout=60)
    assert fourth.state == "done" and fourth.pid == third.pid and gone(third.pid)
    assert manager.wait(start(client, **quick), timeout=60).pid != third.pid


def test_a_forgotten_run_takes_its_files_with_it(tmp_path, monkeypatch):
    from pybnc.web import runs

    monkeypatch.setattr(runs, "KEEP_RUNS", 2)
    store = runs.Runs(tmp_path)
    made = []
    for i in range(4):
        run, folder = store.folder("me")
        (folder / "rows.pkl").write_bytes(b"x")
        made.append(store.add(run, f"learned {i}"))
    pending, _ = store.folder("me")  # a job still queued or running: its folder stays, however old
    failed, _ = store.folder("me")
    store.discard(failed)  # a job that ended without a result: its folder goes at once
    store.add(*store.folder("me")[:1], "learned 4")
    kept = {p.name for p in store.root.iterdir()}
    assert not {made[0], made[1], made[2], failed} & kept and made[3] in kept and pending in kept


def _search_in_a_job(payload, report):
    from joblib.parallel import get_active_backend
    from pybnc import KDB
    from pybnc.datasets import load_dataset
    from pybnc.search import _greedy

    real, wait = _greedy.open_pool, _greedy.PARALLEL_STEP_SECONDS
    _greedy.PARALLEL_STEP_SECONDS = 0.0  # every step would go to processes outside a job
    opened = []
    _greedy.open_pool = lambda *args, **kwargs: opened.append(kwargs) or real(*args, **kwargs)
    try:
        X, y = load_dataset("votes")
        KDB(search="hc", epsilon=0, random_state=0, verbose=0, n_jobs=2).fit(X, y)
    finally:
        _greedy.open_pool, _greedy.PARALLEL_STEP_SECONDS = real, wait
    return get_active_backend()[0].uses_threads, opened


def test_a_jobs_parallel_work_stays_on_its_threads():
    """A worker is killed to stop its job: a search in a job must not start processes."""
    from pybnc.web import _workers

    sent = []

    class Conn:
        send = staticmethod(sent.append)

    _workers._run(_search_in_a_job, None, Conn(), ())
    assert sent[-1] == ("done", (True, []))
