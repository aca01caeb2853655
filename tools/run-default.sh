#!/usr/bin/env bash
# Quick start, part 1: install what is missing, build (release preset), run the default scenario.
# Writes out/nvl72-rack.h5 and out/nvl72-rack.summary.json; prints the summary table.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
mkdir -p out
build/release/cli/racktwin run scenarios/nvl72-rack.yaml -o out/nvl72-rack.h5 \
  --summary-json out/nvl72-rack.summary.json
