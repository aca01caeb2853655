#!/bin/sh
# Runs a command under a private virtual X display (Debian's VTK renders offscreen through GLX
# only). `xvfb-run -a` alone races with other xvfb-run calls started at the same moment (both pick
# the first free number, one server then dies under the other's client), so the search starts at
# a number drawn from this shell's process id.
set -eu
start=$((100 + $$ % 800))
exec xvfb-run -a -n "$start" -s "-screen 0 1280x1024x24 -nolisten tcp -noreset" "$@"
