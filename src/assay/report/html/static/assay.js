/* assay report pages: sortable and filterable tables, CSV export of the rows shown, and
   plotly charts drawn from the page's JSON block. No network, no eval, no innerHTML. */
(function () {
  "use strict";

  var state = { ready: false, errors: [] };
  window.assay = state;
  window.addEventListener("error", function (event) {
    state.errors.push(String(event.message || event));
  });

  var ENTITIES = { lt: "<", gt: ">", quot: "\"", "#x27": "'", amp: "&" };

  /* Chart strings are HTML-escaped by the renderer; this gives the plain text back. */
  function decode(text) {
    return String(text).replace(/&(lt|gt|quot|#x27|amp);/g, function (match, name) {
      return ENTITIES[name];
    });
  }

  function bodyRows(table) {
    return Array.prototype.slice.call(table.tBodies[0].rows);
  }

  function shownRows(table) {
    return bodyRows(table).filter(function (row) { return !row.hidden; });
  }

  function rowText(row) {
    if (row.assayText === undefined) {
      row.assayText = Array.prototype.map.call(row.cells, function (cell) {
        return cell.textContent;
      }).join(" ").toLowerCase();
    }
    return row.assayText;
  }

  function updateCount(table) {
    var count = document.querySelector(".row-count[data-table=\"" + table.id + "\"]");
    if (count) {
      count.textContent = shownRows(table).length + " of " + bodyRows(table).length + " rows";
    }
  }

  /* A row is shown when its text holds every whitespace-separated term (any case). */
  function filterTable(table, text) {
    var terms = String(text).toLowerCase().split(/\s+/).filter(Boolean);
    bodyRows(table).forEach(function (row) {
      var haystack = rowText(row);
      row.hidden = !terms.every(function (term) { return haystack.indexOf(term) !== -1; });
    });
    updateCount(table);
  }

  function sortValue(cell, numeric) {
    if (!cell || cell.hasAttribute("data-missing")) { return null; }
    if (numeric && cell.hasAttribute("data-value")) {
      return parseFloat(cell.getAttribute("data-value"));
    }
    return cell.textContent;
  }

  /* Sort by one column; missing values go last in either direction. */
  function sortTable(table, index, descending) {
    var header = table.tHead.rows[0].cells[index];
    var numeric = header.classList.contains("num");
    var rows = bodyRows(table).map(function (row, position) {
      return { row: row, position: position, value: sortValue(row.cells[index], numeric) };
    });
    rows.sort(function (a, b) {
      if (a.value === null || b.value === null) {
        return (a.value === null) - (b.value === null) || a.position - b.position;
      }
      var order = numeric ? a.value - b.value
        : String(a.value).localeCompare(String(b.value), undefined, { numeric: true });
      return (descending ? -order : order) || a.position - b.position;
    });
    var body = table.tBodies[0];
    rows.forEach(function (item) { body.appendChild(item.row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
      cell.setAttribute("aria-sort", "none");
    });
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }

  function csvField(cell) {
    if (cell.hasAttribute("data-missing")) { return ""; }
    var text = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent;
    if (!cell.hasAttribute("data-value") && /^'*[=+\-@\t\r]/.test(text)) {
      text = "'" + text;  /* keep spreadsheets from reading text as a formula */
    }
    if (/[",\r\n]/.test(text) || /^\s|\s$/.test(text)) {
      text = "\"" + text.replace(/"/g, "\"\"") + "\"";
    }
    return text;
  }

  /* The rows shown, in the order shown; numbers at full precision, headers as record keys. */
  function tableCsv(id) {
    var table = document.getElementById(id);
    var header = Array.prototype.map.call(table.tHead.rows[0].cells, function (cell) {
      var key = cell.getAttribute("data-key");
      return /[",\r\n]/.test(key) ? "\"" + key.replace(/"/g, "\"\"") + "\"" : key;
    });
    var lines = [header.join(",")];
    shownRows(table).forEach(function (row) {
      lines.push(Array.prototype.map.call(row.cells, csvField).join(","));
    });
    return lines.join("\r\n") + "\r\n";
  }

  function download(filename, text) {
    var url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
    var link = document.createElement("a");
    link.href = url;
    link.download = filename.replace(/[^A-Za-z0-9._-]+/g, "-");
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
  }

  function setUpTables() {
    Array.prototype.forEach.call(document.querySelectorAll("table.data"), function (table) {
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell, index) {
        var button = cell.querySelector("button.sort");
        if (!button) { return; }
        button.addEventListener("click", function () {
          sortTable(table, index, cell.getAttribute("aria-sort") === "ascending");
        });
      });
    });
    Array.prototype.forEach.call(document.querySelectorAll("input.table-filter"), function (input) {
      var table = document.getElementById(input.getAttribute("data-table"));
      input.addEventListener("input", function () { filterTable(table, input.value); });
    });
    Array.prototype.forEach.call(document.querySelectorAll("button.more-columns"), function (button) {
      var table = document.getElementById(button.getAttribute("data-table"));
      var label = button.textContent;
      button.addEventListener("click", function () {
        var all = table.classList.toggle("all-columns");
        button.setAttribute("aria-pressed", all ? "true" : "false");
        button.textContent = all ? "fewer columns" : label;
      });
    });
    Array.prototype.forEach.call(document.querySelectorAll("button.csv-export"), function (button) {
      button.addEventListener("click", function () {
        download(button.getAttribute("data-filename"), tableCsv(button.getAttribute("data-table")));
      });
    });
  }

  function filterFromChart(tableId, event) {
    var point = event && event.points && event.points[0];
    if (!point || point.customdata === undefined) { return; }
    var key = Array.isArray(point.customdata) ? point.customdata[0] : point.customdata;
    var input = document.querySelector("input.table-filter[data-table=\"" + tableId + "\"]");
    if (!input) { return; }
    input.value = decode(key);
    filterTable(document.getElementById(tableId), input.value);
  }

  function drawCharts() {
    var data = JSON.parse(document.getElementById("assay-data").textContent);
    if (!data.figures.length) { return Promise.resolve(); }
    return Promise.all(data.figures.map(function (figure) {
      var element = document.getElementById(figure.id);
      return window.Plotly.newPlot(element, figure.data, figure.layout, data.config)
        .then(function () {
          if (figure.filter) {
            element.on("plotly_click", function (event) { filterFromChart(figure.filter, event); });
          }
        });
    }));
  }

  /* A single-file report: one tab panel shown at a time, chosen by the address's #fragment
     (a page's slug, or an anchor inside a page); charts drawn hidden are resized when shown. */
  function showTab() {
    var panels = document.querySelectorAll(".tab-panel");
    if (!panels.length) { return; }
    var name = decodeURIComponent(window.location.hash.slice(1));
    var target = name ? document.getElementById("tab-" + name) || document.getElementById(name) : null;
    var panel = target && target.closest ? target.closest(".tab-panel") : null;
    panel = panel || panels[0];
    Array.prototype.forEach.call(panels, function (each) { each.hidden = each !== panel; });
    Array.prototype.forEach.call(document.querySelectorAll("header.top nav a"), function (link) {
      var href = link.getAttribute("href");
      if (href === "#" + panel.id.slice(4)) { link.setAttribute("aria-current", "page"); }
      else { link.removeAttribute("aria-current"); }
    });
    if (window.Plotly) {
      Array.prototype.forEach.call(panel.querySelectorAll(".plot.js-plotly-plot"), function (gd) {
        window.Plotly.Plots.resize(gd);
      });
    }
    if (target && target !== panel) { target.scrollIntoView(); } else { window.scrollTo(0, 0); }
  }

  state.filterTable = function (id, text) { filterTable(document.getElementById(id), text); };
  state.sortTable = function (id, index, descending) {
    sortTable(document.getElementById(id), index, Boolean(descending));
  };
  state.tableCsv = tableCsv;
  state.decode = decode;

  setUpTables();
  showTab();
  window.addEventListener("hashchange", showTab);
  drawCharts().then(function () {
    state.ready = true;
  }, function (error) {
    state.errors.push(String(error));
    state.ready = true;
    throw error;
  });
}());
