#!/bin/sh
# Create the project's virtual environment. Debian's python3 ships without the
# venv module (package python3-venv); install it when we are root, say what to
# do otherwise.
set -eu
python="$1"
venv="$2"
[ -x "$venv/bin/python" ] && exit 0
if "$python" -m venv "$venv" 2>/dev/null; then
    exit 0
fi
rm -rf "$venv"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-venv: installing Debian's python3-venv" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv python3-dev >/dev/null
    "$python" -m venv "$venv"
else
    echo "ensure-venv: '$python -m venv' failed; install your distribution's venv package" >&2
    echo "             (Debian/Ubuntu: sudo apt-get install python3-venv) and run make again" >&2
    exit 1
fi
