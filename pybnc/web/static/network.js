// The result page's network: draw it (zoom, pan, arc strengths on hover), and question it:
// feature values set by clicking a node or in the side panel go to the server, which
// answers with the model's own predict_proba (unset features summed out exactly).
// Names are always set as text (textContent), never parsed as markup or maths.
"use strict";
(() => {
  const source = document.getElementById("network-data");
  if (!source) return;
  const D = JSON.parse(source.textContent);
  const SVG = "http://www.w3.org/2000/svg";
  const $ = id => document.getElementById(id);
  const evidence = new Map();  // feature index -> level index
  const selects = [...document.querySelectorAll("#evidence select")];
  let nodes = [];  // drawn nodes: {g, rect, text, w, cx, cy}
  let asked = 0;

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  // -- the answer -------------------------------------------------------------------------
  // The posterior first (one row: at once), then each set feature's influence (one more
  // row per feature, which some models answer more slowly).
  async function ask() {
    const mine = ++asked, start = performance.now();
    // Other panels of the view (pybnc/web/pages/ask.py, PANELS) answer the same evidence.
    document.dispatchEvent(new CustomEvent("pybnc:evidence", {
      detail: {run: D.run, model: D.model, evidence: Object.fromEntries(evidence)}}));
    const question = influence => fetch(D.posterior, {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({evidence: Object.fromEntries(evidence), influence}),
    });
    const response = await question(false);
    if (mine !== asked) return;  // a newer question is on its way
    if (!response.ok) { $("answer-time").textContent = await reason(response); return; }
    showAnswer(await response.json(), performance.now() - start);
    if (!evidence.size) return;
    const moves = await question(true);
    if (!moves.ok || mine !== asked) return;
    showInfluence(await moves.json());
  }

  // What a refused request says (the server answers JSON errors), for the page.
  async function reason(response) {
    try { return (await response.json()).error || `The server answered ${response.status}.`; }
    catch (err) { return `The server answered ${response.status}.`; }
  }

  function showAnswer(answer, took) {
    const rows = D.classes.map((label, k) => {
      const row = document.createElement("div");
      row.className = "bar-row";
      const name = document.createElement("span"), track = document.createElement("span");
      const fill = document.createElement("span"), value = document.createElement("span");
      name.className = "label"; name.textContent = label;
      track.className = "track"; fill.className = "fill" + (k === answer.top ? " top" : "");
      fill.style.width = (100 * answer.proba[k]).toFixed(1) + "%";
      value.className = "value"; value.textContent = answer.proba[k].toFixed(3);
      track.appendChild(fill);
      row.append(name, track, value);
      return row;
    });
    $("posterior").replaceChildren(...rows);
    $("posterior").dataset.evidence = JSON.stringify(Object.fromEntries(evidence));
    $("answer-time").textContent = evidence.size ?
      `${evidence.size} feature(s) set · answered in ${took.toFixed(0)} ms (model ${answer.millis.toFixed(1)} ms)` :
      "No evidence: the class prior.";
    for (const li of document.querySelectorAll("#evidence li")) {
      const set = evidence.has(Number(li.dataset.feature)), span = li.querySelector(".influence");
      li.classList.toggle("set", set);
      span.textContent = set ? "…" : "";
      span.className = "influence";
      span.title = "";
    }
    $("evidence").dataset.influence = "";
  }

  function showInfluence(answer) {
    const moved = new Map(answer.influence.map(i => [i.feature, i.delta]));
    for (const li of document.querySelectorAll("#evidence li")) {
      const span = li.querySelector(".influence"), delta = moved.get(Number(li.dataset.feature));
      span.textContent = delta === undefined ? "" :
        (delta >= 0 ? "+" : "−") + Math.abs(delta).toFixed(Math.abs(delta) < 0.1 ? 3 : 2);
      span.className = "influence" + (delta === undefined ? "" : delta >= 0 ? " up" : " down");
      span.title = delta === undefined ? "" :
        `moves the log-odds of ${D.classes[answer.top]} by ${delta.toFixed(3)}`;
    }
    $("evidence").dataset.influence = JSON.stringify(Object.fromEntries(evidence));
  }

  function setLevel(feature, level) {
    if (level === null || level === "") evidence.delete(feature);
    else evidence.set(feature, Number(level));
    selects[feature].value = evidence.has(feature) ? String(evidence.get(feature)) : "";
    if (nodes.length) label(feature);
    ask();
  }

  selects.forEach((select, i) => select.addEventListener("change", () => setLevel(i, select.value)));
  $("clear-evidence").addEventListener("click", () => {
    const set = [...evidence.keys()];
    evidence.clear();
    selects.forEach(s => { s.value = ""; });
    set.forEach(i => nodes.length && label(i));
    ask();
  });
  $("feature-filter").addEventListener("input", event => {
    const text = event.target.value.trim().toLowerCase();
    for (const li of document.querySelectorAll("#evidence li")) {
      li.hidden = text !== "" && !D.features[Number(li.dataset.feature)].toLowerCase().includes(text);
    }
  });

  // -- the drawing ------------------------------------------------------------------------
  const drawing = D.drawing, svg = $("network-svg");
  if (!drawing || !svg) return;
  const box = $("network"), tip = $("tip");
  const ROW = 66, H = 22, PAD = 7;
  const view = {k: 1, x: 0, y: 0};
  const root = el("g", {class: "viewport"}, svg);
  const classArcs = el("g", {class: "class-arcs"}, root), arcs = el("g", {class: "arcs"}, root);
  const layer = el("g", {class: "nodes"}, root);
  const defs = el("defs", {}, svg);
  const marker = el("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7,
                               markerHeight: 7, orient: "auto-start-reverse"}, defs);
  el("path", {d: "M0,0 L10,5 L0,10 z", class: "arrowhead"}, marker);

  function label(i) {  // the node's text: its name, and its value when set
    const node = nodes[i], set = evidence.has(i);
    node.text.textContent = set ? `${D.features[i]} = ${D.levels[i][evidence.get(i)]}` : D.features[i];
    const w = Math.max(node.w, node.text.getComputedTextLength() + 2 * PAD);
    node.rect.setAttribute("width", w);
    node.rect.setAttribute("x", node.cx - w / 2);
    node.g.classList.toggle("set", set);
    if (set) layer.appendChild(node.g);  // on top of its neighbours when it grows
  }

  function draw() {
    const cls = {g: el("g", {class: "node class-node"}, layer)};
    cls.rect = el("rect", {rx: 6, height: H + 4}, cls.g);
    cls.text = el("text", {"text-anchor": "middle"}, cls.g);
    cls.text.textContent = D.target;
    nodes = drawing.nodes.map((n, i) => {
      const g = el("g", {class: "node", "data-feature": i, tabindex: 0, role: "button"}, layer);
      const rect = el("rect", {rx: 4, height: H}, g);
      const text = el("text", {"text-anchor": "middle"}, g);
      text.textContent = n.name;
      const title = el("title", {}, g);
      title.textContent = `${n.name}: click to set its value (${D.levels[i].length} values)`;
      return {g, rect, text, w: text.getComputedTextLength() + 2 * PAD, layer: n.y, x: n.x};
    });
    // Just wide enough that neighbours in a layer never overlap.
    const widest = Math.max(...nodes.map(n => n.w), 40);
    let span = 0;
    const layers = {};
    nodes.forEach(n => (layers[n.layer] = layers[n.layer] || []).push(n));
    for (const members of Object.values(layers)) {
      members.sort((a, b) => a.x - b.x);
      for (let j = 1; j < members.length; j++) {
        const a = members[j - 1], b = members[j];
        span = Math.max(span, (a.w / 2 + b.w / 2 + 10) / Math.max(b.x - a.x, 1e-6));
      }
    }
    const width = Math.max(box.clientWidth - 20, span + widest + 20);
    nodes.forEach((n, i) => {
      n.cx = widest / 2 + 10 + n.x * (width - widest - 20);
      n.cy = 24 + ROW * n.layer;
      n.text.setAttribute("x", n.cx);
      n.text.setAttribute("y", n.cy + 4);
      n.rect.setAttribute("y", n.cy - H / 2);
      label(i);
    });
    const first = nodes.filter(n => n.layer === 1);  // the class sits above the roots
    const top = {cx: first.reduce((sum, n) => sum + n.cx, 0) / Math.max(first.length, 1), cy: 24};
    const cw = cls.text.getComputedTextLength() + 3 * PAD;
    Object.entries({x: top.cx - cw / 2, y: top.cy - H / 2 - 2, width: cw}).forEach(([k, v]) => cls.rect.setAttribute(k, v));
    cls.text.setAttribute("x", top.cx);
    cls.text.setAttribute("y", top.cy + 5);
    nodes.forEach((n, i) => {
      const d = `M${top.cx},${top.cy + H / 2} L${n.cx},${n.cy - H / 2}`;
      arc(classArcs, d, `${D.target} → ${D.features[i]}: I(${D.features[i]}; ${D.target}) = ${drawing.class_mi[i].toFixed(4)} nats`, false);
    });
    drawing.arcs.forEach(a => {
      const p = nodes[a.from], c = nodes[a.to];
      const skip = c.layer - p.layer, x1 = p.cx, y1 = p.cy + H / 2, x2 = c.cx, y2 = c.cy - H / 2 - 1;
      // Arcs that skip layers bend aside, so they do not run through the nodes between.
      const bend = skip > 1 ? (x2 >= x1 ? 1 : -1) * (30 + 18 * skip) : 0;
      const d = `M${x1},${y1} Q${(x1 + x2) / 2 + bend},${(y1 + y2) / 2} ${x2},${y2}`;
      arc(arcs, d, `${D.features[a.from]} → ${D.features[a.to]}: I(${D.features[a.from]}; ${D.features[a.to]} | ${D.target}) = ${a.cmi.toFixed(4)} nats`, true);
    });
    const height = 24 + ROW * Math.max(...nodes.map(n => n.layer), 0) + H;
    return {width: width + 20, height: height + 20};
  }

  function arc(group, d, text, augmenting) {
    const g = el("g", {class: augmenting ? "arc" : "class-arc"}, group);
    el("path", {d, class: "line", "marker-end": augmenting ? "url(#arrow)" : ""}, g);
    el("path", {d, class: "hit"}, g);  // a wide invisible stroke: easy to hover
    g.dataset.info = text;
    g.addEventListener("pointerenter", event => { g.classList.add("hot"); showTip(event, text); });
    g.addEventListener("pointermove", event => showTip(event, text));
    g.addEventListener("pointerleave", () => { g.classList.remove("hot"); tip.hidden = true; });
  }

  function showTip(event, text) {
    const frame = box.getBoundingClientRect();
    tip.textContent = text;
    tip.hidden = false;
    tip.style.left = Math.min(event.clientX - frame.left + 12, frame.width - tip.offsetWidth - 4) + "px";
    tip.style.top = (event.clientY - frame.top + 14) + "px";
  }

  // -- zoom and pan -----------------------------------------------------------------------
  function apply() { root.setAttribute("transform", `translate(${view.x},${view.y}) scale(${view.k})`); }

  function zoomAt(factor, px, py) {
    const k = Math.min(4, Math.max(0.1, view.k * factor));
    view.x = px - (px - view.x) * (k / view.k);
    view.y = py - (py - view.y) * (k / view.k);
    view.k = k;
    apply();
  }

  let size;
  function fit() {
    const w = svg.clientWidth, h = svg.clientHeight;
    view.k = Math.min(1.25, w / size.width, h / size.height);
    view.x = (w - size.width * view.k) / 2;
    view.y = Math.max(0, (h - size.height * view.k) / 2);
    apply();
  }

  svg.addEventListener("wheel", event => {
    event.preventDefault();
    const frame = svg.getBoundingClientRect();
    zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - frame.left, event.clientY - frame.top);
  }, {passive: false});
  let drag = null;
  svg.addEventListener("pointerdown", event => {
    if (event.target.closest(".node")) return;
    drag = {x: event.clientX - view.x, y: event.clientY - view.y};
    svg.setPointerCapture(event.pointerId);
    svg.classList.add("dragging");
  });
  svg.addEventListener("pointermove", event => {
    if (!drag) return;
    view.x = event.clientX - drag.x;
    view.y = event.clientY - drag.y;
    apply();
  });
  const stop = () => { drag = null; svg.classList.remove("dragging"); };
  svg.addEventListener("pointerup", stop);
  svg.addEventListener("pointercancel", stop);
  document.querySelectorAll("[data-zoom]").forEach(button => button.addEventListener("click", () => {
    const how = button.dataset.zoom;
    if (how === "fit") fit();
    else zoomAt(how === "in" ? 1.25 : 0.8, svg.clientWidth / 2, svg.clientHeight / 2);
  }));

  // A click on a feature steps through its values: unset, the first, ..., the last, unset.
  layer.addEventListener("click", event => {
    const g = event.target.closest(".node[data-feature]");
    if (!g) return;
    const i = Number(g.dataset.feature), n = D.levels[i].length;
    const next = evidence.has(i) ? evidence.get(i) + 1 : 0;
    setLevel(i, next < n ? next : null);
  });
  layer.addEventListener("keydown", event => {
    if ((event.key === "Enter" || event.key === " ") && event.target.closest(".node[data-feature]")) {
      event.preventDefault();
      event.target.closest(".node").dispatchEvent(new MouseEvent("click", {bubbles: true}));
    }
  });

  size = draw();
  svg.style.height = Math.round(Math.min(Math.max(size.height * Math.min(1, svg.clientWidth / size.width), 300), 780)) + "px";
  fit();
})();
