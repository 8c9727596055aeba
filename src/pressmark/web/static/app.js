/* pressmark workbench: the only script the app runs. Snapshot documents run none.
 * Highlighting reaches into the sandboxed snapshot iframe (allow-same-origin,
 * no allow-scripts): this script, running in the parent page, outlines the
 * element a provenance entry names. See pressmark/web/_security.py. */
(function () {
  "use strict";

  function $(sel, root) { return (root || document).querySelector(sel); }
  function $all(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }

  /* ---- copy a citation ---- */
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand("copy");
      document.body.removeChild(area);
      if (ok) { resolve(); } else { reject(new Error("copy failed")); }
    });
  }

  $all("[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var field = $(button.getAttribute("data-copy"));
      if (!field) { return; }
      var label = button.textContent;
      copyText(field.value).then(function () {
        button.textContent = "Copied";
        button.classList.add("done");
      }, function () {
        field.select();
        button.textContent = "Press Ctrl+C";
      });
      window.setTimeout(function () { button.textContent = label; button.classList.remove("done"); }, 2500);
    });
  });

  /* ---- verify a citation ---- */
  $all("[data-verify]").forEach(function (button) {
    button.addEventListener("click", function () {
      var field = $(button.getAttribute("data-verify"));
      var out = $("#verify-result");
      if (!field || !out) { return; }
      out.className = "pending";
      out.textContent = "verifying…";
      fetch("/api/verify?ref=" + encodeURIComponent(field.value), { credentials: "same-origin" })
        .then(function (r) { return r.json(); })
        .then(function (data) {
          out.className = data.status === "verified" ? "ok" : "bad";
          out.textContent = data.status === "verified" ? "verified" : data.code + ": " + data.message;
          out.setAttribute("data-status", data.status === "verified" ? "verified" : data.code);
        })
        .catch(function (err) {
          out.className = "bad";
          out.textContent = "verify failed: " + err;
        });
    });
  });

  /* ---- snapshot iframe: inert links, provenance highlight ---- */
  var frame = $("#snapshot");
  var marked = null;
  var markedStyle = null;

  function frameDocument() {
    try { return frame && frame.contentDocument; } catch (e) { return null; }
  }

  function guardFrame() {
    var doc = frameDocument();
    if (!doc) { return; }
    // Reading a capture must never navigate to the live site.
    doc.addEventListener("click", function (event) {
      var target = event.target;
      if (target && target.closest && target.closest("a[href], area[href]")) { event.preventDefault(); }
    }, true);
    doc.addEventListener("submit", function (event) { event.preventDefault(); }, true);
    // An HTML capture is built into its shell by capture.js, which says when it is ready.
    if (!(doc.body && doc.body.hasAttribute("data-pressmark-tree"))) {
      frame.setAttribute("data-ready", "1");
    }
  }

  if (frame) {
    frame.addEventListener("load", guardFrame);
    if (frameDocument() && frameDocument().readyState === "complete") { guardFrame(); }
  }

  function clearMark() {
    if (marked) {
      marked.setAttribute("style", markedStyle || "");
      if (markedStyle === null) { marked.removeAttribute("style"); }
      marked.removeAttribute("data-pressmark-highlight");
    }
    marked = null;
    markedStyle = null;
  }

  function highlight(index) {
    $all(".prov.active, .prov-row.active").forEach(function (el) { el.classList.remove("active"); });
    var row = $('.prov-row[data-prov="' + index + '"]');
    var span = $('#markdown .prov[data-prov="' + index + '"]');
    if (row) { row.classList.add("active"); }
    if (span) {
      span.classList.add("active");
      span.scrollIntoView({ block: "nearest" });
    }
    markRendered(row ? row.getAttribute("data-md-line") : null);
    clearMark();
    var selector = row ? row.getAttribute("data-selector") : "";
    var doc = frameDocument();
    var status = $("#highlight-status");
    if (!selector || !doc) { return; }
    var el = null;
    try { el = doc.querySelector(selector); } catch (e) { el = null; }
    if (!el) {
      if (row) { row.classList.add("missing"); }
      return;
    }
    marked = el;
    markedStyle = el.getAttribute("style");
    el.style.outline = "3px solid #d97706";
    el.style.outlineOffset = "2px";
    el.style.backgroundColor = "rgba(250, 204, 21, 0.35)";
    el.setAttribute("data-pressmark-highlight", String(index));
    el.scrollIntoView({ block: "center" });
    if (status) { status.textContent = selector; }
  }

  /* The rendered view has no character offsets: highlight the innermost block
   * whose source lines contain the span's first line. */
  function markRendered(line) {
    renderedLine = line;
    $all("#markdown-rendered .active").forEach(function (el) { el.classList.remove("active"); });
    if (line === null || line === undefined) { return; }
    var n = parseInt(line, 10);
    var best = null;
    $all("#markdown-rendered [data-md-lines]").forEach(function (el) {
      var range = el.getAttribute("data-md-lines").split(" ");
      if (parseInt(range[0], 10) <= n && n < parseInt(range[1], 10)) { best = el; }
    });
    if (best) {
      best.classList.add("active");
      if (!best.closest("[hidden]")) { best.scrollIntoView({ block: "nearest" }); }
    }
  }

  var renderedLine = null;

  function loadRendered() {
    var pane = $("#markdown-rendered");
    if (!pane || pane.getAttribute("data-loaded")) { return; }
    pane.setAttribute("data-loaded", "loading");
    fetch(pane.getAttribute("data-src"), { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(new Error(r.status)); })
      .then(function (html) {
        // Our own server's rendering: raw HTML in the Markdown is escaped, images are text.
        pane.innerHTML = html;
        pane.setAttribute("data-loaded", "1");
        markRendered(renderedLine);
      })
      .catch(function (err) {
        pane.textContent = "could not load the rendered view (" + err.message + ")";
        pane.setAttribute("data-loaded", "error");
      });
  }

  $all("[data-md-view]").forEach(function (tab) {
    tab.addEventListener("click", function () {
      if (tab.getAttribute("data-md-view") === "markdown-rendered") { loadRendered(); }
      $all("[data-md-view]").forEach(function (other) {
        var on = other === tab;
        other.classList.toggle("active", on);
        other.setAttribute("aria-selected", on ? "true" : "false");
        var pane = document.getElementById(other.getAttribute("data-md-view"));
        if (pane) { pane.hidden = !on; }
      });
      var active = $("#markdown-rendered .active");
      if (active && !active.closest("[hidden]")) { active.scrollIntoView({ block: "nearest" }); }
    });
  });

  $all(".prov-row, #markdown .prov").forEach(function (el) {
    function go() { highlight(el.getAttribute("data-prov")); }
    el.addEventListener("click", go);
    el.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); go(); }
    });
  });
})();
