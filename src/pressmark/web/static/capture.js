/* pressmark workbench: builds a capture in the snapshot frame from data, never from HTML.
 * The frame loads an inert shell (CSP, sandbox without scripts); this script, running in
 * the parent page, fetches the captured DOM as a list of nodes (pressmark/web/_inert.py
 * has already moved every URL, handler and refresh out of the way) and creates each node
 * with createElementNS / setAttribute / createTextNode. Nothing is parsed as HTML, so no
 * mutation of the markup can bring an element to life. */
(function () {
  "use strict";

  var NS = {
    h: "http://www.w3.org/1999/xhtml",
    s: "http://www.w3.org/2000/svg",
    m: "http://www.w3.org/1998/Math/MathML"
  };
  var XLINK = "http://www.w3.org/1999/xlink";
  var XML = "http://www.w3.org/XML/1998/namespace";
  var frame = document.getElementById("snapshot");
  if (!frame) { return; }

  function frameDocument() {
    try { return frame.contentDocument; } catch (e) { return null; }
  }

  function element(doc, space, tag) {
    try { return doc.createElementNS(NS[space] || NS.h, tag); } catch (e) {
      var stand_in = doc.createElementNS(NS.h, "span");  // a tag name no DOM accepts
      stand_in.setAttribute("data-pressmark-tag", String(tag).slice(0, 100));
      return stand_in;
    }
  }

  function attribute(el, name, value) {
    var lower = name.toLowerCase();
    // The server moved these already; this is the second lock on the same door.
    if (lower.indexOf("on") === 0 || lower === "srcdoc" || lower === "http-equiv") { return; }
    if (lower === "xmlns" || lower.indexOf("xmlns:") === 0) { return; }
    try {
      if (lower.indexOf("xlink:") === 0) { el.setAttributeNS(XLINK, name, value); }
      else if (lower.indexOf("xml:") === 0) { el.setAttributeNS(XML, name, value); }
      else { el.setAttribute(name, value); }
    } catch (e) { /* a name no DOM accepts: left out */ }
  }

  function build(doc, data) {
    var made = [];
    var root = null;
    data.nodes.forEach(function (node, index) {
      var parent = node[0] >= 0 ? made[node[0]] : null;
      if (node.length === 2) {
        if (parent) { parent.appendChild(doc.createTextNode(node[1])); }
        return;
      }
      var el = element(doc, node[1], node[2]);
      node[3].forEach(function (pair) { attribute(el, pair[0], pair[1]); });
      made[index] = el;
      if (parent) { parent.appendChild(el); } else if (!root) { root = el; }
    });
    if (!root) { return false; }
    var style = doc.querySelector("head style");  // the shell's (SHELL_STYLE)
    doc.replaceChild(root, doc.documentElement);
    var head = doc.head || root.insertBefore(doc.createElementNS(NS.h, "head"), root.firstChild);
    if (style) { head.appendChild(style); }
    return true;
  }

  function load() {
    var doc = frameDocument();
    var shell = doc && doc.body;
    var url = shell && shell.getAttribute("data-pressmark-tree");
    if (!url || frame.getAttribute("data-built")) { return; }
    frame.setAttribute("data-built", "loading");
    fetch(url, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(new Error("HTTP " + r.status)); })
      .then(function (data) {
        if (frameDocument() !== doc) { return; }  // the frame moved on meanwhile
        frame.setAttribute("data-built", build(doc, data) ? "1" : "empty");
      })
      .catch(function (err) {
        shell.textContent = "could not show this capture (" + err.message + ")";
        frame.setAttribute("data-built", "error");
      })
      .then(function () { frame.setAttribute("data-ready", "1"); });
  }

  frame.addEventListener("load", load);
  if (frameDocument() && frameDocument().readyState === "complete") { load(); }
})();
