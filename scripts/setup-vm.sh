#!/usr/bin/env bash
# Installs what `pretouch run --kernel` needs (run as root on Debian 12, as CI does):
# QEMU, busybox (virtme-ng's initramfs), two Debian kernels to compare (the generic
# flavour: the cloud flavour lacks 9p, which virtme-ng shares the root filesystem over),
# and virtme-ng 1.42 in a venv at /opt/virtme-ng (`pretouch` finds /opt/virtme-ng/bin/vng
# by itself; or put it on PATH, or set PRETOUCH_VNG). Skips what is already there.
#
# The tools and each kernel are installed by separate apt-get calls, so that a kernel
# package the archive no longer has (Debian drops old ABI versions) cannot keep QEMU and
# busybox from being installed. Such a kernel is replaced by the newest of the same
# series (6.1, 6.12) that the archive has, saying so. Exits non-zero, naming the step,
# when something could not be installed.
#
# Usage: scripts/setup-vm.sh [KERNEL_PACKAGE...]
#   default kernels: linux-image-6.1.0-57-amd64 linux-image-6.12.117+deb12-amd64
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

VENV=${PRETOUCH_VNG_VENV:-/opt/virtme-ng}
VNG_VERSION=1.42
kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
    kernels=(linux-image-6.1.0-57-amd64 'linux-image-6.12.117+deb12-amd64')
fi

fail() {
    echo "setup-vm: error: $*" >&2
    exit 1
}
installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}
apt_install() {
    apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "$@"
}
# Whether the archive offers a package (a candidate version).
available() {
    apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'
}
# The newest generic-flavour kernel of the series of package $1 the archive offers.
newest_of_series() {
    local series
    series=$(printf '%s\n' "$1" | sed -n 's/^linux-image-\([0-9]*\.[0-9]*\)[.-].*/\1/p')
    [ -n "$series" ] || return 1
    apt-cache search --names-only "^linux-image-${series//./\\.}[.-][0-9][^ ]*-amd64\$" \
        | awk '{print $1}' | grep -v -e '-cloud-amd64$' -e '-rt-amd64$' | sort -V | tail -n 1
}

updated=no
apt_update() {
    if [ "$updated" = no ]; then
        apt-get -o DPkg::Lock::Timeout=600 update -q || fail "apt-get update failed"
        updated=yes
    fi
}

tools=()
for pkg in qemu-system-x86 busybox-static; do
    installed "$pkg" || tools+=("$pkg")
done
python3 -c 'import ensurepip, venv' 2>/dev/null || tools+=(python3-venv)
if [ ${#tools[@]} -gt 0 ]; then
    echo "setup-vm: installing ${tools[*]}"
    apt_update
    apt_install "${tools[@]}" || fail "installing ${tools[*]} failed"
fi

for pkg in "${kernels[@]}"; do
    installed "$pkg" && continue
    apt_update
    if ! available "$pkg"; then
        replacement=$(newest_of_series "$pkg" || true)
        [ -n "$replacement" ] || fail "kernel $pkg is not in the archive, nor any of its series"
        echo "setup-vm: kernel $pkg is no longer in the archive; installing $replacement instead"
        pkg=$replacement
        installed "$pkg" && continue
    fi
    echo "setup-vm: installing kernel $pkg"
    apt_install "$pkg" || fail "installing kernel $pkg failed"
done

if ! "$VENV/bin/vng" --version 2>/dev/null | grep -qx "virtme-ng $VNG_VERSION"; then
    echo "setup-vm: installing virtme-ng $VNG_VERSION in $VENV"
    python3 -m venv "$VENV" || fail "creating the venv $VENV failed"
    "$VENV/bin/pip" install -q "virtme-ng==$VNG_VERSION" || fail "pip install virtme-ng==$VNG_VERSION failed"
fi

echo "setup-vm: $("$VENV/bin/vng" --version), $(qemu-system-x86_64 --version | head -n1)"
if grep -qwE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ]; then
    echo "setup-vm: KVM with hardware virtualization: guests run at native speed"
else
    echo "setup-vm: no hardware virtualization here: guests run under QEMU's TCG emulation" \
         "(about 25x slower; pretouch marks their results EMULATED)"
fi
