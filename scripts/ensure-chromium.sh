#!/bin/sh
# Make sure a Chromium is available for rendering and for the browser tests.
# pressmark never downloads a browser build: it uses the system's Chromium, and
# installs Debian's package when run as root on a Debian-like machine.
set -eu
if [ -n "${PRESSMARK_CHROMIUM:-}" ] && [ -x "$PRESSMARK_CHROMIUM" ]; then
    exit 0
fi
for name in chromium chromium-browser google-chrome; do
    if command -v "$name" >/dev/null 2>&1; then
        exit 0
    fi
done
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-chromium: no Chromium found; installing Debian's chromium package" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    exit 0
fi
cat >&2 <<'MSG'
ensure-chromium: no Chromium found and not root, so nothing was installed.
  Debian/Ubuntu:   sudo apt-get install chromium
  Or point pressmark at any Chromium build:  export PRESSMARK_CHROMIUM=/path/to/chrome
MSG
exit 1
