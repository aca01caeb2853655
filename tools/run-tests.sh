#!/usr/bin/env bash
# Quick start, part 2: install what is missing, build (release preset, warnings as errors), run
# every test with ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release "$@"
