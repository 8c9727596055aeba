#!/bin/sh
# Editable install of pressmark with its extras (and any further pip arguments, such as
# `--group dev`). The build compiles the Markdown converter's hot modules with mypyc (a C
# compiler and Python's headers needed); when that fails, say so and install the same
# code as pure Python, which is correct but slower (about a fifth more CPU per page).
set -eu
py="$1"
spec="$2"
shift 2
pip_install() {
    "$py" -m pip install --quiet --disable-pip-version-check -e "$spec" "$@"
}
find src -name '*.so' -delete  # a build from other sources must never shadow these
if ! pip_install "$@"; then
    echo "install-editable: compiling the Markdown modules failed (see above);" \
         "installing them as pure Python (HATCH_BUILD_NO_HOOKS=true)" >&2
    find src -name '*.so' -delete
    HATCH_BUILD_NO_HOOKS=true pip_install "$@"
fi
