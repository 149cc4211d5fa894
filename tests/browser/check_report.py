#!/usr/bin/env python3
"""Opens a run's report.html in headless Chromium and checks what a reader would get.

    check_report.py GPUVP SCENARIO [--set KEY=VALUE ...] [--sparse] [--chromium PATH] [--keep DIR]

Runs `GPUVP run SCENARIO [--set ...] --out <tmp>`, then
  (a) --dump-dom: the DOM Chromium built holds every section, an SVG timeline per SM that ran
      warps with a bar per warp of the trace, the SM occupancy overview with a row per SM, a
      launch-stage bar for every kernel of results.json (with variants: for every kernel of
      every variant, side by side), a histogram of each kernel with instances (and the other
      sections' charts or their empty-state text);
  (z) the page opened at `#zoom=FROM-TO`: the page's script zoomed every chart of the timeline
      to that range (its axis drawn again within it, the range shown), and the zoom controls
      are there; then the page in a frame driven by a script as a reader would: a drag across
      a timeline chart zooms to the range dragged, "+" halves it, a double-click shows it all;
  (b) --screenshot at 1400x3000: the picture is not blank (many colours, much of it not white,
      coloured chart areas);
  (c) with the network made unusable and a net log: the page made no http/https/ws request
      and its DOM is still complete; the net-log check is first shown to catch the requests
      of a page that does make them; and a static scan of report.html for external references.
Exit 0 when every check holds, 1 otherwise (each failure is printed).
"""
import argparse
import html
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TIMEOUT = 60  # seconds, per Chromium run
failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)
    return cond


# --- a DOM tree from Chromium's serialized DOM ---------------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], []

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def find_all(self, tag=None, cls=None, **attrs):
        out = []
        for n in self.walk():
            if tag and n.tag != tag:
                continue
            if cls and cls not in n.classes():
                continue
            if any(n.attrs.get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            out.append(n)
        return out

    def all_text(self):
        return "".join(t for n in self.walk() for t in n.text)


class TreeBuilder(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text.append(data)


def parse_dom(text):
    b = TreeBuilder()
    b.feed(text)
    b.close()
    return b.root


# --- Chromium ------------------------------------------------------------------------------

def chromium(binary, work, name, url, *flags):
    profile = os.path.join(work, "profile-" + name)
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile, *flags, url]
    try:
        r = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        check(False, "%s: chromium finished within %d s" % (name, TIMEOUT))
        return None
    if r.returncode != 0:
        print(r.stderr.decode(errors="replace")[-2000:])  # Chromium's stderr is mostly noise
    check(r.returncode == 0, "%s: chromium exited 0 (got %d)" % (name, r.returncode))
    return r.stdout.decode(errors="replace")


# --- (a) the DOM ---------------------------------------------------------------------------

def check_warps(label, svgs, trace, names):
    """`svgs`: the per-SM warp charts of one run; they hold every warp of its trace."""
    warp_sms, warps = set(), 0
    for e in (trace or {}).get("traceEvents", []):
        if e.get("cat") == "warp" and e.get("ph") == "X":
            warp_sms.add(e["pid"] - 100)
            warps += 1
    check(sorted(int(s.attrs["data-sm"]) for s in svgs) == sorted(warp_sms),
          "%s: a timeline SVG per SM that ran warps (%d)" % (label, len(warp_sms)))
    bars = [r for s in svgs for r in s.find_all("rect", cls="warp")]
    drawn = sum(int(r.attrs.get("data-count", "1")) for r in bars)
    check(drawn == warps, "%s: the timeline bars hold every warp of the trace (%d, in %d bars)" % (label, warps, len(bars)))
    check(all(r.attrs.get("data-kernel") in names | {"several kernels"} for r in bars),
          "%s: every warp bar names a kernel of results.json" % label)
    check(all(len(s.find_all("g", cls="legend")) == 1 and len(s.find_all("g", cls="x-axis")) == 1 for s in svgs),
          "%s: every timeline has a legend and a time axis" % label)
    check(all("simulated time (" in s.all_text() for s in svgs), "%s: the time axis names its unit" % label)
    return len(bars)


def check_dom(label, dom_text, results, trace, variant_traces=None):
    dom = parse_dom(dom_text)
    check(len(dom_text) > 5000, "%s: the DOM is not empty (%d bytes)" % (label, len(dom_text)))
    sections = {n.attrs.get("id"): n for n in dom.find_all("section")}
    # The answer first: a replay's model against the hardware, the variants compared, the launch
    # stages; then the timelines and each mechanism's section.
    order = [n.attrs.get("id") for n in dom.find_all("section")]
    want = (["replay"] if "replay" in results else []) + (["variants"] if "variants" in results else []) + \
        ["launch-stages", "timeline", "locks", "scalar", "shading"]
    check(order == want, "%s: the sections in the order %s (found %s)" % (label, ", ".join(want), ", ".join(map(str, order))))
    for sid in ("timeline", "launch-stages", "locks", "scalar", "shading"):
        s = sections.get(sid)
        if check(s is not None, "%s: section #%s is there" % (label, sid)):
            check(len(s.find_all("h2")) == 1, "%s: section #%s has its heading" % (label, sid))
    header = dom.find_all("header", id="summary")
    if check(len(header) == 1, "%s: the header is there" % label):
        check(header[0].find_all("span", id="scenario-name")[0].all_text() == results["scenario"],
              "%s: the header names the scenario" % label)
        check(results["status"] in header[0].find_all("td", id="status")[0].all_text(), "%s: the header shows the status" % label)
        check(len(dom.find_all("tr", cls="expectation")) == len(results["expectations"]),
              "%s: a row per expectation (%d)" % (label, len(results["expectations"])))

    # The timeline: an SVG per SM that ran warps, a bar per warp, inside it (with variants: per
    # variant, in the variants section).
    timeline, variants = sections.get("timeline"), sections.get("variants")
    if "variants" in results and variants is not None:
        vs = results["variants"]
        cols = variants.find_all("th", cls="variant-col")
        check([c.attrs.get("data-variant") for c in cols] == [v["name"] for v in vs],
              "%s: a column per variant in the variants table (%d)" % (label, len(vs)))
        bars = 0
        for v, vt in zip(vs, variant_traces or []):
            names = {k["name"] for k in v["results"].get("kernels", [])}
            svgs = variants.find_all("svg", cls="variant-timeline", data_variant=v["name"])
            bars += check_warps("%s, variant %s" % (label, v["name"]), svgs, vt, names)
            if names and timeline is not None:
                check(len(timeline.find_all("svg", cls="kernel-spans", data_variant=v["name"])) == 1,
                      "%s: the timeline has variant %s's kernels" % (label, v["name"]))
        check(bars <= 20000, "%s: at most 20000 warp bars" % label)
        if any(v["results"].get("kernels") for v in vs):
            check(len(variants.find_all("svg", cls="variant-chart", data_metric="response_ns")) == 1,
                  "%s: the response_ns chart of the variants" % label)
    elif timeline is not None:
        names = {k["name"] for k in results["kernels"]}
        bars = check_warps(label, timeline.find_all("svg", cls="sm-timeline"), trace, names)
        check(bars <= 20000, "%s: at most 20000 warp bars" % label)

    # The SM overview: a row per SM of results.json, from its occupancy (the whole run).
    runs = [(v["name"], v["results"]) for v in results["variants"]] if "variants" in results else [(None, results)]
    for vname, run in runs:
        if run.get("unfinished") or not any(sm.get("occupancy", {}).get("warps") for sm in run.get("sms", [])):
            continue
        where = variants if vname else timeline
        if where is None:
            continue
        ov = [o for o in where.find_all("svg", cls="sm-overview") if o.attrs.get("data-variant") == vname]
        if check(len(ov) == 1, "%s: the SM occupancy overview%s" % (label, " of variant " + vname if vname else "")):
            rows = ov[0].find_all("g", cls="sm-row")
            check(sorted(int(r.attrs["data-sm"]) for r in rows) == sorted(sm["id"] for sm in run["sms"]),
                  "%s: a row per SM in the overview (%d)" % (label, len(run["sms"])))
            busy = {sm["id"] for sm in run["sms"] if any(w > 0 for w in sm["occupancy"]["warps"])}
            check({int(r.attrs["data-sm"]) for r in rows if r.find_all("rect")} == busy,
                  "%s: the overview's rows that ran warps have cells (%d SMs)" % (label, len(busy)))

    # Launch stages: a bar per kernel, with its stages (with variants: a bar per kernel and
    # variant, the variants of one kernel one under the other).
    stages = sections.get("launch-stages")
    if stages is not None:
        bars = stages.find_all("g", cls="stage-bar")
        for vname, run in runs:
            for k in run.get("kernels", []):
                g = [b for b in bars if b.attrs.get("data-kernel") == k["name"] and b.attrs.get("data-variant") == vname]
                what = "kernel %s" % k["name"] + (" in variant %s" % vname if vname else "")
                if check(len(g) == 1, "%s: a launch-stage bar for %s" % (label, what)):
                    check(len(g[0].find_all("rect", cls="stage")) == len(k["stages"]),
                          "%s: %s's bar has its %d stages" % (label, what, len(k["stages"])))
        if "variants" in results and len(runs) > 1:
            order = [b.attrs.get("data-kernel") for b in bars]
            check(all(order[i:i + len(runs)].count(order[i]) == len(runs) for i in range(0, len(order), len(runs))),
                  "%s: each kernel's bars of every variant are side by side" % label)
        for vname, run in runs:
            for k in run.get("kernels", []):
                if "instances" not in k:
                    continue
                for figure in ("response_ns", "turnaround_ns"):
                    h = stages.find_all("svg", cls="instance-histogram", data_kernel=k["name"], data_figure=figure)
                    if check(len(h) == 1, "%s: a histogram of kernel %s's %s over its instances" % (label, k["name"], figure)):
                        panel = [p for p in h[0].find_all("g", cls="instance-panel") if p.attrs.get("data-variant") == (vname or "")]
                        counted = sum(int(r.attrs["data-count"]) for p in panel for r in p.find_all("rect", cls="bin"))
                        ok = k["instances"]["ok"]
                        check(counted == ok, "%s: kernel %s's %s histogram counts its %d instances that ended ok (%d)"
                              % (label, k["name"], figure, ok, counted))
        if results["kernels"]:
            check(len(stages.find_all("table", id="stage-table")) == 1, "%s: the launch-stage table" % label)
        else:
            check("no kernels in this run" in stages.all_text(), "%s: the launch stages say there are no kernels" % label)

    replay = sections.get("replay")
    if "replay" in results and replay is not None:
        measured = [k for k in results["kernels"] if "measured" in k]
        tl = replay.find_all("svg", id="replay-timeline")
        if check(len(tl) == 1, "%s: the replay's timeline" % label):
            bars = [r for r in tl[0].find_all("rect", cls="replay-kernel")]
            check(sum(int(r.attrs.get("data-count", "1")) for r in bars) == 2 * len(measured),
                  "%s: the replay's timeline has every kernel, measured and simulated (%d)" % (label, 2 * len(measured)))
            ov = replay.find_all("svg", id="replay-timeline-overview")
            check(len(ov) == ("data-window" in tl[0].attrs), "%s: a replay's timeline that opens on a window has its overview"
                  % label)
    stage_chart = dom.find_all("svg", id="stage-chart")
    if stage_chart and stage_chart[0].attrs.get("data-layout") == "shares":
        # The stages on the GPU as each launch's shares: every bar's non-host stages fill one width.
        widths = set()
        for g in stage_chart[0].find_all("g", cls="stage-bar"):
            rects = [r for r in g.find_all("rect", cls="stage") if r.attrs.get("data-stage") != "host"]
            total = sum(float(r.attrs["width"]) for r in rects)
            if total > 0:  # (a launch whose stages on the GPU took no time has no shares)
                widths.add(round(total))
        check(len(widths) == 1 or (len(widths) == 2 and max(widths) - min(widths) <= 1),
              "%s: the launch-stage shares fill one width for every kernel (%s px)" % (label, sorted(widths)))
        check(len(stage_chart[0].find_all("g", cls="log-axis")) == 1, "%s: the host stage on its log axis" % label)

    locks = sections.get("locks")
    if locks is not None:
        by_priority = results["locks"]["by_priority"]
        if by_priority:
            for p in by_priority:
                check(len(locks.find_all("tr", data_priority=p)) == 1, "%s: a lock row for priority %s" % (label, p))
            check(len(locks.find_all("svg", id="lock-wait-chart")) == 1, "%s: the lock wait chart" % label)
        else:
            check("no locks in this run" in locks.all_text(), "%s: the locks section says there are none" % label)

    scalar = sections.get("scalar")
    if scalar is not None:
        charts = scalar.find_all("svg", cls="scalar-chart")
        check(bool(charts) or "no scalar pool" in scalar.all_text() or "without a trace" in scalar.all_text(),
              "%s: the scalar section has charts or says why not" % label)

    shading = sections.get("shading")
    if shading is not None:
        if results["usa"]["draws"]:
            check(len(shading.find_all("svg", id="shading-chart")) == 1, "%s: the cores-by-type chart" % label)
        else:
            check("no draws in this run" in shading.all_text(), "%s: the shading section says there are no draws" % label)
    check(("variants" in results) == ("variants" in sections), "%s: a variants section only with variants" % label)


# --- (z) zoom -------------------------------------------------------------------------------

def check_zoom(label, dom_text, results, lo, hi):
    """The DOM of the page opened at #zoom=lo-hi: every chart over time in the timeline section
    shows that range, its axis drawn again inside it."""
    dom = parse_dom(dom_text)
    sections = {n.attrs.get("id"): n for n in dom.find_all("section")}
    timeline = sections.get("timeline")
    if not check(timeline is not None, "%s: the timeline section" % label):
        return
    bars = timeline.find_all("div", cls="zoom-bar")
    check(len(bars) >= 1 and all(len(b.find_all("button")) == 5 for b in bars),
          "%s: the timeline has zoom controls (+, -, earlier, later, all)" % label)
    charts = timeline.find_all("svg", cls="zoomable")
    check(len(charts) >= 1, "%s: the timeline's charts can zoom (%d)" % (label, len(charts)))
    shown = [c.attrs.get("data-zoom", "") for c in charts]
    check(all(z == "%s-%s" % (lo, hi) for z in shown),
          "%s: every timeline chart shows %s-%s ns (%s)" % (label, lo, hi, ", ".join(sorted(set(shown)))[:80]))
    for c in charts[:3]:
        axis = c.find_all("g", cls="x-axis")[0]
        title = [t for t in axis.find_all("text") if "axis-title" in t.classes()][0].all_text()
        div = next((d for u, d in (("(µs)", 1e3), ("(ms)", 1e6), ("(s)", 1e9)) if u in title), 1)
        ticks = [float(t.all_text().replace("\u202f", "")) * div for t in axis.find_all("text") if "axis-title" not in t.classes()]
        check(len(ticks) >= 2 and all(lo - 1e-6 <= t <= hi + 1e-6 for t in ticks),
              "%s: a zoomed axis's ticks lie in %s-%s ns (%s)" % (label, lo, hi, ", ".join("%g" % t for t in ticks[:8])))
        area = c.find_all("svg", cls="zoom-area")[0]
        x, _, w, _ = (float(v) for v in area.attrs["viewbox" if "viewbox" in area.attrs else "viewBox"].split())
        a, b = float(axis.attrs["data-a"]), float(axis.attrs["data-b"])
        dlo, dhi = float(axis.attrs["data-lo"]), float(axis.attrs["data-hi"])
        want_x = a + (lo - dlo) / (dhi - dlo) * (b - a)
        check(abs(x - want_x) < 0.5 and abs(w - (hi - lo) / (dhi - dlo) * (b - a)) < 0.5,
              "%s: the plot's viewBox is the zoomed range (x %.1f, want %.1f)" % (label, x, want_x))
    ranges = timeline.find_all("span", cls="zoom-range")
    check(all("showing" in r.all_text() and "all of it" not in r.all_text() for r in ranges),
          "%s: the controls say which range is shown (%s)" % (label, ranges[0].all_text() if ranges else "none"))


# The page in a frame, driven as a reader would: a drag across the first timeline chart from a
# quarter to half of its width, then the "+" button, then a double-click; what the page showed
# after each step is written into the frame's parent, whose DOM Chromium dumps.
DRIVER = """<!DOCTYPE html><html><body><pre id="out">not run</pre>
<iframe id="f" src="report.html" width="1400" height="2400"></iframe>
<script>
document.getElementById("f").addEventListener("load", function () {
  var steps = [], d = this.contentDocument, w = this.contentWindow;
  try {
    var svg = d.querySelector("#timeline svg.zoomable"), area = svg.querySelector("svg.zoom-area");
    // Where the plot is on the screen: its scale's px (the axis's data-a, data-b) through the chart's CTM.
    var axis = svg.querySelector("g.x-axis"), m = svg.getScreenCTM();
    var a = +axis.getAttribute("data-a"), b = +axis.getAttribute("data-b");
    var at = function (f) { return m.a * (a + f * (b - a)) + m.e; };
    var y = m.d * (+axis.getAttribute("data-top") + +axis.getAttribute("data-y")) / 2 + m.f;
    var state = function (what) {
      steps.push({step: what, zoom: svg.getAttribute("data-zoom"), viewBox: area.getAttribute("viewBox"),
                  range: d.querySelector("#timeline .zoom-range").textContent,
                  ticks: Array.prototype.map.call(svg.querySelectorAll("g.x-axis text:not(.axis-title)"),
                                                  function (t) { return t.textContent; }),
                  title: svg.querySelector("g.x-axis text.axis-title").textContent});
    };
    var mouse = function (type, x) {
      svg.dispatchEvent(new w.MouseEvent(type, {bubbles: true, cancelable: true, clientX: x, clientY: y, button: 0}));
    };
    state("loaded");
    mouse("mousedown", at(0.25));
    mouse("mousemove", at(0.4));
    mouse("mousemove", at(0.5));
    mouse("mouseup", at(0.5));
    state("dragged");
    d.querySelector("#timeline .zoom-bar button[title='zoom in']").click();
    state("zoomed in");
    mouse("dblclick", at(0.5));
    state("double-clicked");
    // A long replay's overview: the part its chart shows marked on it; a click at its middle.
    var ov = d.querySelector("svg[data-for]");
    if (ov) {
      var chart = d.getElementById(ov.getAttribute("data-for")), oa = ov.querySelector("g.x-axis"), om = ov.getScreenCTM();
      var num = function (e, k) { return +e.getAttribute(k); };
      var ox = function (f) { return om.a * (num(oa, "data-a") + f * (num(oa, "data-b") - num(oa, "data-a"))) + om.e; };
      var oy = om.d * (num(oa, "data-top") + num(oa, "data-y")) / 2 + om.f;
      var mark = ov.querySelector("rect.zoom-window");
      var seen = function (what) {
        steps.push({step: what, zoom: chart.getAttribute("data-zoom"), window: chart.getAttribute("data-window"),
                    mark: mark ? [num(mark, "x"), num(mark, "width")] : null,
                    scale: [num(oa, "data-lo"), num(oa, "data-hi"), num(oa, "data-a"), num(oa, "data-b")]});
      };
      seen("the overview as opened");
      var press = function (type, target, f) {
        target.dispatchEvent(new w.MouseEvent(type, {bubbles: true, cancelable: true, clientX: ox(f), clientY: oy, button: 0}));
      };
      press("mousedown", ov, 0.5);
      press("mouseup", w, 0.5);
      seen("a click at the overview's middle");
      press("mousedown", ov, 0.2);
      press("mousemove", w, 0.4);
      var sel = ov.querySelector("rect.zoom-select");
      var drawn = sel ? [num(sel, "x"), num(sel, "width")] : null;
      press("mouseup", w, 0.4);
      seen("a drag across the overview from 1/5 to 2/5");
      steps[steps.length - 1].selection = drawn;
      steps[steps.length - 1].left = ov.querySelectorAll("rect.zoom-select").length;
    }
  } catch (e) { steps.push({error: String(e)}); }
  document.getElementById("out").textContent = JSON.stringify(steps);
});
</script></body></html>
"""


def check_interaction(binary, work, out_dir, results):
    driver = os.path.join(out_dir, "driver.html")
    with open(driver, "w") as f:
        f.write(DRIVER)
    dom = chromium(binary, work, "interaction", "file://" + driver, "--allow-file-access-from-files",
                   "--virtual-time-budget=5000", "--dump-dom")
    if dom is None:
        return
    m = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
    text = html.unescape(m.group(1)) if m else "[]"
    try:
        steps = json.loads(text)
    except ValueError:
        steps = [{"error": "not JSON: " + text[:200]}]
    errors = [s["error"] for s in steps if "error" in s]
    if not check(not errors and len(steps) in (4, 7), "drive: the page answered a drag, a button and a double-click (%s)"
                 % (errors[0] if errors else "%d steps" % len(steps))):
        return
    loaded, dragged, zoomed, reset = steps[:4]
    if len(steps) == 7:
        check_overview(*steps[4:])
    end = max(results.get("sim_end_ns", 0), 1)
    check(loaded["zoom"] in (None, ""), "drive: the page opens showing all of the run (%s)" % loaded["range"])
    try:
        lo, hi = (float(v) for v in dragged["zoom"].split("-"))
    except (AttributeError, ValueError):
        lo = hi = float("nan")
    span = float(loaded["viewBox"].split()[2])
    check(abs(lo - end * 0.25) < end * 0.01 and abs(hi - end * 0.5) < end * 0.01,
          "drive: a drag from 1/4 to 1/2 of the chart zooms to that range (%g-%g ns of %g)" % (lo, hi, end))
    check(dragged["ticks"] != loaded["ticks"] and "showing" in dragged["range"] and "all of it" not in dragged["range"],
          "drive: the axis is drawn again for the range and the controls say it (%s; ticks %s)"
          % (dragged["range"], " ".join(dragged["ticks"][:6])))
    check(abs(float(dragged["viewBox"].split()[2]) - span / 4) < 1, "drive: the plot's viewBox is a quarter of its width")
    try:
        zlo, zhi = (float(v) for v in zoomed["zoom"].split("-"))
    except (AttributeError, ValueError):
        zlo = zhi = float("nan")
    check(abs((zhi - zlo) - (hi - lo) / 2) < end * 1e-6 and abs((zhi + zlo) - (hi + lo)) < end * 1e-6,
          "drive: + halves the range about its middle (%g-%g ns)" % (zlo, zhi))
    check(reset["zoom"] == "" and reset["ticks"] == loaded["ticks"] and reset["title"] == loaded["title"]
          and "all of it" in reset["range"], "drive: a double-click shows all of it again, the axis as drawn")


def check_overview(opened, clicked, dragged):
    """A long replay: its timeline opened on its data-window, which its overview marks; a click at
    the overview's middle centres that much of the replay there; a drag across it draws what it
    selects as it goes, then shows that part."""
    def pair(text):
        try:
            return tuple(float(v) for v in text.split("-"))
        except (AttributeError, ValueError):
            return (float("nan"), float("nan"))
    lo, hi, a, b = opened["scale"]
    w0, w1 = pair(opened["window"])
    z0, z1 = pair(opened["zoom"])
    check(abs(z0 - w0) < 1e-3 * (hi - lo) and abs(z1 - w1) < 1e-3 * (hi - lo),
          "drive: the replay's timeline opens on its window (%s, shown %s)" % (opened["window"], opened["zoom"]))
    def marks(state, v0, v1):
        x, width = state["mark"] or (float("nan"), float("nan"))
        want_x, want_w = a + (v0 - lo) / (hi - lo) * (b - a), max(2, (v1 - v0) / (hi - lo) * (b - a))
        return abs(x - want_x) < 0.5 and abs(width - want_w) < 0.5
    check(marks(opened, z0, z1), "drive: the overview marks the part shown (%s)" % opened["mark"])
    c0, c1 = pair(clicked["zoom"])
    mid = (lo + hi) / 2
    want0 = min(max(lo, mid - (z1 - z0) / 2), hi - (z1 - z0))
    check(abs((c1 - c0) - (z1 - z0)) < 1e-3 * (hi - lo) and abs(c0 - want0) < 2e-3 * (hi - lo),
          "drive: a click at the overview's middle shows as much, centred there (%s)" % clicked["zoom"])
    check(marks(clicked, c0, c1), "drive: the overview's mark follows (%s)" % clicked["mark"])
    x, width = dragged.get("selection") or (float("nan"), float("nan"))
    check(abs(x - (a + 0.2 * (b - a))) < 1 and abs(width - 0.2 * (b - a)) < 1 and dragged.get("left") == 0,
          "drive: a drag across the overview draws its selection as it goes, gone when released (%s)" % dragged.get("selection"))
    d0, d1 = pair(dragged["zoom"])
    check(abs(d0 - (lo + 0.2 * (hi - lo))) < 2e-3 * (hi - lo) and abs(d1 - (lo + 0.4 * (hi - lo))) < 2e-3 * (hi - lo),
          "drive: the drag shows what it selected (%s)" % dragged["zoom"])
    check(marks(dragged, d0, d1), "drive: the overview's mark is the part dragged (%s)" % dragged["mark"])


# --- (b) the screenshot --------------------------------------------------------------------

def check_screenshot(png, sparse=False, size=(1400, 3000), thresholds=None):
    """The picture is not blank: many colours, a good part not white, coloured chart areas.
    `sparse`: a page of light charts and closed drill-downs (instances, 108 SMs): not blank is
    enough. `thresholds` (colours, not white, saturated) in place of either."""
    from PIL import Image  # python3-pil
    im = Image.open(png).convert("RGB")
    w, h = im.size
    check((w, h) == size, "screenshot: %dx%d (got %dx%d)" % (size + (w, h)))
    colours = im.getcolors(maxcolors=1 << 24)
    total = w * h
    non_white = sum(c for c, rgb in colours if min(rgb) < 240) / total
    saturated = sum(c for c, rgb in colours if max(rgb) - min(rgb) > 60) / total
    least = thresholds or ((200, 0.03, 0.003) if sparse else (200, 0.08, 0.03))
    print("      %d colours, %.1f %% not white, %.2f %% saturated" % (len(colours), non_white * 100, saturated * 100))
    check(len(colours) >= least[0], "screenshot: many distinct colours (%d)" % len(colours))
    check(non_white >= least[1], "screenshot: a substantial part is not white (%.1f %%)" % (non_white * 100))
    check(saturated >= least[2], "screenshot: coloured chart areas (%.2f %% saturated pixels)" % (saturated * 100))


# --- (c) the network -----------------------------------------------------------------------

NO_NETWORK = ["--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
              "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCHEMES = re.compile(r"^(https?|wss?)://", re.I)


def page_requests(netlog_path):
    """The http/https/ws/wss requests a page made, from a Chromium net log; the browser's own
    background requests (updates, accounts: no initiator, no file:// isolation key) are left out."""
    with open(netlog_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        log = json.loads(text)
    except ValueError:  # cut short: close it
        log = json.loads(text.rstrip().rstrip(",") + "]}")
    names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    urls, internal = [], []
    for e in log.get("events", []):
        p = e.get("params") or {}
        url = p.get("url", "")
        if not SCHEMES.match(url) or names.get(e.get("type")) != "URL_REQUEST_START_JOB":
            continue
        from_page = p.get("initiator") != "not an origin" or "file://" in p.get("network_isolation_key", "")
        (urls if from_page else internal).append(url)
    return urls, internal


def check_network(binary, work, report, results, trace, variant_traces):
    # The detector first: a page that loads an image, a style sheet and a web socket.
    bad = os.path.join(work, "bad.html")
    with open(bad, "w") as f:
        f.write('<!DOCTYPE html><html><body><img src="http://example.com/x.png">'
                '<link rel="stylesheet" href="https://cdn.example.org/a.css">'
                '<script>try { new WebSocket("ws://example.net/s") } catch (e) {}</script><p>x</p></body></html>')
    log = os.path.join(work, "bad-netlog.json")
    chromium(binary, work, "net-detector", "file://" + bad, *NO_NETWORK, "--log-net-log=" + log, "--dump-dom")
    seen, _ = page_requests(log) if os.path.exists(log) else ([], [])
    check(any(u.startswith("http://example.com") for u in seen) and any(u.startswith("https://cdn.example.org") for u in seen)
          and any(u.startswith("ws://example.net") for u in seen),
          "no network: the net-log check sees a page's http, https and ws requests (%d seen)" % len(seen))
    check(bool(static_references(open(bad).read())), "no network: the static scan flags that page")

    log = os.path.join(work, "netlog.json")
    dom = chromium(binary, work, "no-network", "file://" + report, *NO_NETWORK, "--log-net-log=" + log, "--dump-dom")
    if check(os.path.exists(log), "no network: chromium wrote its net log"):
        urls, internal = page_requests(log)
        check(not urls, "no network: the report made no http/https/ws request (%s)" % (", ".join(urls[:5]) or "none")
              + "; the browser's own background requests, not the page's: %d" % len(internal))
    if dom is not None:
        check_dom("no network", dom, results, trace, variant_traces)


def static_references(text):
    """Every external reference in an HTML text (an empty list for a self-contained page): an
    inline <script> is allowed, one with a src, or one that fetches or opens a socket, is not."""
    found = []
    patterns = [r"(?<![\w-])(?:src|srcset|href|xlink:href|action|poster|data)\s*=\s*(?:\"(?!#)|'(?!#)|(?![\"'#]))[^\s\"'>]*",
                r"url\s*\(", r"@import", r"(?:https?|wss?|ftp)://", r"<\s*(?:link|iframe|img|object|embed|base)\b",
                r"<\s*script\b[^>]*\bsrc\b", r"\bimport\s*\(", r"(?<![\w.])fetch\s*\(",
                r"\bnew\s+(?:XMLHttpRequest|WebSocket|EventSource|Worker)\b"]
    for p in patterns:
        for m in re.finditer(p, text, re.I):
            found.append(m.group(0)[:80])
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gpuvp")
    ap.add_argument("scenario")
    ap.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser") or "chromium")
    ap.add_argument("--keep", help="copy the run, the DOM and the screenshot into this folder")
    ap.add_argument("--sparse", action="store_true", help="a page of light charts: the screenshot need only not be blank")
    ap.add_argument("--set", action="append", default=[], help="KEY=VALUE, passed to gpuvp run")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="gpuvp-browser-")
    try:
        out = os.path.join(work, "out")
        env = dict(os.environ, SC_COPYRIGHT_MESSAGE="DISABLE")
        sets = [a for kv in args.set for a in ("--set", kv)]
        r = subprocess.run([args.gpuvp, "run", args.scenario, "--quiet", "--out", out] + sets, capture_output=True, env=env,
                           timeout=600)
        print(r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace"), end="")
        report = os.path.join(out, "report.html")
        if not check(r.returncode == 0 and os.path.exists(report), "gpuvp run %s wrote report.html" % args.scenario):
            return 1
        with open(os.path.join(out, "results.json")) as f:
            results = json.load(f)
        trace = None
        if os.path.exists(os.path.join(out, "trace.json")):
            with open(os.path.join(out, "trace.json")) as f:
                trace = json.load(f)
        variant_traces = []
        for v in results.get("variants", []):
            path = os.path.join(out, "variants", v["name"], "trace.json")
            with open(path) as f:
                variant_traces.append(json.load(f))
        with open(report, encoding="utf-8") as f:
            text = f.read()

        refs = static_references(text)
        check(not refs, "static scan: no external reference in report.html (%s)" % (", ".join(refs[:5]) or "none"))

        dom = chromium(args.chromium, work, "dom", "file://" + report, "--dump-dom")
        if dom is not None:
            check_dom("dom", dom, results, trace, variant_traces)
            with open(os.path.join(work, "dom.html"), "w") as f:
                f.write(dom)

        # Zoomed to the second quarter of the run, by the address.
        end = max([results.get("sim_end_ns", 0)] + [v["results"].get("sim_end_ns", 0) for v in results.get("variants", [])])
        lo, hi = int(end / 4), int(end / 2)
        zdom = chromium(args.chromium, work, "zoom", "file://" + report + "#zoom=%d-%d" % (lo, hi), "--dump-dom")
        if zdom is not None:
            check_zoom("zoom", zdom, results, lo, hi)

        check_interaction(args.chromium, work, out, results)

        png = os.path.join(work, "screenshot.png")
        chromium(args.chromium, work, "screenshot", "file://" + report, "--hide-scrollbars", "--window-size=1400,3000",
                 "--screenshot=" + png)
        if check(os.path.exists(png), "screenshot: chromium wrote it"):
            check_screenshot(png, args.sparse)

        check_network(args.chromium, work, report, results, trace, variant_traces)

        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            for name in ("out/report.html", "dom.html", "screenshot.png"):
                if os.path.exists(os.path.join(work, name)):
                    shutil.copy(os.path.join(work, name), args.keep)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
