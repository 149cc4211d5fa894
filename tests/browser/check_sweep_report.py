#!/usr/bin/env python3
"""Opens a sweep's report.html in headless Chromium and checks what a reader would get.

    check_sweep_report.py GPUVP SCENARIO [--set KEY=V1,V2 ...] [--chromium PATH] [--keep DIR]

Runs `GPUVP sweep SCENARIO --set ... -j 2 --out <tmp>` (by default the two axes
policy.lock=priority,spin and platform.sm.lock_hold_limit=32,256, for lock-contention.yaml: its
spin points fail), then
  (a) --dump-dom: the DOM Chromium built has a chart per kernel of the points' results.json,
      metric and axis (and the run's, and each warp priority's of locks.csv), each with a circle
      per point that has the value, the failing points (sweep.csv's exit_code) marked, a line
      per combination of the other axes; and the table has a row per row of sweep.csv;
  (b) --screenshot at 1400x2400: the picture is not blank (many colours, part of it not white,
      coloured lines and points);
  (c) with the network made unusable and a net log: the page made no http/https/ws request;
      and a static scan of report.html for external references.
Exit 0 when every check holds, 1 otherwise (each failure is printed). The DOM, Chromium and
network helpers are check_report.py's.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # (no __pycache__ in the source tree)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_report as cr  # noqa: E402  (the run report's checker: parse_dom, chromium, the network checks)

check = cr.check
METRICS = ("dispatch_latency_ns", "launch_latency_ns", "response_ns", "turnaround_ns")
DEFAULT_SETS = ["policy.lock=priority,spin", "platform.sm.lock_hold_limit=32,256"]


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# --- (a) the DOM ---------------------------------------------------------------------------

def check_chart(label, svg, points, failing):
    """One chart: a circle per point that has the value, the failing ones marked, its lines."""
    circles = svg.find_all("circle", cls="sweep-point")
    ids = sorted(int(c.attrs["data-point"]) for c in circles)
    check(ids == sorted(points), "%s: a circle per point (%d)" % (label, len(points)))
    marked = sorted(int(c.attrs["data-point"]) for c in circles if c.attrs.get("data-failed") == "true")
    check(marked == sorted(p for p in points if p in failing), "%s: the failing points marked (%s)" % (label, marked))
    lines = int(svg.attrs.get("data-lines", "0"))
    paths = svg.find_all("path", cls="sweep-line")
    check(len(paths) == lines, "%s: a line per combination of the other axes (%d)" % (label, lines))
    if lines > 1:
        check(len(svg.find_all("g", cls="legend-item")) == lines, "%s: the legend names every line" % label)
    text = svg.all_text()
    check(("(ns)" in text or "(µs)" in text) and "_ns (" not in text, "%s: the value axis names its unit" % label)


def check_dom(label, dom_text, axes, npoints, kernels, priorities, rows, failing):
    """`priorities`: each warp priority of the points' locks, to the points that have it."""
    dom = cr.parse_dom(dom_text)
    check(len(dom_text) > 5000, "%s: the DOM is not empty (%d bytes)" % (label, len(dom_text)))
    points = list(range(npoints))
    header = dom.find_all("td", id="sweep-points")
    if check(len(header) == 1, "%s: the header counts the points" % label):
        check(header[0].attrs.get("data-points") == str(len(points)), "%s: %d points in the header" % (label, len(points)))
        check(header[0].attrs.get("data-failed") == str(len(failing)), "%s: %d failed in the header" % (label, len(failing)))
    listed = sorted(int(li.attrs["data-point"]) for li in dom.find_all("li") if "data-point" in li.attrs)
    check(listed == sorted(failing), "%s: every failing point listed with its reason (%s)" % (label, listed))
    charts = dom.find_all("svg", cls="sweep-chart")
    expected = len(kernels) * len(METRICS) * len(axes) + len(axes) + len(priorities) * len(axes)
    check(len(charts) == expected, "%s: %d charts (got %d)" % (label, expected, len(charts)))
    for k in kernels:
        for m in METRICS:
            for a in axes:
                c = dom.find_all("svg", cls="sweep-chart", data_kernel=k, data_metric=m, data_axis=a)
                if check(len(c) == 1, "%s: a chart of kernel %s, %s against %s" % (label, k, m, a)):
                    check_chart("%s: %s %s against %s" % (label, k, m, a), c[0], points, failing)
    for a in axes:
        c = dom.find_all("svg", cls="sweep-chart", data_subject="run", data_axis=a)
        if check(len(c) == 1, "%s: the run's end against %s" % (label, a)):
            check_chart("%s: sim_end_ns against %s" % (label, a), c[0], points, failing)
        for p in priorities:
            c = dom.find_all("svg", cls="sweep-chart", data_priority=p, data_axis=a)
            if check(len(c) == 1, "%s: priority %s's lock wait against %s" % (label, p, a)):
                check_chart("%s: priority %s lock wait against %s" % (label, p, a), c[0], priorities[p], failing)
    groups = dom.find_all("details", cls="sweep-group")
    check(len(groups) == expected // len(axes) and all(g.attrs.get("open") is not None for g in groups),
          "%s: the charts in open <details> groups, one per subject and metric (%d)" % (label, len(groups)))
    table = dom.find_all("table", id="sweep-table")
    if check(len(table) == 1, "%s: the table is there" % label):
        trs = table[0].find_all("tr", cls="sweep-row")
        check(len(trs) == len(rows), "%s: a table row per row of sweep.csv (%d, got %d)" % (label, len(rows), len(trs)))
        fails = [t for t in trs if "fail" in t.classes()]
        check(len(fails) == sum(1 for r in rows if r["exit_code"] != "0"), "%s: the failing rows marked" % label)
        check(all("FAIL" in t.all_text() or "did not run" in t.all_text() for t in fails),
              "%s: the failing rows say why" % label)
    check("made by gpuvp" in dom.all_text().lower(), "%s: the note at the bottom" % label)


# --- (b) the screenshot --------------------------------------------------------------------

def check_screenshot(png):
    """Line charts have less colour than the run's page: lower bounds, the same checks."""
    cr.check_screenshot(png, size=(1400, 2400), thresholds=(100, 0.04, 0.002))


# --- (c) the network -----------------------------------------------------------------------

def check_network(binary, work, report):
    bad = os.path.join(work, "bad.html")
    with open(bad, "w") as f:
        f.write('<!DOCTYPE html><html><body><img src="http://example.com/x.png">'
                '<link rel="stylesheet" href="https://cdn.example.org/a.css"><p>x</p></body></html>')
    log = os.path.join(work, "bad-netlog.json")
    cr.chromium(binary, work, "net-detector", "file://" + bad, *cr.NO_NETWORK, "--log-net-log=" + log, "--dump-dom")
    seen, _ = cr.page_requests(log) if os.path.exists(log) else ([], [])
    check(any(u.startswith("http://example.com") for u in seen) and any(u.startswith("https://cdn.example.org") for u in seen),
          "no network: the net-log check sees a page's http and https requests (%d seen)" % len(seen))
    log = os.path.join(work, "netlog.json")
    cr.chromium(binary, work, "no-network", "file://" + report, *cr.NO_NETWORK, "--log-net-log=" + log, "--dump-dom")
    if check(os.path.exists(log), "no network: chromium wrote its net log"):
        urls, internal = cr.page_requests(log)
        check(not urls, "no network: the report made no http/https/ws request (%s)" % (", ".join(urls[:5]) or "none")
              + "; the browser's own background requests, not the page's: %d" % len(internal))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("gpuvp")
    ap.add_argument("scenario")
    ap.add_argument("--set", action="append", dest="sets", help="an axis KEY=V1,V2 (repeatable; default: %s)" % DEFAULT_SETS)
    ap.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser") or "chromium")
    ap.add_argument("--keep", help="copy the page, the DOM and the screenshot into this folder")
    args = ap.parse_args()
    sets = args.sets or DEFAULT_SETS

    work = tempfile.mkdtemp(prefix="gpuvp-browser-sweep-")
    try:
        out = os.path.join(work, "out")
        env = dict(os.environ, SC_COPYRIGHT_MESSAGE="DISABLE")
        cmd = [args.gpuvp, "sweep", args.scenario, "-j", "2", "--quiet", "--out", out]
        for s in sets:
            cmd += ["--set", s]
        r = subprocess.run(cmd, capture_output=True, env=env, timeout=600)
        print(r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace"), end="")
        report = os.path.join(out, "report.html")
        if not check(r.returncode in (0, 1) and os.path.exists(report),
                     "gpuvp sweep %s wrote report.html (exit %d)" % (args.scenario, r.returncode)):
            return 1
        axes = [s.split("=", 1)[0] for s in sets]
        rows = read_csv(os.path.join(out, "sweep.csv"))
        # The points in order (their axis values), which failed, their kernels and lock priorities.
        points = []
        for row in rows:
            key = tuple(row[a] for a in axes)
            if key not in points:
                points.append(key)
        failing = sorted({points.index(tuple(row[a] for a in axes)) for row in rows if row["exit_code"] != "0"})
        kernels, priorities = [], {}
        for i in range(len(points)):
            with open(os.path.join(out, "point-%d" % i, "results.json")) as f:
                res = json.load(f)
            for k in res.get("kernels", []):
                if k["name"] not in kernels:
                    kernels.append(k["name"])
            for p in res.get("locks", {}).get("by_priority", {}):
                priorities.setdefault(p, []).append(i)
        print("      %d points (%d failing), kernels %s, lock priorities %s" % (len(points), len(failing), kernels,
                                                                                 sorted(priorities)))
        with open(report, encoding="utf-8") as f:
            text = f.read()
        refs = cr.static_references(text)
        check(not refs, "static scan: no external reference in report.html (%s)" % (", ".join(refs[:5]) or "none"))

        dom = cr.chromium(args.chromium, work, "dom", "file://" + report, "--dump-dom")
        if dom is not None:
            check_dom("dom", dom, axes, len(points), kernels, priorities, rows, failing)
            with open(os.path.join(work, "dom.html"), "w") as f:
                f.write(dom)

        png = os.path.join(work, "screenshot.png")
        cr.chromium(args.chromium, work, "screenshot", "file://" + report, "--hide-scrollbars", "--window-size=1400,2400",
                    "--screenshot=" + png)
        if check(os.path.exists(png), "screenshot: chromium wrote it"):
            check_screenshot(png)

        check_network(args.chromium, work, report)

        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            for name in ("out/report.html", "out/sweep.csv", "dom.html", "screenshot.png"):
                if os.path.exists(os.path.join(work, name)):
                    shutil.copy(os.path.join(work, name), args.keep)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d check(s) failed" % len(cr.failures) if cr.failures else "all checks passed")
    return 1 if cr.failures else 0


if __name__ == "__main__":
    sys.exit(main())
