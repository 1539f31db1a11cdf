// The contributions panel: each set feature's Shapley value for the most probable class,
// asked of the server (the model's own explain()) whenever the evidence changes.
// Names are set as text (textContent), never parsed as markup.
"use strict";
(() => {
  const panel = document.getElementById("contributions");
  const source = document.getElementById("network-data");
  if (!panel || !source) return;
  const D = JSON.parse(source.textContent);
  const bars = document.getElementById("contribution-bars"), note = document.getElementById("contribution-note");
  const hint = note.textContent;
  let asked = 0;

  function span(cls, text) {
    const s = document.createElement("span");
    s.className = cls;
    if (text !== undefined) s.textContent = text;
    return s;
  }
  const signed = v => (v >= 0 ? "+" : "−") + Math.abs(v).toFixed(Math.abs(v) < 0.1 ? 3 : 2);

  function show(answer, evidence) {
    const widest = Math.max(...answer.values.map(m => Math.abs(m.value)), 1e-12);
    bars.replaceChildren(...answer.values.map(m => {
      const row = document.createElement("div");
      row.className = "contribution";
      row.dataset.feature = m.feature;
      row.dataset.value = m.value;
      const track = span("track"), fill = span("fill " + (m.value >= 0 ? "up" : "down"));
      const share = 50 * Math.abs(m.value) / widest;
      fill.style.width = share.toFixed(1) + "%";
      fill.style.left = (m.value >= 0 ? 50 : 50 - share).toFixed(1) + "%";
      track.appendChild(fill);
      const value = span("value", signed(m.value));
      if (m.se > 0) value.title = `sampled: standard error ${m.se.toFixed(3)}`;
      row.append(span("label", `${D.features[m.feature]} = ${D.levels[m.feature][m.level]}`), track, value);
      return row;
    }));
    bars.dataset.evidence = JSON.stringify(evidence);
    note.textContent = answer.values.length ?
      `log-odds of ${D.classes[answer.top]}: prior ${answer.base.toFixed(2)} → ${answer.total.toFixed(2)} ` +
      `with the evidence (${answer.method}, ${answer.millis.toFixed(0)} ms)` : hint;
  }

  document.addEventListener("pybnc:evidence", async event => {
    const mine = ++asked, evidence = event.detail.evidence;
    if (!Object.keys(evidence).length) {
      bars.replaceChildren();
      bars.dataset.evidence = "{}";
      note.textContent = hint;
      return;
    }
    const response = await fetch(panel.dataset.url, {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({evidence}),
    });
    if (mine !== asked) return;  // a newer question is on its way
    if (!response.ok) {  // refused (busy, bad evidence): the server's reason
      note.textContent = (await response.json().catch(() => ({}))).error || `The server answered ${response.status}.`;
      return;
    }
    show(await response.json(), evidence);
  });
})();
