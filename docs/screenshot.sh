#!/bin/sh
# Takes a screenshot of a GTKWave session, as an engineer opening it sees it.
#
#   docs/screenshot.sh SESSION.gtkw OUT.png
#
# Opens SESSION.gtkw (with its VCD next to it) in GTKWave on a virtual X
# server of 1600x900 (the window size the session asks for), waits until
# GTKWave has drawn it, captures the screen with ImageMagick's `import` and
# exits. GTKWave runs with its default settings (HOME is a scratch
# directory), so the picture does not depend on the caller's ~/.gtkwaverc.
#
# Needs: gtkwave, xvfb-run (Debian: xvfb), import (Debian: imagemagick).
# Gives up after 60 seconds.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 SESSION.gtkw OUT.png" >&2
    exit 2
fi
for tool in gtkwave xvfb-run import; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "$0: $tool is not installed" >&2
        exit 1
    fi
done

abs() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd)" "$(basename "$1")"); }
session=$(abs "$1")
out=$(abs "$2")
[ -f "$session" ] || { echo "$0: no such file: $1" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/home"

# GTKWave runs this Tcl script every 300 ms once its main loop is up; the
# third run comes after the window has its size and the session's zoom and
# marker are drawn, and says so by creating a file.
cat >"$work/ready.tcl" <<EOF
if {![info exists ::runs]} { set ::runs 0 }
incr ::runs
if {\$::runs == 3} { close [open {$work/ready} w] }
EOF

cat >"$work/shoot.sh" <<'EOF'
# Inside the virtual X server: $1 session, $2 output, $3 scratch directory.
gtkwave -R "$3/ready.tcl" -P 300 "$1" >"$3/gtkwave.log" 2>&1 &
pid=$!
i=0
while [ ! -e "$3/ready" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "gtkwave exited before drawing:" >&2
        cat "$3/gtkwave.log" >&2
        exit 1
    fi
    i=$((i + 1))
    if [ "$i" -gt 500 ]; then
        echo "gtkwave did not draw within 50 s" >&2
        kill "$pid"
        exit 1
    fi
    sleep 0.1
done
sleep 0.5
import -window root "$2"
kill "$pid"
wait "$pid" 2>/dev/null || true
EOF

HOME="$work/home" timeout -k 5 60 \
    xvfb-run -a -s "-screen 0 1600x900x24" sh "$work/shoot.sh" "$session" "$out" "$work"
echo "$out"
