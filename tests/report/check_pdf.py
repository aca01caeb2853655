#!/usr/bin/python3
"""Checks `racktwin report --pdf` with an independent PDF reader (poppler's pdfinfo, pdftotext).

Usage: check_pdf.py --racktwin BIN --out DIR --scenario YAML

Runs the scenario, prints its report to PDF through headless Chromium, and checks that:
  - the file is a PDF of at least one page whose title names the scenario's site;
  - its text holds the verdict and the hottest GPU junction in degC, computed here from the
    result's summary (kelvin - 273.15), to the digits the page shows;
  - when the browser fails (RACKTWIN_CHROMIUM=/bin/false) or is missing, the command exits
    non-zero with a message, leaves an earlier PDF of the same name unchanged and no .partial.
Exits 1 listing every problem.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import h5py


def run(command, env=None):
    return subprocess.run(command, capture_output=True, text=True, env=env)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--racktwin", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--scenario", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    result = os.path.join(args.out, "run.h5")
    page = os.path.join(args.out, "report.html")
    pdf = os.path.join(args.out, "report.pdf")
    for path in (result, page, pdf):
        if os.path.exists(path):
            os.remove(path)
    problems = []

    done = run([args.racktwin, "run", args.scenario, "-q", "--save-state-interval", "0",
                "-o", result])
    if done.returncode != 0:
        sys.exit("racktwin run failed: " + done.stderr)
    with h5py.File(result, "r") as f:
        summary = json.loads(f.attrs["summary_json"])
        site = f.attrs["site_name"]
    done = run([args.racktwin, "report", result, "-o", page, "--pdf", pdf])
    if done.returncode != 0:
        sys.exit("racktwin report --pdf failed: " + done.stderr)

    with open(pdf, "rb") as f:
        head = f.read(5)
    if head != b"%PDF-":
        problems.append("%s does not start with %%PDF-" % pdf)
    info = run(["pdfinfo", pdf])
    if info.returncode != 0:
        problems.append("pdfinfo cannot read %s: %s" % (pdf, info.stderr.strip()))
    else:
        fields = dict(line.split(":", 1) for line in info.stdout.splitlines() if ":" in line)
        pages = int(fields.get("Pages", "0").strip() or 0)
        if pages < 1:
            problems.append("the PDF has %d pages" % pages)
        if site not in fields.get("Title", ""):
            problems.append("the PDF's title %r does not name the site %r"
                            % (fields.get("Title", "").strip(), site))
    text = run(["pdftotext", "-layout", pdf, "-"]).stdout
    if "Verdict" not in text:
        problems.append("the PDF's text has no verdict section")
    T = summary.get("max_gpu_temperature_K")
    if T is not None:
        expected = T - 273.15
        shown = [float(x) for x in re.findall(r"(-?\d+(?:\.\d+)?)\s*°C", text)]
        # The page shows four significant digits: within half a unit of the last one.
        if not any(abs(x - expected) <= 0.5 * 10 ** (len(str(int(abs(expected)))) - 4)
                   for x in shown):
            problems.append("the PDF shows no GPU junction of %.4f degC (numbers before degC: %s)"
                            % (expected, shown[:10]))

    # A failing or missing browser: an error, the earlier PDF kept, nothing half-written.
    with open(pdf, "rb") as f:
        before = f.read()
    for browser in ("/bin/false", os.path.join(args.out, "no-such-chromium")):
        env = dict(os.environ, RACKTWIN_CHROMIUM=browser)
        failed = run([args.racktwin, "report", result, "-o", page, "--pdf", pdf], env=env)
        if failed.returncode == 0:
            problems.append("report --pdf with RACKTWIN_CHROMIUM=%s exited 0" % browser)
        if not failed.stderr.strip():
            problems.append("report --pdf with RACKTWIN_CHROMIUM=%s printed no error" % browser)
        with open(pdf, "rb") as f:
            if f.read() != before:
                problems.append("report --pdf with RACKTWIN_CHROMIUM=%s changed the earlier PDF"
                                % browser)
        if os.path.exists(pdf + ".partial"):
            problems.append("report --pdf with RACKTWIN_CHROMIUM=%s left %s.partial"
                            % (browser, pdf))

    for problem in problems:
        print(problem)
    if problems:
        return 1
    print("%s: PDF checked (%s)" % (pdf, args.scenario))
    return 0


if __name__ == "__main__":
    sys.exit(main())
