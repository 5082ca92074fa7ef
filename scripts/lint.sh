#!/usr/bin/env bash
# Lint (docs/testing.md, "Lint"), with the linters scripts/requirements-lint.lock pins:
#   python: ruff over every Python file of the repository, with the rules of ruff.toml;
#   cpp:    clang-format --dry-run -Werror over every tracked C++ file, with .clang-format.
# The ctest entries python_lint and cpp_format run them; neither changes a file unless asked.
#
#   scripts/lint.sh                 # both checks; exit 1 on any violation
#   scripts/lint.sh python [ARGS]   # ruff only; ARGS go to `ruff check` (--fix, --diff, --statistics)
#   scripts/lint.sh cpp [--fix]     # clang-format only; --fix formats the files in place
#   scripts/lint.sh --install       # only make the environment (scripts/setup.sh does), print ruff's path
#
# The linters live in a virtual environment outside the clone, keyed by the lock file's hash (ruff's
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

cd "$root"

# From the root with `.`: ruff.toml applies and the paths it prints are relative to the root.
# --no-cache: nothing is written into the source tree (the whole check takes well under a second).
python_lint() {
    "$ruff" check --no-cache "$@" .
}

# Every C++ file git knows or would add (tracked, and new files not ignored: a file not yet added
# is formatted by --fix before its first commit; build trees stay out through .gitignore);
# without git (a source tarball) the folders that hold C++.
cpp_files() {
    if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        git -C "$root" ls-files -z --cached --others --exclude-standard -- '*.cpp' '*.h'
    else
        find app bench core plugins tests ui \( -name '*.cpp' -o -name '*.h' \) -print0
    fi
}

cpp_format() {
    local clang_format="$venv/bin/clang-format"
    if [ "${1:-}" = --fix ]; then
        cpp_files | xargs -0 "$clang_format" -i
        return
    fi
    # --dry-run -Werror: each file off .clang-format is an error naming the file and line.
    cpp_files | xargs -0 "$clang_format" --dry-run -Werror || return 1
}

case "${1:-}" in
    python) shift; python_lint "$@" ;;
    cpp) shift; cpp_format "$@" ;;
    "") status=0
        python_lint || status=1
        cpp_format || status=1
        exit $status ;;
    *) echo "lint.sh: unknown argument '$1' (python, cpp, --install)" >&2; exit 2 ;;
esac
