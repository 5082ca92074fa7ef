#!/usr/bin/env bash
# Python lint: the pinned ruff (scripts/requirements-lint.lock) over every Python file of the
# repository, with the rules of ruff.toml (docs/testing.md, "Python lint"). The ctest entry
# python_lint runs it; it never changes a file unless given --fix.
#
#   scripts/lint.sh                 # check the tree; exit 1 on any violation
#   scripts/lint.sh --fix           # extra arguments go to `ruff check` (--fix, --diff, --statistics)
#   scripts/lint.sh --install       # only make the environment (scripts/setup.sh does), print ruff's path
#
# ruff lives in a virtual environment outside the clone, keyed by the lock file's hash (ruff's
# wheel is one static binary, the same for every Python), beside the worker's:
#   ${FUSESCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fusescope}/lint-<key>
# The first use creates it (pip, about 4 s); FUSESCOPE_BOOTSTRAP_PYTHON picks the interpreter.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
lock="$root/scripts/requirements-lint.lock"
key=$(sha256sum "$lock" | cut -c1-16)
cache=${FUSESCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fusescope}
venv="$cache/lint-$key"
ruff="$venv/bin/ruff"

if [ ! -f "$venv/.complete" ]; then
    python_bin=${FUSESCOPE_BOOTSTRAP_PYTHON:-python3}
    echo "lint.sh: creating the lint environment $venv ($(grep -E '^[A-Za-z]' "$lock" | paste -sd' '))" >&2
    rm -rf "$venv"
    mkdir -p "$cache"
    "$python_bin" -m venv "$venv"
    "$venv/bin/python" -m pip install -q -r "$lock"
    touch "$venv/.complete"
fi

if [ "${1:-}" = --install ]; then
    echo "$ruff"
    exit 0
fi

# From the root with `.`: ruff.toml applies and the paths it prints are relative to the root.
# --no-cache: nothing is written into the source tree (the whole check takes well under a second).
cd "$root"
exec "$ruff" check --no-cache "$@" .
