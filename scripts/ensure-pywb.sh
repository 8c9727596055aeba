#!/bin/sh
# pywb for the WARC fidelity tests (tests/integration/test_warc_fidelity.py): a real replay
# tool must replay the store's pages. pywb pins old dependencies, so it gets a virtual
# environment of its own, never ours: ~/.cache/pressmark-test/pywb, where the tests look
# (or $PRESSMARK_PYWB, a pywb bin directory of your own: then nothing is installed).
# Idempotent: once installed (the stamp names the version), a run checks one file.
# Concurrent runs (several checkouts) take turns.
# Not installable (no network): says so and exits 0, unless CI is set (then the tests
# would fail, not skip, so fail here first with the reason).
set -eu
python="$1"
version="2.10.0"
if [ -n "${PRESSMARK_PYWB:-}" ] && [ -x "$PRESSMARK_PYWB/wayback" ]; then
    exit 0
fi
venv="$HOME/.cache/pressmark-test/pywb"
stamp="$venv/.pressmark-pywb-$version"
[ -f "$stamp" ] && [ -x "$venv/bin/wayback" ] && exit 0
mkdir -p "$(dirname "$venv")"
install() {
    [ -f "$stamp" ] && [ -x "$venv/bin/wayback" ] && return 0  # another run just did it
    echo "ensure-pywb: installing pywb $version into $venv (once)" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv" &&
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            "pywb==$version" &&
        "$venv/bin/wb-manager" --help >/dev/null &&
        touch "$stamp"
}
if command -v flock >/dev/null 2>&1; then
    exec 9>"$venv.lock"
    flock 9
fi
if ! install; then
    rm -rf "$venv"
    case "${CI:-}" in ""|0|false|False|FALSE) ci= ;; *) ci=1 ;; esac
    if [ -n "$ci" ]; then
        echo "ensure-pywb: could not install pywb $version (see above); CI needs it" >&2
        exit 1
    fi
    echo "ensure-pywb: could not install pywb $version (see above); the two pywb tests" \
         "will skip (CI=true makes that a failure)" >&2
fi
