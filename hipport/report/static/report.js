/* hipport porting report: sorting, filtering, toggles and keys. No libraries, no network.
   Index state lives in the URL fragment, e.g. index.html#filter=kernels&hide=1&sort=found&dir=desc */
(function () {
  "use strict";

  function cellValue(td, type) {
    if (!td) return type === "num" ? -Infinity : "";
    var v = td.getAttribute("data-v");
    var text = v !== null ? v : td.textContent;
    if (type === "num") {
      var n = parseFloat(text.replace(/[,%\s]/g, ""));
      return isNaN(n) ? -1 : n;
    }
    return text.trim().toLowerCase();
  }

  function sortTable(table, col, dir) {
    var ths = table.tHead.rows[0].cells;
    var type = ths[col].getAttribute("data-type") || "text";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var keyed = rows.map(function (r, i) { return [cellValue(r.cells[col], type), i, r]; });
    var sign = dir === "descending" ? -1 : 1;
    keyed.sort(function (a, b) {
      if (a[0] < b[0]) return -sign;
      if (a[0] > b[0]) return sign;
      return a[1] - b[1];
    });
    var frag = document.createDocumentFragment();
    keyed.forEach(function (k) { frag.appendChild(k[2]); });
    body.appendChild(frag);
    for (var i = 0; i < ths.length; i++) ths[i].removeAttribute("aria-sort");
    ths[col].setAttribute("aria-sort", dir);
  }

  function colByKey(table, key) {
    var ths = table.tHead.rows[0].cells;
    for (var i = 0; i < ths.length; i++) if (ths[i].getAttribute("data-key") === key) return i;
    return -1;
  }

  function parseHash() {
    var out = {};
    var h = window.location.hash.replace(/^#/, "");
    if (!h || h.indexOf("=") < 0) return out;
    h.split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) {
        try { out[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1).replace(/\+/g, " ")); }
        catch (e) { /* a malformed fragment is ignored */ }
      }
    });
    return out;
  }

  function setupTable(table, onSorted) {
    if (!table || !table.tHead) return;
    var ths = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(ths, function (th, col) {
      th.addEventListener("click", function () {
        var cur = th.getAttribute("aria-sort");
        var dir = cur === "ascending" ? "descending" :
          cur === "descending" ? "ascending" : (th.getAttribute("data-type") === "num" ? "descending" : "ascending");
        sortTable(table, col, dir);
        if (onSorted) onSorted(th.getAttribute("data-key") || String(col), dir);
      });
    });
  }

  function setupFilter(table, opts) {
    var input = document.getElementById("filter");
    var hide = document.getElementById("hide-clean");
    var shown = document.getElementById("shown");
    var state = { sort: null, dir: null };
    var noun = opts.noun;

    function apply(write) {
      var q = input ? input.value.trim().toLowerCase() : "";
      var hideClean = hide ? hide.checked : false;
      var rows = table.tBodies[0].rows;
      var n = 0;
      for (var i = 0; i < rows.length; i++) {
        var r = rows[i];
        var text = (r.cells[0].textContent + " " + (r.cells[1] ? r.cells[1].textContent : "")).toLowerCase();
        var visible = (!q || text.indexOf(q) >= 0) && !(hideClean && r.getAttribute("data-clean") === "1");
        r.classList.toggle("hidden", !visible);
        if (visible) n++;
      }
      if (shown) shown.textContent = n + " of " + rows.length + " " + noun;
      document.body.setAttribute("data-shown", String(n));
      if (write) {
        var parts = [];
        if (q) parts.push("filter=" + encodeURIComponent(q));
        if (hideClean) parts.push("hide=1");
        if (state.sort) parts.push("sort=" + encodeURIComponent(state.sort) + "&dir=" + (state.dir === "descending" ? "desc" : "asc"));
        var h = parts.length ? "#" + parts.join("&") : window.location.pathname + window.location.search;
        if (window.history && window.history.replaceState) window.history.replaceState(null, "", h);
      }
    }

    function fromHash() {
      var s = parseHash();
      if (input) input.value = s.filter || "";
      if (hide) hide.checked = s.hide === "1";
      if (s.sort) {
        var col = colByKey(table, s.sort);
        if (col < 0 && /^\d+$/.test(s.sort)) col = parseInt(s.sort, 10);
        if (col >= 0 && col < table.tHead.rows[0].cells.length) {
          state.sort = s.sort;
          state.dir = s.dir === "desc" ? "descending" : "ascending";
          sortTable(table, col, state.dir);
        }
      }
      apply(false);
    }

    setupTable(table, function (key, dir) { state.sort = key; state.dir = dir; apply(true); });
    if (input) input.addEventListener("input", function () { apply(true); });
    if (hide) hide.addEventListener("change", function () { apply(true); });
    window.addEventListener("hashchange", fromHash);
    fromHash();
    document.body.setAttribute("data-js", "ready");
  }

  function setupFile() {
    var body = document.body;
    [["show-orig", "show-orig"], ["only-marked", "only-marked"], ["side-by-side", "sbs"]].forEach(function (p) {
      var box = document.getElementById(p[0]);
      if (!box) return;
      box.addEventListener("change", function () { body.classList.toggle(p[1], box.checked); });
      body.classList.toggle(p[1], box.checked);
    });
    setupFindingFilter();
    var marked = Array.prototype.slice.call(document.querySelectorAll(".ln.chg, .ln.warn, .ln.unsup"));
    var at = -1;
    document.addEventListener("keydown", function (ev) {
      if (ev.target && /^(INPUT|TEXTAREA|SELECT)$/.test(ev.target.tagName)) return;
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      var link;
      if (ev.key === "u") { window.location.href = "index.html"; }
      else if (ev.key === "[" && (link = document.querySelector("a[rel=prev]"))) { window.location.href = link.href; }
      else if (ev.key === "]" && (link = document.querySelector("a[rel=next]"))) { window.location.href = link.href; }
      else if ((ev.key === "j" || ev.key === "k") && marked.length) {
        at = ev.key === "j" ? Math.min(marked.length - 1, at + 1) : Math.max(0, at - 1);
        window.location.hash = marked[at].id;
      }
    });
    body.setAttribute("data-js", "ready");
  }

  // Findings on a file page, filtered by severity (at least) and rule id prefix; the state
  // lives in the fragment (#sev=warning&rule=W0) so a link can share a view.
  var RANK = { info: 0, warning: 1, error: 2 };
  function setupFindingFilter() {
    var sev = document.getElementById("sev-filter"), rule = document.getElementById("rule-filter");
    var shown = document.getElementById("findings-shown");
    if (!sev || !rule) return;
    var items = Array.prototype.slice.call(document.querySelectorAll("[data-rule][data-sev]"));
    function apply(write) {
      var min = sev.value ? RANK[sev.value] : 0, want = rule.value.trim().toUpperCase(), n = 0, all = 0;
      items.forEach(function (el) {
        var ok = (RANK[el.getAttribute("data-sev")] || 0) >= min &&
                 (!want || el.getAttribute("data-rule").toUpperCase().indexOf(want) === 0);
        el.hidden = !ok;
        if (el.classList.contains("finding")) { all += 1; if (ok) n += 1; }
      });
      if (shown) shown.textContent = n + " of " + all + " findings";
      if (write) {
        var parts = [];
        if (sev.value) parts.push("sev=" + encodeURIComponent(sev.value));
        if (rule.value.trim()) parts.push("rule=" + encodeURIComponent(rule.value.trim()));
        history.replaceState(null, "", parts.length ? "#" + parts.join("&") : window.location.pathname);
      }
    }
    var h = parseHash();
    if (h.sev && RANK.hasOwnProperty(h.sev)) sev.value = h.sev;
    if (h.rule) rule.value = h.rule;
    sev.addEventListener("change", function () { apply(true); });
    rule.addEventListener("input", function () { apply(true); });
    apply(false);
  }

  function main() {
    var kind = document.body.getAttribute("data-page");
    if (kind === "index") setupFilter(document.getElementById("file-table"), { noun: "files" });
    else if (kind === "effort") setupFilter(document.getElementById("effort-table"), { noun: "items" });
    else if (kind === "file") setupFile();
    else {
      Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (t) { setupTable(t); });
      document.body.setAttribute("data-js", "ready");
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", main);
  else main();
})();
