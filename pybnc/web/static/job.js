// A job's page: its place in the queue while it waits, then its progress; cancel at any
// time; the result once it is done.
"use strict";
(() => {
  const box = document.getElementById("job");
  if (!box || !["queued", "running"].includes(box.dataset.state)) return;
  const $ = id => document.getElementById(id);
  let active = true;

  function show(job) {
    const share = job.total ? 100 * job.done / job.total : 0;
    $("job-bar").style.width = share.toFixed(1) + "%";
    box.querySelector(".progress").setAttribute("aria-valuenow", Math.round(share));
    $("job-text").textContent = job.text;
    $("job-steps").textContent = `${job.done} of ${job.total} steps`;
    $("job-elapsed").textContent = job.elapsed.toFixed(0);
    $("job-queue").hidden = job.state !== "queued";
    $("job-position").textContent = $("job-position-text").textContent = job.position;
    $("job-waited").textContent = job.waited.toFixed(0);
    box.dataset.state = job.state;
    if (job.state === "queued" || job.state === "running") return;
    active = false;
    if (job.state === "done") {
      $("job-text").textContent = "Done: opening the result…";
      location.replace(job.url);
      return;
    }
    // A cancel was asked for: a note; anything else that stopped the job: an error.
    const what = job.state[0].toUpperCase() + job.state.slice(1);
    $("job-text").textContent = job.ran ? `${what} during: ${job.text}` : `${what} while waiting in the queue`;
    const message = $("job-message");
    message.textContent = job.message;
    message.className = job.state === "cancelled" ? "note" : "error";
    message.hidden = false;
    $("job-again").hidden = false;
    const form = $("cancel-form");
    if (form) form.remove();
  }

  async function poll() {
    try {
      const response = await fetch(box.dataset.status, {cache: "no-store"});
      if (response.ok) show(await response.json());
      else if (response.status < 500) {  // gone (another session's, or forgotten): say so, stop asking
        active = false;
        const answer = await response.json().catch(() => ({}));
        $("job-text").textContent = answer.error || `The server answered ${response.status}.`;
      }
    } catch (err) { /* a dropped request: the next poll tries again */ }
    // Twice a second while it runs; a waiting job moves up only as jobs end: once a second.
    if (active) setTimeout(poll, box.dataset.state === "queued" ? 1000 : 500);
  }

  $("cancel-form").addEventListener("submit", async event => {
    event.preventDefault();
    $("cancel").disabled = true;
    $("cancel").textContent = "Cancelling…";
    await fetch(box.dataset.cancel, {method: "POST"});
  });
  // Closing the tab or going elsewhere: tell the server at once (a reload polls again in time).
  addEventListener("pagehide", () => { if (active) navigator.sendBeacon(box.dataset.leave); });
  poll();
})();
