#!/usr/bin/env bash
# Installs the Debian 12 packages RackTwin needs, and only those that are missing.
# Idempotent: a second run installs nothing. Needs root (or sudo) for apt-get.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libboost-dev libboost-graph-dev libeigen3-dev
  libhdf5-dev hdf5-tools
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev
  catch2
  python3-h5py python3-numpy
  # The VTK scene library and the desktop program (Debian's VTK Qt module is Qt5-only, so the
  # program hosts VTK in a Qt6 QOpenGLWidget itself; docs/ARCHITECTURE.md).
  libvtk9-dev qt6-base-dev libqt6opengl6-dev qt6-charts-dev
  # Headless windows and software OpenGL for the GUI tests and `racktwin render`.
  xvfb xauth libgl1-mesa-dri
  # The libFuzzer targets (tools/fuzz.sh): clang and its fuzzer/sanitizer runtimes.
  clang libclang-rt-14-dev
  # `racktwin report`: plotly.js inlined into every report (python3-plotly ships it), and headless
  # Chromium for --pdf and for the tests that render each report and look at what it drew.
  python3-plotly chromium
  # The PDF test reads what --pdf printed with an independent reader (pdfinfo, pdftotext).
  poppler-utils
  # CFD characterisation runs OpenFOAM's programs as child processes.
  openfoam
  # racktwin sweep over MPI ranks (mpirun, srun): Open MPI distributes the cases; a scheduler of
  # our own over sockets would have to re-create launching, placement and Slurm integration.
  # HDF5 stays the serial library (.ci/run checks).
  openmpi-bin libopenmpi-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
echo "setup: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
