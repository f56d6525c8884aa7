// assay view: every value from the data is written with textContent, never as HTML.
"use strict";
(function () {
  const FILTERS = ["arm", "opponent", "judge", "criterion", "task", "item", "run", "failure_kind", "verdict", "flipped", "q"];
  const COLUMNS = ["id", "item", "arm", "opponent", "judge", "criterion", "score", "failure_kind", "position", "run"];
  const PAIRWISE = { win: 1, tie: 0.5, loss: 0 };
  const EMBEDDED = JSON.parse(document.getElementById("assay-data").textContent);
  const form = document.getElementById("filters");
  const field = (name) => form.querySelector('[name="' + name + '"]');
  const statusLine = document.getElementById("status");
  const body = document.querySelector("#rows tbody");
  const detail = document.getElementById("detail");
  let state = fromSearch(location.search);
  let lastPage = null;
  let prefetched = null; // the first page, asked for together with the filters' choices

  window.assay = { ready: false, mode: EMBEDDED === null ? "served" : "static", state: () => state };

  // Control characters (ESC, NUL...) are shown as their control pictures, not passed on.
  function visible(value) {
    if (value === null || value === undefined) return null;
    return String(value).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g,
      (c) => c === "\u007f" ? "\u2421" : String.fromCharCode(0x2400 + c.charCodeAt(0)));
  }
  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = visible(text);
    if (cls) node.className = cls;
    return node;
  }
  function fromSearch(search) {
    const params = new URLSearchParams(search);
    const filters = {};
    for (const name of FILTERS) {
      const values = params.getAll(name).filter((v) => v !== "");
      if (values.length) filters[name] = values;
    }
    const open = params.get("open");
    return { filters, offset: Number(params.get("offset") || 0), limit: Number(params.get("limit") || 50),
             open: open === null ? null : Number(open) };
  }
  function toSearch(s, withOpen) {
    const params = new URLSearchParams();
    for (const name of FILTERS) for (const v of s.filters[name] || []) params.append(name, v);
    if (s.offset) params.set("offset", String(s.offset));
    if (s.limit !== 50) params.set("limit", String(s.limit));
    if (withOpen && s.open !== null) params.set("open", String(s.open));
    return params.toString();
  }
  function remember() {
    const search = toSearch(state, true);
    history.replaceState(null, "", search ? "?" + search : location.pathname);
  }

  // -- where the data come from: the server, or the judgments inside this file
  async function api(path) {
    const reply = await fetch(path);
    const data = await reply.json();
    if (!reply.ok) throw new Error(data.error || reply.statusText);
    return data;
  }
  function matches(row, det, filters) {
    for (const name of ["arm", "opponent", "judge", "criterion", "task", "item", "run"]) {
      const want = filters[name];
      if (want && !want.includes(row[name] === null ? null : String(row[name]))) return false;
    }
    const kinds = filters.failure_kind;
    if (kinds && !kinds.some((k) => (k === "none" ? row.failure_kind === null : row.failure_kind === k))) return false;
    const verdicts = filters.verdict;
    if (verdicts && !verdicts.some((v) => verdictMatches(row, v.trim().toLowerCase()))) return false;
    const flips = filters.flipped;
    if (flips && !flips.some((f) => f.trim().toLowerCase() === row.flipped)) return false;
    const q = (filters.q || [""])[0].toLowerCase();
    if (q && !textOf(row, det).includes(q)) return false;
    return true;
  }
  function verdictMatches(row, v) {
    if (v === "failed") return row.score === null;
    if (v === "scored") return row.score !== null;
    if (v in PAIRWISE) return row.score === PAIRWISE[v] && row.opponent !== null;
    return row.score !== null && row.score === Number(v);
  }
  function textOf(row, det) {
    const parts = Object.entries(row).filter(([k]) => k !== "flipped").map(([, v]) => String(v));
    for (const section of det.sections) for (const f of section.fields) if (f[1] !== null) parts.push(String(f[1]));
    return parts.join("\n").toLowerCase();
  }
  async function loadPage() {
    if (EMBEDDED === null) return api("/api/rows?" + toSearch(state, false));
    const all = EMBEDDED.rows.filter((r) => matches(r, EMBEDDED.details[r.id], state.filters));
    return { rows: all.slice(state.offset, state.offset + state.limit), total: all.length, capped: false,
             offset: state.offset, limit: state.limit };
  }
  async function loadDetail(id) {
    if (EMBEDDED === null) return api("/api/judgment?id=" + encodeURIComponent(id));
    const det = EMBEDDED.details[id];
    if (!det) throw new Error("row " + id + " is not in this export");
    return det;
  }
  async function loadSummary() {
    if (EMBEDDED === null) return api("/api/summary");
    return EMBEDDED.summary;
  }

  // -- drawing
  function fillForm(summary) {
    const facets = summary.facets || {};
    for (const select of form.querySelectorAll("select")) {
      const name = select.name;
      select.replaceChildren(el("option", "any"));
      select.firstChild.value = "";
      const values = (facets[name] || []).map((f) => [String(f[0]), f[1]]);
      if (name === "verdict") values.push(["scored", null], ["failed", null], ["win", null], ["tie", null], ["loss", null]);
      if (name === "failure_kind") values.push(["none", null]);
      for (const [value, n] of values) {
        const option = el("option", n === null ? value : value + " (" + n.toLocaleString("en") + ")");
        option.value = value;
        select.appendChild(option);
      }
    }
    document.getElementById("text-rule").textContent = summary.text_search ? "Text: " + summary.text_search + "." : "";
    const source = document.getElementById("source");
    source.textContent = visible(summary.source + " \u00b7 " + summary.kind + " \u00b7 "
      + summary.rows.toLocaleString("en") + " rows" + (summary.exported ? " \u00b7 exported: " + summary.exported : ""));
  }
  function showFilters() {
    for (const name of FILTERS) {
      const input = field(name);
      const values = state.filters[name] || [];
      if (input.tagName === "SELECT") {
        for (const extra of input.querySelectorAll("option.linked")) extra.remove();
        if (values.length === 1 && ![...input.options].some((o) => o.value === values[0])) {
          const option = el("option", values[0], "linked");
          option.value = values[0];
          input.appendChild(option);
        }
        if (values.length > 1) {
          const option = el("option", values.length + " values from the link", "linked");
          option.value = "\u0000linked";
          input.appendChild(option);
          input.value = option.value;
        } else input.value = values.length ? values[0] : "";
      } else {
        input.dataset.hint = input.dataset.hint || input.placeholder;
        input.value = values.length === 1 ? values[0] : "";
        input.placeholder = values.length > 1 ? values.length + " values from the link" : input.dataset.hint;
      }
    }
  }
  function readFilters() {
    const filters = {};
    for (const name of FILTERS) {
      const input = field(name);
      const value = input.value;
      if (value === "\u0000linked" || (value === "" && input.tagName === "INPUT" && input.placeholder.endsWith("from the link")))
        filters[name] = state.filters[name];
      else if (value !== "") filters[name] = [value];
    }
    return filters;
  }
  function cell(value, cls) {
    const td = el("td", value === null ? "" : value, cls);
    if (value !== null) td.title = visible(value);
    return td;
  }
  function drawPage(page) {
    lastPage = page;
    const rows = page.rows.map((row) => {
      const tr = document.createElement("tr");
      tr.dataset.id = String(row.id);
      for (const name of COLUMNS) tr.appendChild(cell(row[name], name === "failure_kind" && row[name] !== null ? "failed" : ""));
      if (row.id === state.open) tr.className = "open";
      tr.addEventListener("click", () => openRow(row.id));
      return tr;
    });
    body.replaceChildren(...rows);
    const first = page.total === 0 ? 0 : page.offset + 1;
    const last = page.offset + page.rows.length;
    const total = page.total.toLocaleString("en") + (page.capped ? " or more" : "");
    statusLine.className = "";
    statusLine.textContent = page.total === 0 ? "No judgment matches these filters."
      : "Rows " + first.toLocaleString("en") + "\u2013" + last.toLocaleString("en") + " of " + total + ".";
    document.getElementById("prev").disabled = page.offset === 0;
    document.getElementById("next").disabled = last >= page.total && !page.capped || page.rows.length < page.limit;
  }
  function fieldValue(field) {
    const [label, value, kind] = field;
    if (value === null || value === undefined) return el("dd", "not recorded", "none");
    const dd = document.createElement("dd");
    const shown = typeof value === "number" ? String(value) : typeof value === "boolean" ? (value ? "yes" : "no") : value;
    dd.appendChild(el(kind === "text" ? "pre" : "span", shown));
    return dd;
  }
  function linkList(title, entries) {
    const box = el("div", null, "links");
    box.appendChild(el("h3", title));
    for (const [id, text] of entries) {
      const button = el("button", text);
      button.type = "button";
      button.addEventListener("click", () => openRow(id));
      box.appendChild(button);
    }
    return box;
  }
  function drawDetail(det) {
    const parts = [el("h2", "Row " + det.id)];
    for (const section of det.sections) {
      parts.push(el("h3", section.title));
      const dl = document.createElement("dl");
      for (const field of section.fields) { dl.appendChild(el("dt", field[0])); dl.appendChild(fieldValue(field)); }
      parts.push(dl);
    }
    if (det.partners.length) {
      parts.push(linkList("Counterbalanced partner (the same pair, shown the other way round)", det.partners.map(
        (p) => [p.id, "row " + p.id + ": position " + p.position + ", run " + p.run + ", score "
          + (p.score === null ? "none (" + p.failure_kind + ")" : p.score)])));
    } else if (det.row.opponent !== null) {
      parts.push(el("p", "Counterbalanced partner: not in this view's data.", "none"));
    }
    if (det.same_call.length) parts.push(linkList("Other rows of the same judge call", det.same_call.map((id) => [id, "row " + id])));
    const close = el("button", "Close");
    close.type = "button";
    close.addEventListener("click", () => { state.open = null; detail.hidden = true; remember(); markOpen(); });
    parts.push(close);
    detail.replaceChildren(...parts);
    detail.hidden = false;
  }
  function markOpen() {
    for (const tr of body.children) tr.className = Number(tr.dataset.id) === state.open ? "open" : "";
  }
  function fail(error) {
    statusLine.className = "error";
    statusLine.textContent = visible("Error: " + error.message);
  }
  async function openRow(id) {
    state.open = id;
    remember();
    markOpen();
    try { drawDetail(await loadDetail(id)); } catch (error) { fail(error); }
    window.assay.detailShown = id;
  }
  async function refresh() {
    remember();
    showFilters();
    const pending = prefetched || loadPage();
    prefetched = null;
    try { drawPage(await pending); } catch (error) { fail(error); }
    if (state.open !== null) await openRow(state.open); else detail.hidden = true;
    window.assay.loads = (window.assay.loads || 0) + 1;
  }
  form.addEventListener("submit", (event) => { event.preventDefault(); state = { ...state, filters: readFilters(), offset: 0, open: null }; refresh(); });
  for (const select of form.querySelectorAll("select")) select.addEventListener("change", () => form.requestSubmit());
  for (const input of form.querySelectorAll("input")) input.addEventListener("input", () => { input.placeholder = input.dataset.hint || ""; });
  document.getElementById("clear").addEventListener("click", () => { state = { filters: {}, offset: 0, limit: state.limit, open: null }; refresh(); });
  document.getElementById("prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - state.limit); refresh(); });
  document.getElementById("next").addEventListener("click", () => { state.offset += state.limit; refresh(); });

  (async () => {
    prefetched = loadPage();
    prefetched.catch(() => {}); // its error is shown when refresh() awaits it
    try { fillForm(await loadSummary()); } catch (error) { fail(error); }
    await refresh();
    window.assay.ready = true;
  })();
})();
