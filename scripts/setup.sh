#!/usr/bin/env bash
# FuseScope set-up: installs what is missing, builds, then runs the demo or the tests.
#
#   scripts/setup.sh demo   # set up, build, open the GUI on demo:transformer and run it
#   scripts/setup.sh test   # set up, build, run every test, the ASan unit tests and the fuzz
#                           # smoke (what .ci/run does)
#   scripts/setup.sh build  # set up and build only
#   scripts/setup.sh package  # the release .deb into build/release (preset release, stripped;
#                             # docs/packaging.md), checked to resolve no library from a build
#                             # tree or a virtual environment
#
# Debian packages come from apt (Debian 12 and 13). The Python environment for the capture
# worker lives outside the clone, keyed by the lock file and the interpreter version, so a fresh
# clone on a machine that already has it reuses it:
#   ${FUSESCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fusescope}/venv-<key>
# and beside it the linter's (test and build only; scripts/lint.sh, scripts/requirements-lint.lock):
#   ${FUSESCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fusescope}/lint-<key>
set -euo pipefail

action=${1:-build}
case "$action" in demo|test|build|package) ;; *) echo "usage: $0 demo|test|build|package" >&2; exit 64 ;; esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# Each line carries the seconds since the script started, so a CI log shows where its time went.
log() { printf '\033[1m[setup +%ss]\033[0m %s\n' "$SECONDS" "$*" >&2; }

# --- Debian packages -----------------------------------------------------------------------
packages=(cmake ninja-build g++ pkg-config git
          qt6-base-dev qt6-svg-dev libqcustomplot-dev libqcustomplot2.1-qt6 libgraphviz-dev
          libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev libtomlplusplus-dev
          libgl-dev xvfb xauth clang-format python3-venv)
# The tests' fuzz smoke (scripts/fuzz.sh) builds with clang's libFuzzer and sanitizer runtimes;
# the unversioned names pick clang 14 on Debian 12 and clang 19 on Debian 13. Headless Chromium
# renders the HTML report in tests/e2e/test_html_report.py (docs/html-report.md).
[ "$action" != test ] || packages+=(clang libclang-rt-dev chromium)
# cpack's DEB generator runs dpkg-shlibdeps to name the libraries' packages.
[ "$action" != package ] || packages+=(dpkg-dev file)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    log "installing Debian packages: ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- Python environment --------------------------------------------------------------------
lock="$root/plugins/worker/requirements.lock"
# The torch wheel pinned in the lock is built for CPython 3.11; prefer that interpreter.
python_bin=${FUSESCOPE_BOOTSTRAP_PYTHON:-}
if [ -z "$python_bin" ]; then
    for candidate in python3.11 python3; do
        if command -v "$candidate" >/dev/null; then python_bin=$(command -v "$candidate"); break; fi
    done
fi
[ -n "$python_bin" ] || { echo "error: no python3 found; install python3 (3.11 preferred)" >&2; exit 1; }
pyver=$("$python_bin" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
key=$( (cat "$lock"; echo "$pyver") | sha256sum | cut -c1-16)
cache=${FUSESCOPE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fusescope}
venv="$cache/venv-$key"
if [ ! -f "$venv/.complete" ]; then
    log "creating the Python environment $venv (python $pyver, $(basename "$lock"))"
    rm -rf "$venv"
    mkdir -p "$cache"
    "$python_bin" -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip >/dev/null
    "$venv/bin/python" -m pip install -q -r "$lock"
    touch "$venv/.complete"
else
    log "reusing the Python environment $venv"
fi
export FUSESCOPE_PYTHON="$venv/bin/python"
# The linters of the ctest entries python_lint and cpp_format: ruff and clang-format as
# scripts/requirements-lint.lock pins them, in a small environment of its own (scripts/lint.sh), so
# a new pin never rebuilds the one above.
if [ "$action" = test ] || [ "$action" = build ]; then
    log "the linters (ruff, clang-format): $(FUSESCOPE_BOOTSTRAP_PYTHON="$python_bin" scripts/lint.sh --install)"
fi

# --- Build ---------------------------------------------------------------------------------
if [ "$action" != package ]; then
    log "configuring and building (preset dev)"
    cmake --preset dev -DFUSESCOPE_PYTHON="$FUSESCOPE_PYTHON" >/dev/null
    cmake --build --preset dev
fi

case "$action" in
build)
    log "built: build/dev/app/gui/fusescope and build/dev/app/cli/fusescope-cli"
    ;;
test)
    log "running every test"
    ctest --preset dev --timeout 1800 -j "$(nproc)"
    # The engine's unit tests again under ASan + UBSan (docs/fuzzing.md; FUSESCOPE_ASAN_CORE=0
    # skips them). The whole suite under ASan is the asan preset, too slow for every CI run.
    if [ "${FUSESCOPE_ASAN_CORE:-1}" != 0 ]; then
        log "ASan + UBSan: the engine's unit tests (presets asan, asan-core)"
        cmake --preset asan -DFUSESCOPE_PYTHON="$FUSESCOPE_PYTHON" >/dev/null
        cmake --build --preset asan-core
        ctest --preset asan-core --timeout 1800 -j "$(nproc)"
    fi
    # The fuzz smoke (docs/fuzzing.md): each libFuzzer target for FUSESCOPE_FUZZ_SECONDS
    # (default 30; 0 skips it), after replaying the checked-in reproducers.
    fuzz_seconds=${FUSESCOPE_FUZZ_SECONDS:-30}
    if [ "$fuzz_seconds" != 0 ]; then
        log "fuzz smoke: ${fuzz_seconds} s per target"
        scripts/fuzz.sh "$fuzz_seconds"
    fi
    log "every test passed"
    ;;
package)
    # FUSESCOPE_PYTHON's torch is only for building the LibTorch runner; the binaries default to
    # python3 and take the user's interpreter with --python (docs/packaging.md).
    log "configuring and building (preset release, ${FUSESCOPE_JOBS:-$(nproc)} jobs)"
    cmake --preset release -DFUSESCOPE_PYTHON="$FUSESCOPE_PYTHON" >/dev/null
    cmake --build --preset release -j "${FUSESCOPE_JOBS:-$(nproc)}"
    rel="$root/build/release"
    rm -f "$rel"/fusescope_*.deb "$rel"/fusescope-libtorch-runner_*.deb
    (cd "$rel" && cpack -G DEB >/dev/null)
    version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$rel/CPackConfig.cmake")
    arch=$(dpkg --print-architecture)
    deb="$rel/fusescope_${version}_${arch}.deb"
    [ -f "$deb" ] || { echo "error: cpack made no $deb" >&2; exit 1; }
    # The LibTorch runner, split out of the staging tree by packaging/split-runner.cmake: a
    # package of its own, since it needs the libtorch of the user's Python at run time.
    if [ -x "$rel/runner-stage/usr/lib/fusescope/fusescope-libtorch-runner" ]; then
        stage="$rel/runner-stage"
        strip --strip-unneeded "$stage/usr/lib/fusescope/fusescope-libtorch-runner"
        mkdir -p "$stage/DEBIAN"
        cat >"$stage/DEBIAN/control" <<CONTROL
Package: fusescope-libtorch-runner
Version: $version
Architecture: $arch
Maintainer: FuseScope developers
Depends: fusescope (= $version), libc6, libstdc++6, libgomp1
Section: devel
Priority: optional
Description: FuseScope's LibTorch runner (torchscript, torchscript_nnc, aot_inductor)
 Runs TorchScript and AOTInductor packages in a process of its own. It loads libtorch from the
 torch of the Python environment FuseScope is given (--python), which must be the torch release
 it was built against.
CONTROL
        dpkg-deb --root-owner-group --build "$stage" "$rel/fusescope-libtorch-runner_${version}_${arch}.deb" >/dev/null
    fi
    # Off the build machine nothing may come from the build tree or a virtual environment.
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    dpkg-deb -x "$deb" "$scratch"
    bad=0
    for bin in "$scratch"/usr/bin/*; do
        if readelf -d "$bin" | grep -Eq '\((RPATH|RUNPATH)\)'; then
            echo "error: $(basename "$bin") has an RPATH: $(readelf -d "$bin" | grep -E 'RPATH|RUNPATH')" >&2
            bad=1
        fi
        if ldd "$bin" | grep -E "not found|$root|/\.cache/|venv"; then
            echo "error: $(basename "$bin") resolves the libraries above from outside the system" >&2
            bad=1
        fi
    done
    [ "$bad" = 0 ] || exit 1
    log "built $(ls "$rel"/*.deb | tr '\n' ' ')"
    log "every library of usr/bin/* resolves from the system (ldd); install test: scripts/test-deb-install.sh"
    ;;
demo)
    gui="$root/build/dev/app/gui/fusescope"
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
        log "opening FuseScope on demo:transformer"
        exec "$gui" demo:transformer --run
    fi
    shot="$root/build/demo.png"
    log "no display: running the demo under Xvfb and saving a screenshot to $shot"
    xvfb-run -a -s "-screen 0 1600x900x24" "$gui" demo:transformer --run --screenshot "$shot"
    log "screenshot: $shot (on a desktop, the same command opens the window)"
    ;;
esac
