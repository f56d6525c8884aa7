// assay view: every value from the data is written with textContent, never as HTML.
"use strict";
(function () {
  const FILTERS = ["arm", "opponent", "judge", "criterion", "task", "item", "run", "split", "failure_kind", "reportable", "verdict", "flipped", "q"];
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
  let cursor = 0; // the row of the page the keys move (j/k), outlined
  let pendingCursor = null; // "last" when the keys moved back a page
  const compareBox = document.getElementById("compare");

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
    const run = params.get("compare_run");
    return { filters, offset: Number(params.get("offset") || 0), limit: Number(params.get("limit") || 50),
             open: open === null ? null : Number(open), sort: params.get("sort") || null,
             compare: params.get("compare"), compareRun: run === null ? null : Number(run) };
  }
  function toSearch(s, withOpen) {
    const params = new URLSearchParams();
    for (const name of FILTERS) for (const v of s.filters[name] || []) params.append(name, v);
    if (s.offset) params.set("offset", String(s.offset));
    if (s.limit !== 50) params.set("limit", String(s.limit));
    if (s.sort) params.set("sort", s.sort);
    if (withOpen && s.open !== null) params.set("open", String(s.open));
    if (withOpen && s.compare !== null) params.set("compare", s.compare);
    if (withOpen && s.compare !== null && s.compareRun !== null) params.set("compare_run", String(s.compareRun));
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
    for (const name of ["arm", "opponent", "judge", "criterion", "task", "item", "run", "split"]) {
      const want = filters[name];
      if (want && !want.includes(row[name] === null ? null : String(row[name]))) return false;
    }
    const kinds = filters.failure_kind;
    if (kinds && !kinds.some((k) => (k === "none" ? row.failure_kind === null : row.failure_kind === k))) return false;
    const verdicts = filters.verdict;
    if (verdicts && !verdicts.some((v) => verdictMatches(row, v.trim().toLowerCase()))) return false;
    const flips = filters.flipped;
    if (flips && !flips.some((f) => f.trim().toLowerCase() === row.flipped)) return false;
    const reportable = filters.reportable;
    if (reportable && !reportable.some((f) => f.trim().toLowerCase() === row.reportable)) return false;
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
    const parts = Object.entries(row).filter(([k]) => k !== "flipped" && k !== "reportable").map(([, v]) => String(v));
    for (const section of det.sections) for (const f of section.fields) if (f[1] !== null) parts.push(String(f[1]));
    return parts.join("\n").toLowerCase();
  }
  // the served index's order: no value last, ties in storing order
  function sortRows(rows, sort) {
    if (!sort) return rows;
    const name = sort.replace(/^-/, "");
    const down = sort.startsWith("-") ? -1 : 1;
    const key = (r) => (r[name] === null || r[name] === undefined ? null : r[name]);
    return rows.slice().sort((a, b) => {
      const x = key(a), y = key(b);
      if (x === null || y === null) return (x === null) - (y === null) || a.id - b.id;
      const order = typeof x === "number" && typeof y === "number" ? x - y : (String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0);
      return down * order || a.id - b.id;
    });
  }
  async function loadPage() {
    if (EMBEDDED === null) return api("/api/rows?" + toSearch(state, false));
    const all = sortRows(EMBEDDED.rows.filter((r) => matches(r, EMBEDDED.details[r.id], state.filters)), state.sort);
    return { rows: all.slice(state.offset, state.offset + state.limit), total: all.length, capped: false,
             offset: state.offset, limit: state.limit };
  }
  // the compare view of an exported file, as the server's /api/compare makes it
  function compareLocal(item, run) {
    const rows = EMBEDDED.rows.filter((r) => String(r.item) === item);
    if (!rows.length) throw new Error("no judgment of item " + item + " in this export");
    const runOf = (r) => (r.run === null ? 1 : Number(r.run));
    const runs = [...new Set(rows.map(runOf))].sort((a, b) => a - b);
    const chosen = runs.includes(run) ? run : runs[0];
    const judged = rows.map((r) => EMBEDDED.details[r.id].judged);
    const pick = (key) => { const j = judged.find((x) => x && x[key] !== null && x[key] !== undefined); return j ? j[key] : null; };
    const answers = {}, seen = {}, scores = {};
    rows.forEach((r, k) => {
      if (runOf(r) !== chosen) return;
      for (const a of (judged[k] && judged[k].answers) || []) {
        if (a.text === null || a.arm === null) continue;
        const target = a.scored ? answers : seen;
        if (!(a.arm in target)) target[a.arm] = a.text;
      }
      (scores[r.arm] = scores[r.arm] || []).push({ id: r.id, judge: r.judge, criterion: r.criterion, opponent: r.opponent,
        position: r.position, score: r.score, failure_kind: r.failure_kind, verdict: verdictWords(r) });
    });
    const arms = [...new Set([...Object.keys(scores), ...Object.keys(answers), ...Object.keys(seen)])].sort();
    return { item, question: pick("question"), reference: pick("reference"), runs, run: chosen,
             systems: arms.map((arm) => ({ arm, answer: arm in answers ? answers[arm] : (arm in seen ? seen[arm] : null),
               scores: scores[arm] || [] })) };
  }
  function verdictWords(r) {
    if (r.score === null) return "no score: " + (r.failure_kind || "not recorded");
    const words = { 1: "win", 0.5: "tie", 0: "loss" };
    if (r.opponent !== null && r.score in words) return words[r.score] + " (score " + r.score + ")";
    return "score " + r.score;
  }
  async function loadCompare(item, run) {
    if (EMBEDDED === null) return api("/api/compare?item=" + encodeURIComponent(item) + (run === null ? "" : "&run=" + run));
    return compareLocal(item, run);
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
    const reports = document.getElementById("reports-link");
    if (summary.reports) { reports.href = summary.reports; reports.hidden = false; }
    drawSystems(summary.systems);
    const source = document.getElementById("source");
    source.textContent = visible(summary.source + " \u00b7 " + summary.kind + " \u00b7 "
      + summary.rows.toLocaleString("en") + " rows" + (summary.exported ? " \u00b7 exported: " + summary.exported : ""));
  }
  function number(value) {
    if (value === null) return "\u2013";
    if (Math.abs(value) >= 100) return value.toFixed(1);
    const text = value.toPrecision(3);
    return text.includes(".") && !text.includes("e") ? text.replace(/\.?0+$/, "") : text;
  }
  function drawSystems(systems) {
    const box = document.getElementById("systems");
    if (!systems || !systems.systems.length) { box.replaceChildren(); return; }
    const table = document.createElement("table");
    const caption = el("caption", "As the reports count: reportable rows only"
      + (systems.left_out ? " (" + systems.left_out.toLocaleString("en") + " rows of the dev or calibration split left out)" : "")
      + "; mean score per criterion over its judges and runs (each item's runs averaged first, as the scores page does), on [0, 1] by the criterion's scale (an ordinal level k of L: "
      + "k/(L-1); an interval scale: raw; a pairwise criterion: the share of comparisons won, ties half); rows without "
      + "a score are counted, not scored."
      + (systems.more ? " " + systems.more + " more systems not shown." : ""));
    const head = document.createElement("tr");
    for (const text of ["System", "Judgments", "No score"]) head.appendChild(el("th", text));
    for (const c of systems.criteria) {
      const th = el("th", c.name + (c.pairwise ? " (wins)" : ""));
      th.title = c.scale === "raw" ? "raw scale (interval)" : "on [0, 1]";
      head.appendChild(th);
    }
    const body = document.createElement("tbody");
    for (const s of systems.systems) {
      const tr = document.createElement("tr");
      const name = el("td", s.arm);
      name.title = visible(s.arm);
      tr.appendChild(name);
      tr.appendChild(el("td", s.rows.toLocaleString("en"), "num"));
      tr.appendChild(el("td", s.failed.toLocaleString("en"), "num"));
      for (const [mean, n] of s.scores) {
        const td = el("td", number(mean), "num");
        td.title = n.toLocaleString("en") + " scores";
        tr.appendChild(td);
      }
      body.appendChild(tr);
    }
    const thead = document.createElement("thead");
    thead.appendChild(head);
    table.append(caption, thead, body);
    box.replaceChildren(table);
  }
  function showSort() {
    for (const th of document.querySelectorAll("#rows th[data-sort]")) {
      for (const old of th.querySelectorAll(".arrow")) old.remove();
      const name = th.dataset.sort;
      const mark = state.sort === name ? " \u25b2" : state.sort === "-" + name ? " \u25bc" : "";
      th.setAttribute("aria-sort", mark ? (state.sort.startsWith("-") ? "descending" : "ascending") : "none");
      if (mark) th.appendChild(el("span", mark, "arrow"));
    }
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
      tr.addEventListener("click", () => { cursor = page.rows.indexOf(row); openRow(row.id); });
      return tr;
    });
    body.replaceChildren(...rows);
    const opened = page.rows.findIndex((r) => r.id === state.open);
    cursor = opened >= 0 ? opened : pendingCursor === "last" ? page.rows.length - 1 : 0;
    pendingCursor = null;
    markCursor(false);
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
  function answerBox(answer, k, count, ordered) {
    const box = el("div", null, "answer" + (answer.scored && count > 1 ? " scored" : ""));
    const title = el("h4", (count > 1 ? "Answer " + (k + 1) + (ordered ? (k === 0 ? " (shown first)" : " (shown second)") : "") + ": " : "Answer: ")
      + (answer.arm === null ? "" : answer.arm));
    if (answer.scored && count > 1) title.appendChild(el("span", "the row's system", "tag"));
    box.appendChild(title);
    box.appendChild(answer.text === null ? el("p", "not recorded", "none") : el("pre", answer.text));
    return box;
  }
  function drawJudged(judged) {
    const box = el("div", null, "judged");
    box.id = "judged";
    if (!judged) return box;
    const known = judged.question !== null || judged.answers.some((a) => a.text !== null);
    if (known || judged.prompt === null) {
      box.appendChild(el("h3", "Question"));
      box.appendChild(judged.question === null ? el("p", "not recorded", "none") : el("pre", judged.question, "question"));
      box.appendChild(el("h3", judged.answers.length > 1 ? "Answers, in the order the judge saw them" : "Answer"));
      const answers = el("div", null, "answers");
      judged.answers.forEach((a, k) => answers.appendChild(answerBox(a, k, judged.answers.length, judged.ordered)));
      box.appendChild(answers);
      if (judged.reference !== null) { box.appendChild(el("h3", "Reference")); box.appendChild(el("pre", judged.reference, "reference")); }
      if (!known) box.appendChild(el("p", "The question and the answers are not recorded here: a table shows them from its "
        + "question, answer, opponent_answer and reference columns; a run of assay judge keeps them since this version.", "none"));
    } else {
      box.appendChild(el("h3", "What the judge read (its rendered prompt; this judgment did not keep the question and answers apart)"));
      box.appendChild(el("pre", judged.prompt, "prompt"));
    }
    return box;
  }
  function drawDetail(det) {
    const title = el("h2", "Row " + det.id + " \u00b7 " + visible(det.row.item) + " \u00b7 " + visible(det.row.arm)
      + (det.row.opponent === null ? "" : " vs " + visible(det.row.opponent)));
    const actions = el("div", null, "detail-actions");
    const compare = el("button", "Compare every system on this question (c)");
    compare.type = "button";
    compare.id = "compare-button";
    compare.addEventListener("click", () => openCompare(String(det.row.item), det.row.run === null ? null : Number(det.row.run)));
    const closeTop = el("button", "Close (Esc)");
    closeTop.type = "button";
    closeTop.addEventListener("click", closeDetail);
    actions.append(compare, closeTop);
    const parts = [title, actions, drawJudged(det.judged)];
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
    close.addEventListener("click", closeDetail);
    parts.push(close);
    detail.replaceChildren(...parts);
    detail.hidden = false;
  }
  function closeDetail() { state.open = null; detail.hidden = true; remember(); markOpen(); window.assay.detailShown = null; }
  function markOpen() {
    for (const tr of body.children) tr.classList.toggle("open", Number(tr.dataset.id) === state.open);
  }
  function markCursor(scroll) {
    [...body.children].forEach((tr, k) => tr.classList.toggle("cursor", k === cursor));
    const row = body.children[cursor];
    window.assay.cursor = row ? Number(row.dataset.id) : null;
    if (scroll && row) row.scrollIntoView({ block: "nearest" });
  }

  // -- the compare view: one question, every system's answer and scores
  function drawCompare(view) {
    const parts = [el("h2", "Every system's answer to " + visible(view.item))];
    const actions = el("div", null, "compare-actions");
    const back = el("button", "Back to the judgments (Esc)");
    back.type = "button";
    back.addEventListener("click", closeCompare);
    actions.appendChild(back);
    if (view.runs.length > 1) {
      actions.appendChild(el("span", " Run: "));
      for (const run of view.runs) {
        const b = el("button", String(run), run === view.run ? "current" : "");
        b.type = "button";
        b.addEventListener("click", () => openCompare(view.item, run));
        actions.appendChild(b);
      }
    }
    parts.push(actions);
    parts.push(el("h3", "Question"));
    parts.push(view.question === null ? el("p", "not recorded", "none") : el("pre", view.question, "question"));
    if (view.reference !== null) { parts.push(el("h3", "Reference")); parts.push(el("pre", view.reference, "reference")); }
    parts.push(el("h3", "Answers and verdicts" + (view.runs.length > 1 ? " in run " + view.run : "")));
    const grid = el("div", null, "systems-grid");
    for (const system of view.systems) {
      const box = el("div", null, "system");
      box.appendChild(el("h3", system.arm));
      box.appendChild(system.answer === null ? el("p", "answer not recorded", "none") : el("pre", system.answer));
      const table = document.createElement("table");
      const head = document.createElement("tr");
      for (const text of ["Judge", "Criterion", "Verdict"]) head.appendChild(el("th", text));
      const thead = document.createElement("thead");
      thead.appendChild(head);
      const tbody = document.createElement("tbody");
      for (const s of system.scores) {
        const tr = document.createElement("tr");
        tr.dataset.id = String(s.id);
        tr.appendChild(el("td", s.judge));
        tr.appendChild(el("td", s.criterion));
        tr.appendChild(el("td", s.verdict + (s.opponent === null ? "" : " vs " + visible(s.opponent)
          + (s.position === null ? "" : ", shown " + (Number(s.position) === 1 ? "first" : "second"))), s.score === null ? "failed" : ""));
        tr.title = "Open this judgment (row " + s.id + ")";
        tr.addEventListener("click", () => { closeCompare(); openRow(s.id); });
        tbody.appendChild(tr);
      }
      table.append(thead, tbody);
      box.appendChild(table);
      grid.appendChild(box);
    }
    parts.push(grid);
    compareBox.replaceChildren(...parts);
  }
  async function openCompare(item, run) {
    state.compare = item;
    state.compareRun = run;
    remember();
    document.querySelector("main").hidden = true;
    compareBox.hidden = false;
    try { drawCompare(await loadCompare(item, run)); } catch (error) { fail(error); }
    window.assay.compareShown = item;
    window.scrollTo(0, 0);
  }
  function closeCompare() {
    state.compare = null;
    state.compareRun = null;
    remember();
    compareBox.hidden = true;
    document.querySelector("main").hidden = false;
    window.assay.compareShown = null;
  }
  function fail(error) {
    statusLine.className = "error";
    statusLine.textContent = visible("Error: " + error.message);
  }
  async function openRow(id) {
    state.open = id;
    remember();
    markOpen();
    const k = [...body.children].findIndex((tr) => Number(tr.dataset.id) === id);
    if (k >= 0 && k !== cursor) { cursor = k; markCursor(false); }
    try { drawDetail(await loadDetail(id)); } catch (error) { fail(error); }
    window.assay.detailShown = id;
  }
  async function refresh() {
    remember();
    showFilters();
    showSort();
    const pending = prefetched || loadPage();
    prefetched = null;
    try { drawPage(await pending); } catch (error) { fail(error); }
    if (state.open !== null) await openRow(state.open); else detail.hidden = true;
    if (state.compare !== null) await openCompare(state.compare, state.compareRun);
    window.assay.loads = (window.assay.loads || 0) + 1;
  }

  // -- the keyboard (docs/viewer.md): j/k or arrows move, Enter opens, c compares, Esc goes back, / filters
  function move(step) {
    if (!lastPage) return;
    const next = cursor + step;
    if (next >= 0 && next < body.children.length) {
      cursor = next;
      markCursor(true);
      if (state.open !== null) openRow(Number(body.children[cursor].dataset.id));
      return;
    }
    const nextPage = document.getElementById(step > 0 ? "next" : "prev");
    if (nextPage.disabled) return;
    pendingCursor = step > 0 ? "first" : "last";
    state.offset = Math.max(0, state.offset + step * state.limit);
    state.open = null;
    refresh();
  }
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const typing = target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA");
    if (event.key === "Escape") {
      if (typing) target.blur();
      else if (!compareBox.hidden) closeCompare();
      else if (!detail.hidden) closeDetail();
      else return;
      event.preventDefault();
      return;
    }
    if (typing) return;
    const row = body.children[cursor];
    if (event.key === "/") { event.preventDefault(); field("q").focus(); field("q").select(); }
    else if (event.key === "?") { event.preventDefault(); toggleKeys(); }
    else if (!compareBox.hidden) return;
    else if (event.key === "j" || event.key === "ArrowDown") { event.preventDefault(); move(1); }
    else if (event.key === "k" || event.key === "ArrowUp") { event.preventDefault(); move(-1); }
    else if (event.key === "Enter" && row && !(target && target.tagName === "BUTTON")) { event.preventDefault(); openRow(Number(row.dataset.id)); }
    else if (event.key === "c" && row) {
      const shown = lastPage.rows[cursor];
      event.preventDefault();
      openCompare(String(shown.item), shown.run === null ? null : Number(shown.run));
    }
  });
  function toggleKeys() {
    const keys = document.getElementById("keys");
    keys.hidden = !keys.hidden;
    document.getElementById("keys-button").setAttribute("aria-expanded", String(!keys.hidden));
  }
  document.getElementById("keys-button").addEventListener("click", toggleKeys);
  for (const th of document.querySelectorAll("#rows th[data-sort]")) {
    th.addEventListener("click", () => {
      const name = th.dataset.sort;
      const sort = state.sort === name ? "-" + name : state.sort === "-" + name ? null : name;
      state = { ...state, sort, offset: 0 };
      refresh();
    });
  }
  form.addEventListener("submit", (event) => { event.preventDefault(); state = { ...state, filters: readFilters(), offset: 0, open: null }; refresh(); });
  for (const select of form.querySelectorAll("select")) select.addEventListener("change", () => form.requestSubmit());
  for (const input of form.querySelectorAll("input")) input.addEventListener("input", () => { input.placeholder = input.dataset.hint || ""; });
  document.getElementById("clear").addEventListener("click", () => { state = { ...state, filters: {}, offset: 0, open: null }; refresh(); });
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
