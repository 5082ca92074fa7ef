#!/usr/bin/env bash
# Installs the release .deb (scripts/setup.sh package) into a clean Debian 12 root and runs it
# there against a Python environment of the user's (docs/packaging.md):
#
#   scripts/test-deb-install.sh PYTHON [ROOT]
#
# PYTHON: an interpreter with torch, e.g. ~/.cache/fusescope/venv-*/bin/python. Its environment
# (sys.prefix) is bind-mounted read-only at /opt/user-venv in the root and its base interpreter
# (sys.base_prefix) at its own path, so the root sees the user's torch but not the build tree.
# ROOT (default /var/tmp/fusescope-debroot) is made with debootstrap --variant=minbase bookworm
# when missing (~2 min and ~200 MB here), then reused; apt inside it installs what the .deb
# depends on. Needs root (chroot, mount). Not in CI: it needs a Debian mirror and root, and takes
# ~20 s with an existing root (~2 min with debootstrap).
# FUSESCOPE_DEB_TEST_ENV: extra VAR=VALUE words for every command in the root (e.g. an
# LD_LIBRARY_PATH, docs/packaging.md).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 PYTHON [ROOT]" >&2; exit 64; }
python=$1
target=${2:-/var/tmp/fusescope-debroot}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
log() { printf '\033[1m[deb-test]\033[0m %s\n' "$*" >&2; }

deb=$(ls "$repo"/build/release/fusescope_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "error: no build/release/fusescope_*.deb; run scripts/setup.sh package" >&2; exit 1; }
venv=$("$python" -c 'import sys; print(sys.prefix)')
base=$("$python" -c 'import sys; print(sys.base_prefix)')

if [ ! -x "$target/usr/bin/apt-get" ]; then
    command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
    log "debootstrap --variant=minbase bookworm $target"
    debootstrap --variant=minbase bookworm "$target" http://deb.debian.org/debian >/dev/null
fi

mounted=()
cleanup() {
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() { # bind SOURCE TARGET_IN_ROOT [ro]
    mkdir -p "$target$2"
    mount --bind "$1" "$target$2"
    mounted+=("$target$2")
    [ "${3:-}" != ro ] || mount -o remount,bind,ro "$target$2"
}
mount -t proc proc "$target/proc" && mounted+=("$target/proc")
bind /dev /dev
mount -t devpts devpts "$target/dev/pts" && mounted+=("$target/dev/pts")
bind "$venv" /opt/user-venv ro
[ "$base" = /usr ] || bind "$base" "$base" ro
cp /etc/resolv.conf "$target/etc/resolv.conf"
cp "$deb" "$target/tmp/fusescope.deb"
# The LibTorch runner's package, when the build made one (optional: it needs the user's libtorch).
runner_deb=$(ls "$repo"/build/release/fusescope-libtorch-runner_*.deb 2>/dev/null | head -1 || true)
debs=(/tmp/fusescope.deb)
if [ -n "$runner_deb" ]; then
    cp "$runner_deb" "$target/tmp/fusescope-libtorch-runner.deb"
    debs+=(/tmp/fusescope-libtorch-runner.deb)
fi
in_root() {
    chroot "$target" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive \
        ${FUSESCOPE_DEB_TEST_ENV:-} "$@"
}

log "installing $(basename "$deb") ${runner_deb:+and $(basename "$runner_deb") }and their dependencies with apt"
in_root apt-get update -qq
in_root apt-get install -y -qq --no-install-recommends "${debs[@]}" >/dev/null

status=0
log "ldd: every library from the system"
for bin in /usr/bin/fusescope /usr/bin/fusescope-cli; do
    if in_root ldd "$bin" | grep -E "not found|/opt/user-venv|/\.cache/|/work/|venv"; then
        echo "error: $bin resolves the libraries above from outside the system" >&2
        status=1
    fi
done
py=/opt/user-venv/bin/python
log "fusescope-cli backends --python $py"
in_root fusescope-cli backends --python "$py" | tee "$repo/build/release/deb-install-backends.txt" || status=1
log "fusescope-cli compare demo:mlp --backends eager --python $py"
in_root fusescope-cli compare demo:mlp --backends eager --python "$py" --warmup 1 --min-runs 5 --max-time 5 \
    --out /tmp/r.fscope -q || status=1
log "fusescope --help (off-screen)"
in_root env QT_QPA_PLATFORM=offscreen fusescope --help >/dev/null || status=1
log "fusescope off-screen: the report and a screenshot"
if in_root env QT_QPA_PLATFORM=offscreen fusescope --python "$py" /tmp/r.fscope --screenshot /tmp/shot.png; then
    cp "$target/tmp/shot.png" "$repo/build/release/deb-install-shot.png"
    log "screenshot: build/release/deb-install-shot.png"
else
    status=1
fi
log "mime type of .fscope: $(in_root sh -c 'grep -h fscope /usr/share/mime/globs2 2>/dev/null || echo "not registered"')"
[ "$status" = 0 ] && log "passed" || log "FAILED"
exit "$status"
