#!/usr/bin/python3
"""Renders a RackTwin report in headless Chromium and checks it against its HDF5 files.

Usage:
  check_report.py --racktwin BIN --out DIR (--scenario YAML [--scenario YAML] | --result H5 ...
                  | --sweep-of YAML | --sweep YAML) [--duration S] [--screenshot PNG] [--units si|us] [--tamper]

With --scenario the scenario is run first (racktwin run), with --sweep-of a small sweep of that
base scenario is run (racktwin sweep), with --sweep that sweep file; two results make a
comparison.
Then `racktwin report` writes the page, Chromium (fresh profile, no network) loads it, dumps the
DOM after the page script ran and takes a screenshot, and this script checks, independently of
RackTwin's reader (h5py):
  - the page logged no error (window errors and console.error, collected from the first script);
  - every figure drew: the library reports every trace the page gave it, with points, the SVG has
    marks, every scatter trace of more than one finite point has a drawn line;
  - every number cell that names a summary key holds the file's value (exactly, as data-si) and
    shows it (the displayed text within its rounding of data-shown);
  - every trace that names the dataset it was drawn from spans the same range as the dataset
    reduced the same way (min-max decimation keeps the extremes), in the display unit it names;
  - the energy-flow diagram balances at every node that passes energy on;
  - the CDU figure shows every CDU of up to 8, else the 8 whose return ran hottest, hottest first;
  - the power tree's bars are its 40 most loaded elements at most, each at its highest record;
  - the design limits by kind are the file's /limits grouped here, and the headroom and limits
    tables show the groups and limits of least margin in the order derived here, with a note
    counting the rest exactly when rows are left out; a comparison's headroom shows the groups of
    least margin in either file, with both files' margins;
  - headline conversions: the maximum GPU temperature in degC is the summary's kelvin - 273.15;
  - the screenshot is a real picture (not blank).
Exits 1 listing every problem.
"""
import argparse
import html
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import h5py
import numpy as np

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  "--run-all-compositor-stages-before-draw", "--virtual-time-budget=10000",
                  "--hide-scrollbars", "--enable-logging=stderr", "--v=0"]


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit("failed (%d): %s\n%s%s" % (result.returncode, " ".join(command), result.stdout,
                                             result.stderr))
    return result


# Headless Chromium now and then never exits on a loaded machine (seen once in a run of the
# whole suite, with another browser and a simulation beside it); the same page then loaded in
# seconds.
# A page that hangs the browser hangs it every time, so a hang is retried in a fresh profile and
# fails the check only when every attempt hangs.
RENDER_ATTEMPTS = 3
RENDER_TIMEOUT_S = 100


def render(page, screenshot, height):
    """Loads the page in a fresh headless Chromium: the DOM after the scripts ran, and stderr."""
    chromium = os.environ.get("RACKTWIN_CHROMIUM", "chromium")
    for attempt in range(1, RENDER_ATTEMPTS + 1):
        profile = tempfile.mkdtemp(prefix="racktwin-report-test-")
        try:
            command = [chromium] + CHROMIUM_FLAGS + [
                "--user-data-dir=" + profile, "--window-size=1400,%d" % height,
                "--screenshot=" + os.path.abspath(screenshot), "--dump-dom",
                "file://" + os.path.abspath(page) + "#check"]
            try:
                result = subprocess.run(command, capture_output=True, text=True,
                                        timeout=RENDER_TIMEOUT_S,
                                        env=dict(os.environ, DBUS_SESSION_BUS_ADDRESS="disabled:"))
            except subprocess.TimeoutExpired:
                print("chromium did not finish %s within %d s (attempt %d of %d)"
                      % (page, RENDER_TIMEOUT_S, attempt, RENDER_ATTEMPTS), file=sys.stderr)
                continue
            if result.returncode != 0:
                sys.exit("chromium failed (%d): %s" % (result.returncode, result.stderr[-2000:]))
            return result.stdout, result.stderr
        finally:
            shutil.rmtree(profile, ignore_errors=True)
    sys.exit("chromium did not finish %s within %d s in %d attempts"
             % (page, RENDER_TIMEOUT_S, RENDER_ATTEMPTS))


def png_size(path):
    """(width, height) of a PNG file, or None when it is not one."""
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def decode_summary(f):
    text = f.attrs.get("summary_json")
    if text is None:
        return {}
    if isinstance(text, bytes):
        text = text.decode()
    return json.loads(text)


def reduce(f, meta, times):
    """The dataset a trace names, reduced as the trace says, in SI (None when not checkable)."""
    source, reduction = meta.get("source", ""), meta.get("reduction", "")
    if not source.startswith("/") or source not in f:
        return None
    values = f[source][:]
    if values.ndim == 1:
        values = values.reshape(-1, 1)
    if reduction == "column":
        return values[:, int(meta.get("column", 0))]
    if reduction == "row_max":
        return values.max(axis=1)
    if reduction == "row_min":
        return values.min(axis=1)
    if reduction == "row_sum":
        return values.sum(axis=1)
    if reduction == "row_quantile":
        return np.quantile(values, float(meta["q"]), axis=1)
    if reduction == "group_max":
        ids = [s.decode() if isinstance(s, bytes) else s for s in f[source.rsplit("/", 1)[0] + "/ids"][:]]
        rack = meta["group"]
        columns = [k for k, i in enumerate(ids) if "/".join(i.split("/")[:2]) == rack]
        return values[:, columns].max(axis=1)
    return None


class Checker:
    def __init__(self):
        self.problems = []

    def fail(self, text):
        self.problems.append(text)

    def close(self, what, got, expected, rel=1e-9, abs_=1e-9):
        if not (abs(got - expected) <= max(abs_, rel * abs(expected))):
            self.fail("%s: report %r, file %r" % (what, got, expected))


def check_page(dom, stderr, results, sweep, units, checker):
    match = re.search(r'<pre id="render-check">(.*?)</pre>', dom, re.S)
    if not match or not match.group(1).strip():
        checker.fail("the page script did not finish (no render check)")
        return
    status = json.loads(html.unescape(match.group(1)))
    for error in status.get("errors", []):
        checker.fail("page error: %s" % error)
    for line in stderr.splitlines():
        if "CONSOLE" in line and ("Error" in line or "error" in line):
            checker.fail("console: %s" % line[-300:])
    if not status.get("done"):
        checker.fail("the page script did not finish drawing")
    data_match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', dom, re.S)
    figures = json.loads(data_match.group(1))["figures"] if data_match else []
    if len(status.get("plots", [])) != len(figures) or not figures:
        checker.fail("%d figures in the data, %d checked" % (len(figures), len(status.get("plots", []))))
    for plot, figure in zip(status.get("plots", []), figures):
        name = plot["id"]
        if len(plot["traces"]) != plot["expected_traces"]:
            checker.fail("%s: the library holds %d of %d traces" % (name, len(plot["traces"]), plot["expected_traces"]))
        if plot["drawn"] <= 0:
            checker.fail("%s: nothing drawn" % name)
        if plot.get("ink", 0.0) < 0.005:
            checker.fail("%s: its picture is blank (%.4f of the pixels drawn)" % (name, plot.get("ink", 0.0)))
        lines = sum(1 for t in plot["traces"] if t["type"] == "scatter" and t["range"].get("n", 0) > 1)
        if plot["scatter_lines_drawn"] < lines:
            checker.fail("%s: %d of %d lines drawn" % (name, plot["scatter_lines_drawn"], lines))
        for trace in plot["traces"]:
            if trace["points"] <= 0:
                checker.fail("%s: trace %s has no points" % (name, trace["name"]))
        for trace in figure["data"]:
            if trace.get("type") == "sankey":
                check_sankey(trace, checker, name)
    # Traces against their datasets.
    for figure in figures:
        for trace in figure["data"]:
            meta = trace.get("meta") or {}
            if trace.get("type") != "scatter" or "y" not in trace:
                continue
            ys = [y for y in trace["y"] if isinstance(y, (int, float)) and math.isfinite(y)]
            if not ys:
                continue
            path = results[0] if meta.get("file", "a") == "a" else results[-1]
            with h5py.File(path, "r") as f:
                si = reduce(f, meta, None)
            if si is None:
                continue
            shown = si * float(meta.get("scale", 1.0)) + float(meta.get("offset", 0.0))
            what = "%s %s (%s, %s)" % (figure["id"], trace.get("name"), meta.get("source"), meta.get("reduction"))
            checker.close(what + " max", max(ys), float(np.nanmax(shown)), rel=1e-9, abs_=1e-9)
            checker.close(what + " min", min(ys), float(np.nanmin(shown)), rel=1e-9, abs_=1e-9)
    # Number cells that name a summary key hold the file's value.
    summaries = []
    for path in results:
        with h5py.File(path, "r") as f:
            summaries.append(decode_summary(f))
    checked = 0
    cells = re.findall(r'<td class="num[^"]*" data-key="([^"]+)"( data-si="([^"]+)")?( data-shown="([^"]+)")?>([^<]*)</td>', dom)
    if not cells and not sweep:
        checker.fail("no summary numbers on the page")
    if sweep:
        with h5py.File(results[0], "r") as f:
            for key, _, si, _, shown, text in cells:
                key = html.unescape(key)
                if not si:
                    continue
                # HDF5 names cannot hold '/': a key's dataset name is percent-encoded
                # (docs/capacity.md), '%' as %25 and '/' as %2F.
                link = "metrics/" + key.replace("%", "%25").replace("/", "%2F")
                column = f[link][:] if link in f else []
                if not any(float(si) == float(v) for v in column):
                    checker.fail("sweep %s: page %s is no case's value" % (key, si))
                checked += 1
    for key, _, si, _, shown, text in cells:
        key = html.unescape(key)
        values = [s[key] for s in summaries if key in s]
        if sweep:
            continue
        if not values:
            checker.fail("the page shows a key %s that no file holds" % key)
            continue
        if si:
            if not any(v is not None and float(si) == float(v) for v in values):
                checker.fail("%s: page %s, file %s" % (key, si, values))
            checked += 1
        elif any(v is not None for v in values) and len(values) == 1:
            checker.fail("%s: the file's value is not on the page" % key)
        if shown:
            number = html.unescape(text).split(" ")[0].replace(",", "")
            try:
                printed = float(number)
            except ValueError:
                checker.fail("%s: shows %r" % (key, text))
                continue
            tolerance = 0.51 * 10 ** (-len(number.split(".")[1])) if "." in number and "e" not in number else 0.006 * abs(float(shown)) + 0.51
            if "e" in number:
                tolerance = 0.006 * abs(float(shown))
            checker.close(key + " as shown", printed, float(shown), rel=0, abs_=tolerance)
    # The records integrated by the report agree with the summary's energies and PUE.
    table = re.search(r'<table class="records-vs-summary">(.*?)</table>', dom, re.S)
    if not sweep and len(results) == 1:
        rows = []
        if table:
            rows = re.findall(r'<tr(?: class="warn")?><td>([^<]*)</td><td class="num" data-si="([^"]+)"[^>]*>[^<]*</td>'
                              r'<td class="num" data-key="[^"]*" data-si="([^"]+)"', table.group(1))
        if not rows:
            checker.fail("no table of the records against the summary")
        # A row that disagrees must say so on the page (class warn and the note naming it).
        flagged = re.findall(r'<tr class="warn"><td>([^<]*)</td>', table.group(1)) if table else []
        note = re.search(r'<p class="note" id="records-disagree">([^<]*)</p>', dom)
        for label, a, b in rows:
            if label in flagged and note and label in note.group(1):
                continue
            checker.close("%s from the records" % label, float(a), float(b), rel=1e-6, abs_=1e-9)
    # A run that checked design limits shows their headroom, read from its /limits.
    for summary in (summaries if not sweep else []):
        if (summary.get("design_limits_checked") or 0) > 0 and "holds no design limits" in dom:
            checker.fail("the summary checked %g design limits, the page says the result holds none"
                         % summary["design_limits_checked"])
    # The design-limit tables against the file's /limits and /headroom, ordered here.
    if not sweep and len(results) == 1:
        check_limits(dom, results[0], checker)
    if sweep:
        check_sweep_units(dom, figures, results[0], checker)
    if not sweep and len(results) == 2:
        check_compared_headroom(dom, results, checker)
    if not sweep and len(results) == 1:
        check_cdus_shown(figures, results[0], checker)
        check_tree_bars(figures, results[0], checker)
    # The hottest junction in degC (degF) is the summary's kelvin converted here, independently.
    peaks = [x.get("max_gpu_temperature_K") for x in summaries] if not sweep else []
    peaks = [p for p in peaks if p is not None]
    if peaks:
        shown = [s for k, _, si, _, s, t in cells if k == "max_gpu_temperature_K" and s]
        expected = [p - 273.15 if units == "si" else (p - 273.15) * 9 / 5 + 32 for p in peaks]
        if not shown:
            checker.fail("the maximum GPU temperature is not shown")
        for value in shown:
            if not any(abs(float(value) - e) <= 1e-12 * abs(e) for e in expected):
                checker.fail("max GPU temperature: report %s, file %s" % (value, expected))
    return checked


US_GALLON_L = 3.785411784
TON_W = 3516.8528420667


def from_si(unit, v):
    """An SI summary value in the unit a header or an axis names (None: a unit this does not know).
    Written here, not taken from the report: kelvin, watts, joules, fractions, seconds; a
    dimensionless item has no unit."""
    table = {
        "": lambda x: x,
        "°C": lambda x: x - 273.15,
        "°F": lambda x: (x - 273.15) * 9 / 5 + 32,
        "W": lambda x: x,
        "kW": lambda x: x / 1e3,
        "MW": lambda x: x / 1e6,
        "ton": lambda x: x / TON_W,
        "kWh": lambda x: x / 3.6e6,
        "MWh": lambda x: x / 3.6e9,
        "%": lambda x: x * 100,
        "s": lambda x: x,
        "L/kWh": lambda x: x,
        "gal/kWh": lambda x: x / US_GALLON_L,
    }
    return table[unit](v) if unit in table else None


def unit_of_title(title):
    """The unit in a header or axis title's closing parentheses, "" when it ends without one."""
    match = re.search(r"\(([^()]*)\)$", html.unescape(title).strip())
    return match.group(1) if match else ""


def check_sweep_units(dom, figures, path, checker):
    """Every number of the sweep's case table and metric figures, converted here from the file's SI
    value into the unit its column header or axis names: a header that names another unit than
    its cells (kW over MW, degC over degF) fails."""
    section = dom[dom.find('<h2 id="cases"'):]
    section = section[:section.find("</table>")]
    headers = [html.unescape(h) for h in re.findall(r"<th>([^<]*)</th>", section)]
    checked = 0
    with h5py.File(path, "r") as f:
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", section, re.S):
            cells = re.findall(r"<td([^>]*)>([^<]*)</td>", row)
            if len(cells) != len(headers):
                continue
            for header, (attributes, text) in zip(headers, cells):
                si = re.search(r'data-si="([^"]+)"', attributes)
                if not si or not text.strip():
                    continue
                unit = unit_of_title(header)
                wanted = from_si(unit, float(si.group(1)))
                if wanted is None:
                    checker.fail("sweep table: unknown unit %r in %r" % (unit, header))
                    continue
                number = html.unescape(text).split(" ")[0].replace(",", "")
                decimals = len(number.split(".")[1]) if "." in number and "e" not in number else None
                tolerance = 0.51 * 10 ** -decimals if decimals is not None else 0.006 * abs(wanted)
                checker.close("sweep table %s" % header, float(number), wanted, rel=0, abs_=tolerance)
                checked += 1
        for figure in figures:
            traces = [t for t in figure["data"] if (t.get("meta") or {}).get("reduction") == "sweep"]
            if not traces:
                continue
            title = figure.get("layout", {}).get("yaxis", {}).get("title", {}).get("text", "")
            unit = unit_of_title(title)
            for trace in traces:
                meta = trace["meta"]
                column = f[meta["source"]][:]
                xs = f[meta["parameter"]][:]
                for x, y in zip(trace["x"], trace["y"]):
                    candidates = [from_si(unit, v) for xv, v in zip(xs, column) if xv == x and math.isfinite(v)]
                    if None in candidates:
                        checker.fail("sweep figure: unknown unit %r in %r" % (unit, title))
                        break
                    if not any(abs(c - y) <= 1e-9 * max(abs(c), 1.0) for c in candidates):
                        checker.fail("sweep figure %r: %s at %s is no case's value in %r" % (title, y, x, unit))
                    checked += 1
    if checked == 0:
        checker.fail("no number of the sweep's table or figures could be checked")


LIMIT_ROWS_SHOWN = 100  # report/src/Limits.hpp
GROUP_ROWS_SHOWN = 50


def table_rows(dom, css_class):
    """The body rows of the page's table of this class: each a list of (attributes, text) cells."""
    table = re.search(r'<table class="%s">(.*?)</table>' % css_class, dom, re.S)
    if not table:
        return None
    rows = []
    for row in re.findall(r'<tr[^>]*>(.*?)</tr>', table.group(1), re.S):
        cells = re.findall(r'<td([^>]*)>(.*?)</td>', row, re.S)
        if cells:
            rows.append([(attrs, html.unescape(re.sub(r'<[^>]+>', '', text))) for attrs, text in cells])
    return rows


def si_of(attrs):
    match = re.search(r'data-si="([^"]+)"', attrs)
    return float(match.group(1)) if match else None


def margin_order(fractions, keys):
    """Row indices by margin fraction, never checked (NaN) last, ties by key (Limits.hpp)."""
    return sorted(range(len(keys)), key=lambda k: (math.isnan(fractions[k]),
                                                    0.0 if math.isnan(fractions[k]) else fractions[k],
                                                    keys[k].encode()))


def same_number(a, b):
    return (a is not None and b is not None
            and (a == b or (math.isnan(a) and math.isnan(b))))


def check_limits(dom, path, checker):
    """The design limits by kind, the headroom and the limits tables hold what the file holds:
    every kind counted, and of the groups and limits the ones with the least margin, in order,
    with the rest counted under the table."""
    with h5py.File(path, "r") as f:
        if "limits/id" not in f:
            return

        def text(name):
            return [v.decode() if isinstance(v, bytes) else str(v) for v in f[name][:]]

        ids, kinds, names, labels = (text("limits/" + c) for c in ("id", "group_kind", "limit", "label"))
        fraction = [float(v) for v in f["limits/worst_margin_fraction"][:]]
        margin = [float(v) for v in f["limits/worst_margin"][:]]
        checked = [float(v) for v in f["limits/checked"][:]]
        groups = text("headroom/group") if "headroom/group" in f else []
        group_fraction = [float(v) for v in f["headroom/worst_margin_fraction"][:]] if groups else []
        group_violations = [float(v) for v in f["headroom/violations"][:]] if groups else []
    n = len(ids)
    # By kind, grouped here from the file.
    expected = {}
    for k in range(n):
        key = (kinds[k], labels[k] or names[k], names[k], labels[k])
        e = expected.setdefault(key, [0, 0, 0, float("nan")])
        e[0] += 1
        if checked[k] > 0 and not math.isnan(fraction[k]):
            e[1] += 1
            e[2] += 1 if margin[k] < 0 else 0
            if math.isnan(e[3]) or fraction[k] < e[3]:
                e[3] = fraction[k]
    rows = table_rows(dom, "limits-by-kind") or []
    shown_kinds = sorted((r[0][1], r[1][1], si_of(r[2][0]), si_of(r[3][0]), si_of(r[4][0]),
                          si_of(r[5][0])) for r in rows)
    want_kinds = sorted((key[0], key[1], float(e[0]), float(e[1]), float(e[2]),
                         None if math.isnan(e[3]) else e[3]) for key, e in expected.items())
    if shown_kinds != want_kinds:
        checker.fail("design limits by kind: page %s, file %s" % (shown_kinds[:5], want_kinds[:5]))
    least = [si_of(r[5][0]) for r in rows]
    numbers = [v for v in least if v is not None]
    if numbers != sorted(numbers) or least[:len(numbers)] != numbers:
        checker.fail("design limits by kind: not in order of least margin: %s" % least)
    # The limits with the least margin, in order, as the file's margins (exact).
    order = margin_order(fraction, ids)
    rows = table_rows(dom, "limits")
    if rows is None:
        checker.fail("no table of design limits")
        return
    shown = min(n, LIMIT_ROWS_SHOWN)
    page_margins = [si_of(r[4][0]) for r in rows]
    want_margins = [margin[k] for k in order[:shown]]
    if len(page_margins) != shown or not all(map(same_number, page_margins, want_margins)):
        checker.fail("design limits: the page shows %d margins %s..., the file's least %d are %s..."
                     % (len(page_margins), page_margins[:3], shown, want_margins[:3]))
    exceeded = sum(1 for k in range(n) if checked[k] > 0 and margin[k] < 0)
    check_rest(dom, "limits-rest", shown, n, exceeded, checker)
    # The groups with the least headroom.
    if groups:
        order = margin_order(group_fraction, groups)
        rows = table_rows(dom, "headroom") or []
        shown = min(len(groups), GROUP_ROWS_SHOWN)
        page_groups = [r[0][1] for r in rows]
        want_groups = [groups[k] for k in order[:shown]]
        if page_groups != want_groups:
            checker.fail("headroom: the page shows %s..., the file's least margins are %s..."
                         % (page_groups[:3], want_groups[:3]))
        check_rest(dom, "headroom-rest", shown, len(groups),
                   sum(1 for v in group_violations if v > 0), checker)


def check_compared_headroom(dom, results, checker):
    """The comparison's headroom: the groups of either file, by the least of their two margins
    (none last, ties by name), the first GROUP_ROWS_SHOWN of them, each with both files' margins."""
    margins = []
    for path in results:
        with h5py.File(path, "r") as f:
            if "headroom/group" not in f:
                return
            groups = [v.decode() if isinstance(v, bytes) else str(v) for v in f["headroom/group"][:]]
            margins.append(dict(zip(groups, (float(v) for v in f["headroom/worst_margin_fraction"][:]))))
    names = sorted(set(margins[0]) | set(margins[1]))
    least = []
    for name in names:
        values = [m[name] for m in margins if name in m and not math.isnan(m[name])]
        least.append(min(values) if values else float("nan"))
    order = margin_order(least, names)
    shown = min(len(names), GROUP_ROWS_SHOWN)
    rows = table_rows(dom, "headroom") or []
    page = [r[0][1] for r in rows]
    want = [names[k] for k in order[:shown]]
    if page != want:
        checker.fail("comparison headroom: the page shows %s..., the files' least margins are %s..."
                     % (page[:3], want[:3]))
    for r in rows:
        for column, m in ((1, margins[0]), (2, margins[1])):
            if r[0][1] in m and not same_number(si_of(r[column][0]), m[r[0][1]]):
                checker.fail("comparison headroom %s: page %s, file %s"
                             % (r[0][1], si_of(r[column][0]), m[r[0][1]]))
    counted = re.search(r'groups with the least margin in either result, of ([0-9,]+)', dom)
    if (shown < len(names)) != bool(counted) or (counted and int(counted.group(1).replace(",", "")) != len(names)):
        checker.fail("comparison headroom: %d of %d groups shown, the note says %s"
                     % (shown, len(names), counted.group(0) if counted else "nothing"))


def check_cdus_shown(figures, path, checker):
    """The CDU temperature figure: every CDU of a site of up to 8, in order; of more, the 8 whose
    return ran hottest, the hottest first (ties in site order)."""
    columns = [t["meta"]["column"] for f in figures for t in f["data"]
               if (t.get("meta") or {}).get("source") == "/cdu/T_return"
               and (t.get("meta") or {}).get("reduction") == "column"]
    with h5py.File(path, "r") as f:
        if "cdu/T_return" not in f:
            return
        T = f["cdu/T_return"][:]
    count = T.shape[1] if T.ndim == 2 else 1
    if count <= 8:
        want = list(range(count))
    else:
        peak = [float(np.nanmax(T[:, k])) if np.any(np.isfinite(T[:, k])) else -math.inf
                for k in range(count)]
        want = sorted(range(count), key=lambda k: (-peak[k], k))[:8]
    if columns != want:
        checker.fail("CDU figure: columns %s, the file's hottest returns give %s" % (columns, want))


def check_tree_bars(figures, path, checker):
    """The power tree's bars: each element's highest record after t = 0, the most loaded first
    (ties in the file's order), 40 of them at most, in % of its rating."""
    bars = [t for f in figures for t in f["data"]
            if (t.get("meta") or {}).get("source") == "/power_tree/utilisation"]
    with h5py.File(path, "r") as f:
        if "power_tree/utilisation" not in f:
            return
        values = f["power_tree/utilisation"][:]
        ids = [v.decode() if isinstance(v, bytes) else str(v) for v in f["power_tree/ids"][:]]
    if len(bars) != 1:
        checker.fail("power tree: %d bar traces" % len(bars))
        return
    peak = [max(values[1:, k]) if values.shape[0] > 1 else -math.inf for k in range(values.shape[1])]
    order = sorted(range(len(peak)), key=lambda k: (-peak[k], k))[:40]
    if bars[0]["y"] != [ids[k] for k in order]:
        checker.fail("power tree bars: %s..., the file's most loaded %s..."
                     % (bars[0]["y"][:3], [ids[k] for k in order][:3]))
    for got, k in zip(bars[0]["x"], order):
        checker.close("power tree bar " + ids[k], got, peak[k] * 100.0, rel=1e-12, abs_=1e-12)


def check_rest(dom, note_id, shown, total, exceeded, checker):
    """The note under a table that leaves rows out: there exactly when it does, with the counts."""
    note = re.search(r'<p class="note" id="%s" data-shown="(\d+)" data-total="(\d+)" '
                     r'data-exceeded="(\d+)">' % note_id, dom)
    if shown == total:
        if note:
            checker.fail("%s: a note of rows left out under a table that shows all %d" % (note_id, total))
        return
    if not note:
        checker.fail("%s: %d of %d rows shown and no note of the rest" % (note_id, shown, total))
        return
    if (int(note.group(1)), int(note.group(2)), int(note.group(3))) != (shown, total, exceeded):
        checker.fail("%s: note says %s shown of %s, %s exceeded; the file gives %d of %d, %d"
                     % (note_id, note.group(1), note.group(2), note.group(3), shown, total, exceeded))


def check_sankey(trace, checker, name):
    labels = trace["node"]["label"]
    link = trace["link"]
    inflow = [0.0] * len(labels)
    outflow = [0.0] * len(labels)
    for s, t, v in zip(link["source"], link["target"], link["value"]):
        if v < 0:
            checker.fail("%s: negative flow %s -> %s" % (name, labels[s], labels[t]))
        outflow[s] += v
        inflow[t] += v
    for node in ("Power tree", "Rack feeds", "IT (power shelves)", "Chips and trays",
                 "PSU and busbar losses", "Heat into coolant and room air"):
        if node in labels:
            k = labels.index(node)
            if inflow[k] > 0 and outflow[k] > 0:
                checker.close("%s: energy into and out of %s" % (name, node), outflow[k], inflow[k], rel=1e-9)


def tamper(page):
    """Spoils a report the ways the checks must catch: a trace scaled by 1 %, a summary value
    changed in its last digits, and a script that logs an error."""
    text = open(page, encoding="utf-8").read()
    match = re.search(r'(<script type="application/json" id="report-data">)(.*?)(</script>)', text, re.S)
    data = json.loads(match.group(2))
    for figure in data["figures"]:
        trace = figure["data"][0]
        if trace.get("type") == "scatter" and (trace.get("meta") or {}).get("source", "").startswith("/"):
            trace["y"] = [y * 1.01 if isinstance(y, (int, float)) else y for y in trace["y"]]
            break
    encoded = json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text[:match.start(2)] + encoded + text[match.end(2):]
    text = re.sub(r'(data-key="max_gpu_temperature_K" data-si=")([0-9.]+)',
                  lambda m: m.group(1) + repr(float(m.group(2)) * (1 + 1e-12)), text, count=1)
    text = text.replace("</body>", "<script>console.error('tampered');</script></body>")
    with open(page, "w", encoding="utf-8") as f:
        f.write(text)


SWEEP = """racktwin_sweep: 1
name: "Racks against the W-class, N and N-1"
base: {base}
parameters:
  - name: racks
    keys: [template.racks_per_row]
    values: [2, 4, 6]
  - name: w_class
    keys: [facility_water.supply_temperature, template.cdu.supply_temperature_setpoint]
    values:
      - [32 degC, 36 degC]
      - [40 degC, 44 degC]
    labels: [W32, W40]
faults:
  at: 900 s
  n_minus_1: [pump]
"""

TAMPER_FINDINGS = ("page error: tampered", ") max: report", "max_gpu_temperature_K: page")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--racktwin", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--scenario", action="append", default=[],
                        help="run this scenario first; twice: compare the two results")
    parser.add_argument("--duration")
    parser.add_argument("--result", action="append", default=[])
    parser.add_argument("--sweep-of")
    parser.add_argument("--sweep", help="run this sweep file (racktwin sweep) and check its report")
    parser.add_argument("--screenshot")
    parser.add_argument("--units", default="si")
    parser.add_argument("--height", type=int, default=2600)
    parser.add_argument("--tamper", action="store_true",
                        help="spoil the report first and pass only when every check catches it")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    results = list(args.result)
    for scenario in args.scenario:
        result = os.path.join(args.out, os.path.splitext(os.path.basename(scenario))[0] + ".h5")
        command = [args.racktwin, "run", scenario, "-o", result, "-q", "--save-state-interval", "0"]
        if args.duration:
            command += ["--duration", args.duration]
        run(command)
        results.append(result)
    if args.sweep_of:
        # A small sweep of the base scenario by `racktwin sweep` (docs/capacity.md): rack count
        # against the W-class, each with and without a CDU pump out.
        sweep_yaml = os.path.join(args.out, "sweep.yaml")
        with open(sweep_yaml, "w") as f:
            f.write(SWEEP.format(base=os.path.abspath(args.sweep_of)))
        sweep_file = os.path.join(args.out, "sweep.h5")
        run([args.racktwin, "sweep", sweep_yaml, "-o", sweep_file, "-j", "2", "-q"])
        results = [sweep_file]
    if args.sweep:
        sweep_file = os.path.join(args.out, "sweep.h5")
        run([args.racktwin, "sweep", args.sweep, "-o", sweep_file, "-j", "2", "-q"])
        results = [sweep_file]
    with h5py.File(results[0], "r") as f:
        kind = f.attrs.get("file_kind", "")
        sweep = (kind.decode() if isinstance(kind, bytes) else kind) == "racktwin sweep"
    page = os.path.join(args.out, "report.html")
    run([args.racktwin, "report"] + results + ["-o", page, "--units", args.units])
    if args.tamper:
        tamper(page)
    screenshot = args.screenshot or os.path.join(args.out, "report.png")
    dom, stderr = render(page, screenshot, args.height)
    checker = Checker()
    checked = check_page(dom, stderr, results, sweep, args.units, checker)
    # The screenshot: a PNG of the window's size; a blank page compresses to a few kilobytes.
    size = png_size(screenshot)
    if size != (1400, args.height) or os.path.getsize(screenshot) < 40000:
        checker.fail("the screenshot %s is not a picture of the page (%s, %d bytes)" % (
            screenshot, size, os.path.getsize(screenshot)))
    for problem in checker.problems:
        print("report check: " + problem)
    if args.tamper:
        missed = [f for f in TAMPER_FINDINGS if not any(f in p for p in checker.problems)]
        for finding in missed:
            print("report check: the spoiled report passed the check for '%s'" % finding)
        print("report check: %d of %d spoilings caught" % (len(TAMPER_FINDINGS) - len(missed),
                                                          len(TAMPER_FINDINGS)))
        return 1 if missed else 0
    if checker.problems:
        print("report check: %d problems (%s)" % (len(checker.problems), page))
        return 1
    print("report check: %s passed (%s summary numbers compared, screenshot %s)" % (
        os.path.basename(results[0]), checked, screenshot))
    return 0


if __name__ == "__main__":
    sys.exit(main())
