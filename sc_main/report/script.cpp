// report.html's one script, inline in the page (it loads nothing): zoom and pan on the charts
// over time, the sections' "collapse all" and "expand all", and the SM drill-down. The page
// reads the same without it; docs/report.md says how to use it.
//
// A chart over time draws its plot inside a nested <svg class="zoom-area"> whose viewBox is the
// plot's own rectangle; its x axis (g.x-axis) carries the scale it was drawn with (data-lo,
// data-hi in ns; data-a, data-b in px; data-top, data-y, data-title). Zooming sets the viewBox to
// the part of the plot in view (horizontally only: preserveAspectRatio="none") and draws the axis
// again for that range. The charts of one section on one time scale zoom together; the address
// `#zoom=FROM-TO` (ns) opens the page zoomed to that range.
#include "sc_main/report/page.h"

namespace gpuvp::report {

const char* const kScript = R"JS(
(function () {
  "use strict";
  var groups = [], byKey = {};
  function attr(el, k) { return parseFloat(el.getAttribute("data-" + k)); }
  function el(ns, tag, attrs, text) {
    var e = document.createElementNS(ns, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function niceStep(range, target) {
    if (!(range > 0)) return 1;
    var raw = range / target, e = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / e;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * e;
  }
  // As svg.cpp writes them: the digits before the point in groups of three from 10 000 on.
  function fmt(v, d) {
    var s = v.toFixed(d), p = s.indexOf("."), end = p < 0 ? s.length : p, sign = s[0] === "-" ? 1 : 0;
    if (end < sign + 5) return s;
    for (var at = end; at > sign + 3; at -= 3) s = s.slice(0, at - 3) + "\u202f" + s.slice(at - 3);
    return s;
  }
  function unitOf(span) {
    return span >= 2e10 ? ["s", 1e9] : span >= 2e7 ? ["ms", 1e6] : span >= 2e4 ? ["\u00b5s", 1000] : ["ns", 1];
  }

  // The axis of chart `c` for [lo, hi] ns.
  function drawAxis(c, lo, hi) {
    var g = c.axis, ns = g.namespaceURI, u = unitOf(hi - lo), a = c.a, b = c.b;
    while (g.firstChild) g.removeChild(g.firstChild);
    var step = niceStep((hi - lo) / u[1], Math.max(2, Math.floor((b - a) / 110)));
    var d = step >= 1 ? 0 : Math.min(6, Math.ceil(-Math.log10(step) - 1e-9));
    for (var v = Math.ceil(lo / u[1] / step - 1e-9) * step, n = 0; v <= hi / u[1] + step * 1e-9 && n < 100; v += step, ++n) {
      var x = a + (v * u[1] - lo) / (hi - lo) * (b - a);
      g.appendChild(el(ns, "line", {"class": "grid", x1: x, y1: c.top, x2: x, y2: c.y}));
      g.appendChild(el(ns, "line", {x1: x, y1: c.y, x2: x, y2: c.y + 4}));
      g.appendChild(el(ns, "text", {x: x, y: c.y + 15, "text-anchor": "middle"}, fmt(Math.abs(v) < step * 1e-9 ? 0 : v, d)));
    }
    g.appendChild(el(ns, "line", {x1: a, y1: c.y, x2: b, y2: c.y}));
    g.appendChild(el(ns, "text", {"class": "axis-title", x: (a + b) / 2, y: c.y + 30, "text-anchor": "middle"},
                     c.title + " (" + u[0] + ")"));
  }

  function rangeText(g) {
    var u = unitOf(g.v1 - g.v0), whole = g.v0 <= g.lo && g.v1 >= g.hi;
    var d = u[1] > 1 ? 3 : 1;
    return "showing " + fmt(g.v0 / u[1], d) + "\u2013" + fmt(g.v1 / u[1], d) + " " + u[0] + (whole ? " (all of it)" : "");
  }

  // Shows [v0, v1] on every chart of group `g`.
  function view(g, v0, v1) {
    var span = g.hi - g.lo, min = Math.max(span * 1e-6, 1e-3);
    if (v1 - v0 < min) { var m = (v0 + v1) / 2; v0 = m - min / 2; v1 = m + min / 2; }
    if (v1 - v0 > span) { v0 = g.lo; v1 = g.hi; }
    if (v0 < g.lo) { v1 += g.lo - v0; v0 = g.lo; }
    if (v1 > g.hi) { v0 -= v1 - g.hi; v1 = g.hi; }
    g.v0 = Math.max(g.lo, v0); g.v1 = Math.min(g.hi, v1);
    var whole = g.v0 <= g.lo && g.v1 >= g.hi;
    g.charts.forEach(function (c) {
      var k = (c.b - c.a) / (c.hi - c.lo);
      c.area.setAttribute("viewBox", (c.a + (g.v0 - c.lo) * k) + " " + c.vy + " " + (g.v1 - g.v0) * k + " " + c.vh);
      if (whole) c.axis.innerHTML = c.axisHTML; else drawAxis(c, g.v0, g.v1);
      c.svg.setAttribute("data-zoom", whole ? "" : g.v0 + "-" + g.v1);
    });
    g.label.textContent = rangeText(g);
    (g.overviews || []).forEach(function (o) { mark(o, g); });
  }
  // The part of an overview's range that group `g` shows.
  function mark(o, g) {
    var k = (o.b - o.a) / (o.hi - o.lo), x = o.a + (g.v0 - o.lo) * k;
    o.rect.setAttribute("x", x);
    o.rect.setAttribute("width", Math.max(2, (g.v1 - g.v0) * k));
  }
  function zoomBy(g, f, at) {
    if (at === undefined) at = (g.v0 + g.v1) / 2;
    view(g, at - (at - g.v0) * f, at + (g.v1 - at) * f);
  }
  function pan(g, f) { var d = (g.v1 - g.v0) * f; view(g, g.v0 + d, g.v1 + d); }

  // The chart's time at a mouse event's x.
  function timeAt(c, g, ev) {
    var p = c.svg.createSVGPoint();
    p.x = ev.clientX; p.y = ev.clientY;
    var q = p.matrixTransform(c.svg.getScreenCTM().inverse());
    return { x: q.x, t: g.v0 + (q.x - c.a) / (c.b - c.a) * (g.v1 - g.v0) };
  }

  function button(text, title, f) {
    var b = document.createElement("button");
    b.type = "button"; b.textContent = text; b.title = title; b.addEventListener("click", f);
    return b;
  }

  document.querySelectorAll("svg.zoom-area").forEach(function (area) {
    var svg = area.ownerSVGElement, axis = svg && svg.querySelector("g.x-axis");
    if (!axis) return;
    var section = svg.closest("section"), vb = area.viewBox.baseVal;
    var c = { svg: svg, area: area, axis: axis, axisHTML: axis.innerHTML, lo: attr(axis, "lo"), hi: attr(axis, "hi"),
              a: attr(axis, "a"), b: attr(axis, "b"), top: attr(axis, "top"), y: attr(axis, "y"),
              title: axis.getAttribute("data-title"), vy: vb.y, vh: vb.height };
    if (!(c.hi > c.lo)) return;
    var key = (section ? section.id : "") + "|" + c.lo + "|" + c.hi, g = byKey[key];
    if (!g) {
      g = byKey[key] = { charts: [], lo: c.lo, hi: c.hi, v0: c.lo, v1: c.hi };
      groups.push(g);
      var bar = document.createElement("div");
      bar.className = "zoom-bar";
      g.label = document.createElement("span");
      g.label.className = "zoom-range";
      g.label.textContent = rangeText(g);
      bar.appendChild(button("+", "zoom in", function () { zoomBy(g, 0.5); }));
      bar.appendChild(button("\u2212", "zoom out", function () { zoomBy(g, 2); }));
      bar.appendChild(button("\u25c0", "earlier", function () { pan(g, -0.4); }));
      bar.appendChild(button("\u25b6", "later", function () { pan(g, 0.4); }));
      bar.appendChild(button("all", "the whole range", function () { view(g, g.lo, g.hi); }));
      bar.appendChild(g.label);
      var help = document.createElement("span");
      help.className = "muted";
      help.textContent = "drag across a chart to zoom in \u00b7 double-click: all of it \u00b7 Ctrl+wheel: zoom \u00b7 Shift+wheel: pan";
      bar.appendChild(help);
      var fig = svg.closest("figure") || svg;
      fig.parentNode.insertBefore(bar, fig);
    }
    g.charts.push(c);
    svg.classList.add("zoomable");

    var drag = null;
    svg.addEventListener("mousedown", function (ev) {
      if (ev.button !== 0) return;
      var p = timeAt(c, g, ev);
      if (p.x < c.a || p.x > c.b) return;
      ev.preventDefault();
      drag = { x0: p.x, t0: p.t, rect: el(svg.namespaceURI, "rect", {"class": "zoom-select", x: p.x, y: c.vy, width: 0, height: c.vh}) };
      svg.appendChild(drag.rect);
    });
    window.addEventListener("mousemove", function (ev) {
      if (!drag) return;
      var x = Math.max(c.a, Math.min(c.b, timeAt(c, g, ev).x));
      drag.rect.setAttribute("x", Math.min(x, drag.x0));
      drag.rect.setAttribute("width", Math.abs(x - drag.x0));
    });
    window.addEventListener("mouseup", function (ev) {
      if (!drag) return;
      var p = timeAt(c, g, ev), d = drag;
      drag = null;
      d.rect.remove();
      if (Math.abs(p.x - d.x0) > 4) view(g, Math.min(p.t, d.t0), Math.max(p.t, d.t0));
    });
    svg.addEventListener("dblclick", function () { view(g, g.lo, g.hi); });
    svg.addEventListener("wheel", function (ev) {
      if (ev.ctrlKey || ev.metaKey) {
        ev.preventDefault();
        zoomBy(g, ev.deltaY > 0 ? 1.25 : 0.8, timeAt(c, g, ev).t);
      } else if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        ev.preventDefault();
        pan(g, (ev.shiftKey ? ev.deltaY : ev.deltaX) > 0 ? 0.1 : -0.1);
      }
    }, { passive: false });
  });

  // An overview (svg[data-for=ID]): the whole range of chart #ID, small. It marks the part the
  // chart shows; a drag across it shows that part, a click moves the part shown to centre there.
  function groupOf(svg) {
    var found = null;
    groups.forEach(function (g) { g.charts.forEach(function (c) { if (c.svg === svg) found = g; }); });
    return found;
  }
  document.querySelectorAll("svg[data-for]").forEach(function (ov) {
    var of = document.getElementById(ov.getAttribute("data-for")), g = of && groupOf(of);
    var axis = ov.querySelector("g.x-axis");
    if (!g || !axis) return;
    var o = { svg: ov, lo: attr(axis, "lo"), hi: attr(axis, "hi"), a: attr(axis, "a"), b: attr(axis, "b"),
              top: attr(axis, "top"), y: attr(axis, "y") };
    if (!(o.hi > o.lo)) return;
    o.rect = el(ov.namespaceURI, "rect", {"class": "zoom-window", y: o.top, height: o.y - o.top});
    ov.appendChild(o.rect);
    (g.overviews = g.overviews || []).push(o);
    ov.classList.add("zoomable");
    mark(o, g);
    function at(ev) {
      var p = ov.createSVGPoint();
      p.x = ev.clientX; p.y = ev.clientY;
      var x = p.matrixTransform(ov.getScreenCTM().inverse()).x;
      return { x: x, t: o.lo + (Math.max(o.a, Math.min(o.b, x)) - o.a) / (o.b - o.a) * (o.hi - o.lo) };
    }
    var drag = null;  // where a drag began, and the part it selects, drawn as it goes
    var clamp = function (x) { return Math.max(o.a, Math.min(o.b, x)); };
    ov.addEventListener("mousedown", function (ev) {
      if (ev.button !== 0) return;
      ev.preventDefault();
      drag = at(ev);
      drag.rect = el(ov.namespaceURI, "rect", {"class": "zoom-select", x: clamp(drag.x), y: o.top, width: 0, height: o.y - o.top});
      ov.appendChild(drag.rect);
    });
    window.addEventListener("mousemove", function (ev) {
      if (!drag) return;
      var x = clamp(at(ev).x), x0 = clamp(drag.x);
      drag.rect.setAttribute("x", Math.min(x, x0));
      drag.rect.setAttribute("width", Math.abs(x - x0));
    });
    window.addEventListener("mouseup", function (ev) {
      if (!drag) return;
      var p = at(ev), d = drag, w = g.v1 - g.v0;
      drag = null;
      d.rect.remove();
      if (Math.abs(p.x - d.x) > 4) view(g, Math.min(p.t, d.t), Math.max(p.t, d.t));
      else view(g, p.t - w / 2, p.t + w / 2);
    });
  });
  // A chart that opens on a part of its range (svg[data-window=FROM-TO], ns).
  document.querySelectorAll("svg[data-window]").forEach(function (svg) {
    var m = /^([0-9.]+)-([0-9.]+)$/.exec(svg.getAttribute("data-window")), g = groupOf(svg);
    if (m && g) view(g, parseFloat(m[1]), parseFloat(m[2]));
  });

  // The address: #zoom=FROM-TO (ns) zooms every group; #sm-N (or another closed section) opens it.
  function follow() {
    var h = decodeURIComponent(location.hash.slice(1)), m = /^zoom=([0-9.]+)-([0-9.]+)$/.exec(h);
    if (m) {
      groups.forEach(function (g) { view(g, parseFloat(m[1]), parseFloat(m[2])); });
      return;
    }
    var t = h && document.getElementById(h);
    for (var e = t; e; e = e.parentElement) if (e.tagName === "DETAILS") e.open = true;
    if (t) t.scrollIntoView();
  }
  window.addEventListener("hashchange", follow);
  follow();

  // Collapse or expand every section.
  var nav = document.querySelector("nav");
  if (nav) {
    var all = function (open) {
      document.querySelectorAll("section > details").forEach(function (d) { d.open = open; });
    };
    nav.appendChild(button("collapse all", "close every section", function () { all(false); }));
    nav.appendChild(button("expand all", "open every section", function () { all(true); }));
  }
})();
)JS";

}  // namespace gpuvp::report
