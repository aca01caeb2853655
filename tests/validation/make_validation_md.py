#!/usr/bin/python3
"""Writes docs/validation.md from the validation tests' own results.

Usage:
  make_validation_md.py --tests BIN... --version TEXT --out FILE [--check COMMITTED.md]

Runs each test program with the Catch tag [validation] and RACKTWIN_VALIDATION_RECORD set, so the
tests append what they compared (tests/common/ValidationRecord.hpp), and writes the page: per
component, each case with its reference (and the docs/references/ page of its numbers and
source), the tolerance the test holds and the worst error it reached. With --check the page is
written to FILE and compared with the committed one: the same rows (components, cases,
references, tolerances) must stand in both, and every error must be within its tolerance; the
errors' digits may differ from machine to machine and are not compared. Exits 1 on a difference.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HEADER = """# Validation

What RackTwin's models have been checked against, with the numbers the checks reached. This page
is generated from the validation tests' own results, not typed in: each test tagged
`[validation]` records its case, its independent reference, its tolerance and the worst error it
reached when it runs (tests/common/ValidationRecord.hpp). Regenerate it with

```sh
cmake --build build/release --target validation-report
```

and the test `validation_report_current` fails when the committed page no longer lists what the
tests check. The references, their numbers and where they come from are in
[docs/references/](references/README.md). Errors are the largest over the case's comparisons:
absolute in the unit given, or relative (a fraction of the reference value).

{version}

"""


def records(tests, folder):
    path = os.path.join(folder, "records.jsonl")
    env = dict(os.environ, RACKTWIN_VALIDATION_RECORD=path)
    for test in tests:
        result = subprocess.run([test, "[validation]"], env=env, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit("validation tests failed: %s\n%s" % (test, result.stdout[-3000:]))
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def number(value, unit, relative):
    text = "%.2g" % value if value != 0 else "0"
    if relative:
        return text + " (relative)"
    return text + ("" if unit in ("", "1") else " " + unit)


def page(rows, version):
    out = HEADER.format(version=version)
    components = sorted({r["component"] for r in rows})
    for component in components:
        out += "## %s\n\n" % component
        out += "| case | reference | tolerance | error reached | test |\n|---|---|---|---|---|\n"
        for r in sorted((r for r in rows if r["component"] == component), key=lambda r: r["case"]):
            out += "| %s | %s ([numbers and source](references/%s)) | %s | %s | `%s` |\n" % (
                r["case"], r["reference"], r["page"], number(r["tolerance"], r["unit"], r["relative"]),
                number(r["error"], r["unit"], r["relative"]), r["test"])
        out += "\n"
    return out


def row_keys(text):
    """The rows of a page without their errors: component, case, reference, tolerance."""
    keys, component = set(), None
    for line in text.splitlines():
        if line.startswith("## "):
            component = line[3:]
        elif line.startswith("| ") and not line.startswith("| case") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            keys.add((component, cells[0], cells[1], cells[2]))
    return keys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", nargs="+", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--check")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="racktwin-validation-") as folder:
        rows = records(args.tests, folder)
    problems = []
    for r in rows:
        if not (r["error"] <= r["tolerance"]):
            problems.append("%s, %s: error %g above its tolerance %g" % (
                r["component"], r["case"], r["error"], r["tolerance"]))
        references = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                                  "references", r["page"])
        if not os.path.isfile(references):
            problems.append("%s: docs/references/%s is missing" % (r["case"], r["page"]))
    text = page(rows, args.version)
    with open(args.out, "w") as f:
        f.write(text)
    if args.check:
        with open(args.check) as f:
            committed = row_keys(f.read())
        generated = row_keys(text)
        for key in sorted(generated - committed, key=str):
            problems.append("not in %s: %s" % (args.check, " | ".join(k or "" for k in key)))
        for key in sorted(committed - generated, key=str):
            problems.append("in %s but no test records it: %s" % (args.check, " | ".join(k or "" for k in key)))
    for p in problems:
        print("validation report: " + p)
    if problems:
        print("validation report: regenerate with `cmake --build build/release --target validation-report`")
        return 1
    print("validation report: %d cases of %d components, every error within its tolerance" % (
        len(rows), len({r["component"] for r in rows})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
