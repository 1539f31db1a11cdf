// The form: fill the class-column list from the chosen file's header (read here, nothing
// is sent), and keep the button from being pressed twice.
"use strict";
(() => {
  const file = document.getElementById("file"), target = document.getElementById("target");
  const dataset = document.getElementById("dataset");

  function splitLine(line, sep) {  // one CSV line, with quoted fields
    const out = [];
    let field = "", quoted = false;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i];
      if (quoted) {
        if (ch === '"' && line[i + 1] === '"') { field += '"'; i++; }
        else if (ch === '"') quoted = false;
        else field += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === sep) { out.push(field.trim()); field = ""; }
      else field += ch;
    }
    out.push(field.trim());
    return out;
  }

  file.addEventListener("change", () => {
    const f = file.files[0];
    if (!f) return;
    dataset.value = "";  // a chosen file wins over a bundled dataset
    f.slice(0, 65536).text().then(text => {
      const line = text.replace(/^\ufeff/, "").split(/\r?\n/)[0];
      const sep = [",", ";", "\t", "|"].reduce((a, b) => line.split(b).length > line.split(a).length ? b : a);
      const names = splitLine(line, sep);
      target.replaceChildren(...names.map((name, i) => new Option(name, name, false, i === names.length - 1)));
    });
  });
  document.getElementById("run").addEventListener("submit", () => {
    document.getElementById("go").disabled = true;
  });
})();
