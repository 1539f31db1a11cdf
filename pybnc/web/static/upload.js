// The form: when a table is chosen (a file or a bundled dataset), the server reads it as
// the job will and sends back its columns (for the class list) and the column report;
// changing the class column or the discretiser redoes the report. Nothing is learned yet.
"use strict";
(() => {
  const $ = id => document.getElementById(id);
  const form = $("run"), file = $("file"), target = $("target"), dataset = $("dataset"), report = $("report");
  let asked = 0;

  const tooLarge = () =>
    `The file is larger than the limit of ${report.dataset.maxMb} MB (pybnc serve --max-upload-mb raises it).`;

  async function describe(fillTargets) {
    if (!file.files.length && !dataset.value) { report.hidden = true; return; }
    const mine = ++asked, body = new FormData(form);
    if (fillTargets) body.set("target", "");  // a new table: its own last column
    report.hidden = false;
    report.setAttribute("aria-busy", "true");
    try {
      const response = await fetch(report.dataset.url, {method: "POST", body});
      // JSON, but a refusal by the server in front (waitress) may be plain text: shown as it is.
      const text = await response.text();
      let answer;
      try { answer = JSON.parse(text); } catch (err) {
        answer = {error: response.status === 413 ? tooLarge() : `The server answered ${response.status}: ${text.slice(0, 200)}`};
      }
      if (mine !== asked) return;  // a newer choice is on its way
      if (answer.html === undefined) {  // refused before the report (too large, busy...): the reason
        report.textContent = answer.error || `The server answered ${response.status}.`;
        report.classList.add("error");
        return;
      }
      report.classList.remove("error");
      report.innerHTML = answer.html;  // rendered by the server's templates, names escaped there
      if (fillTargets && answer.columns) {
        target.replaceChildren(...answer.columns.map(name => new Option(name, name, false, name === answer.target)));
      }
    } catch (err) {
      // A body far past the limit may be cut off by the server before it answers.
      const size = file.files.length ? file.files[0].size : 0;
      if (mine === asked) report.textContent = size > Number(report.dataset.maxMb) * 2 ** 20 ? tooLarge() :
        "Could not reach the server for the column report.";
      report.classList.add("error");
    } finally {
      if (mine === asked) report.removeAttribute("aria-busy");
    }
  }

  file.addEventListener("change", () => {
    if (file.files.length) dataset.value = "";  // a chosen file wins over a bundled dataset
    describe(true);
  });
  dataset.addEventListener("change", () => {
    if (dataset.value) file.value = "";
    describe(true);
  });
  for (const id of ["target", "discretizer", "n_bins"]) $(id).addEventListener("change", () => describe(false));
  form.addEventListener("submit", event => {
    if (file.files.length && file.files[0].size > Number(report.dataset.maxMb) * 2 ** 20) {
      event.preventDefault();  // the server would refuse it after the whole upload
      report.hidden = false;
      report.textContent = tooLarge();
      report.classList.add("error");
      return;
    }
    $("go").disabled = true;
  });
  if (dataset.value || file.files.length) describe(!target.value);  // back button: choices kept
})();
