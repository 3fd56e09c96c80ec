#!/usr/bin/env bash
# Installs what `pretouch run --kernel` needs (run as root on Debian 12, as CI does):
# QEMU, busybox (virtme-ng's initramfs), two Debian kernels to compare (the generic
# flavour: the cloud flavour lacks 9p, which virtme-ng shares the root filesystem over),
# and virtme-ng 1.42 in a venv at /opt/virtme-ng (`pretouch` finds /opt/virtme-ng/bin/vng
# by itself; or put it on PATH, or set PRETOUCH_VNG). Skips what is already there.
#
# Usage: scripts/setup-vm.sh [KERNEL_PACKAGE...]
#   default kernels: linux-image-6.1.0-57-amd64 linux-image-6.12.117+deb12-amd64
set -euo pipefail

VENV=${PRETOUCH_VNG_VENV:-/opt/virtme-ng}
VNG_VERSION=1.42
kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
    kernels=(linux-image-6.1.0-57-amd64 'linux-image-6.12.117+deb12-amd64')
fi

missing=()
for pkg in qemu-system-x86 busybox-static "${kernels[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    missing+=(python3-venv)
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup-vm: installing ${missing[*]}"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ! "$VENV/bin/vng" --version 2>/dev/null | grep -qx "virtme-ng $VNG_VERSION"; then
    echo "setup-vm: installing virtme-ng $VNG_VERSION in $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "virtme-ng==$VNG_VERSION"
fi

echo "setup-vm: $("$VENV/bin/vng" --version), $(qemu-system-x86_64 --version | head -n1)"
if grep -qwE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ]; then
    echo "setup-vm: KVM with hardware virtualization: guests run at native speed"
else
    echo "setup-vm: no hardware virtualization here: guests run under QEMU's TCG emulation" \
         "(about 25x slower; pretouch marks their results EMULATED)"
fi
