#!/bin/bash
# A REAL campaign (`pretouch run --boot kexec`, or with BOOT=reboot `--boot reboot`) inside a QEMU guest.
#
# Builds (once, cached under /var/tmp/pretouch-kexec-vm/) a Debian bookworm guest image
# with systemd as init, kexec-tools, OpenJDK 17 and two kernels (6.1.0-57-amd64 and
# 6.12.118+deb12-amd64), then copies it, puts the given pretouch binary in it with a
# first-boot unit that starts
#   pretouch run /root/m.yaml --kernel 6.1.0-57-amd64 --kernel 6.12.118+deb12-amd64 \
#       --runs 2 --boot kexec --yes --results /var/lib/pretouch-results
# and boots the copy under QEMU (TCG: no KVM here) with an i6300esb watchdog, the 6.12
# kernel and the guest's own initramfs given directly (-kernel/-initrd). The campaign
# then kexecs 6.1, 6.12, 6.1, 6.12 inside the guest and at its end reboots the default
# kernel (QEMU's reset boots the -kernel 6.12 again); once that boot is up, QEMU is
# stopped. The results, the start log, the guest's journal and the serial log (each
# line stamped with the host's UTC time) are then copied out of the image into
#   /var/tmp/pretouch-kexec-vm/out-UTC/
# Every boot prints a "=== BOOTMARK" line and `pretouch campaign status` on the serial
# console.
#
# BOOT=reboot runs the same campaign with `--boot reboot` (grub-reboot, then a reboot)
# instead: the base filesystem is copied into the one partition (from 1 MiB) of an MBR
# disk, grub-pc installed in it (GRUB_DEFAULT=saved, GRUB on the serial console,
# console=ttyS0 panic=30 on every entry's command line, the saved default the 6.12
# entry), cached as /var/tmp/pretouch-kexec-vm/base-grub.img; QEMU then boots the disk
# itself (SeaBIOS -> GRUB -> the entry grub-reboot chose, or the saved default), and
# each guest reboot is QEMU's reset. Every boot also prints `grub-editenv list`
# ("=== GRUBENV").
#
# Usage: sudo scripts/kexec-chain-vm.sh [PRETOUCH_BINARY]
#   PRETOUCH_BINARY  default target/release/pretouch of this checkout (copied at the start)
#   RUNS=N           runs of each kernel (default 2; a campaign's own default is 3)
#   GCS="g1 parallel"  the matrix's collectors (default g1; the cover letter's are
#                    g1 and parallel)
#   REPETITIONS=N    the matrix's rounds (default 1: a check that the chain works; more
#                    make the runs long against the boots, for the campaign's own cost)
#   TIMEOUT=SECONDS  how long the guest may run (default 7200)
#   SMP=N            the guest's vCPUs (default 1; TCG runs each in a host thread of its
#                    own, so more than the host's cores only adds contention)
#   PREALLOC=1       QEMU -mem-prealloc: the guest's memory is all backed by the host
#                    before it boots, as a real machine's is, instead of faulted in
#                    from the host at the guest's first touch of each page (default 0)
#   REBUILD=1        rebuild the cached base image
#   WATCHDOG=R,K     arm the i6300esb through systemd: RuntimeWatchdogSec=R and
#                    KExecWatchdogSec=K (systemd spells it so; e.g. WATCHDOG=30s,2min); default: not armed
#   BROKEN=root      a failure test instead: the matrix's `kernels:` are 6.1, 6.12 and
#                    a 6.12 with root=/dev/nope (its initramfs gives up and reboots by
#                    panic=30, QEMU's reset boots the default kernel), --runs 1
#   BROKEN=hang      the same with a 6.12 that hangs: init=/usr/bin/cat (blocks on the
#                    console forever; the watchdog's driver is not in the initramfs, so
#                    only a watchdog armed across the kexec, WATCHDOG=..., resets it)
#   TRACE_SYSTEMCTL=1  a /usr/local/sbin/systemctl wrapper in the guest logs every call
#                    (and where its stderr goes) to /var/log/systemctl-trace.log
#   APPEND="..."     more parameters on the first boot's command line, which the
#                    campaign hands on to every kernel it kexecs (e.g. APPEND=
#                    watchdog.stop_on_reboot=0: the kernel otherwise stops a watchdog
#                    such as i6300esb at kexec, whatever KExecWatchdogSec= armed)
#   KEEP_IMAGE=1     keep the run's disk image (default: removed, the results copied)
#   STOP_AT=N        a `pretouch campaign stop` test: once step N's run is under way (and
#                    STOP_DELAY seconds, default 10, later), a unit in the guest runs
#                    `pretouch campaign stop`, then reboots the guest, which should come
#                    up on the default kernel with nothing of the campaign left (give
#                    REPETITIONS=10 or so, for a run long enough to be stopped in)
#   BOOT=kexec|reboot  how the campaign boots its kernels (default kexec); reboot needs
#                    sfdisk (apt-get install fdisk) and takes no APPEND=; with it,
#                    BROKEN=root is the campaign of 6.1 and 6.12 as usual, but the run
#                    image's GRUB entry for 6.1 has root=/dev/nope rootdelay=5 (its
#                    initramfs gives up, panic=30 reboots, GRUB boots its saved default)
# Never kexecs or reboots this machine: every kexec and reboot is the guest's.
set -euo pipefail

BIN=${1:-$(cd "$(dirname "$0")/.." && pwd)/target/release/pretouch}
REPETITIONS=${REPETITIONS:-1}
RUNS=${RUNS:-2}
GCS=${GCS:-g1}
CACHE=/var/tmp/pretouch-kexec-vm
TIMEOUT=${TIMEOUT:-7200}
SMP=${SMP:-1}
PREALLOC=${PREALLOC:-0}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECURITY=${SECURITY:-http://deb.debian.org/debian-security}
K1=6.1.0-57-amd64
K2=6.12.118+deb12-amd64
BASE=$CACHE/base.img
BOOT=${BOOT:-kexec}
GRUBIMG=$CACHE/base-grub.img
# The partition of the GRUB disk starts at 1 MiB.
PART_OFFSET=1048576
LOOPDEV=
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$CACHE/out-$STAMP
RUNIMG=$CACHE/run-$STAMP.img
BMNT=$CACHE/mnt-base
MNT=$CACHE/mnt-$STAMP

log() { printf '%s kexec-chain-vm: %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$OUT/timings.txt" >&2; }

[ "$(id -u)" = 0 ] || { echo "needs root (loop mounts, debootstrap)" >&2; exit 2; }
case "$BOOT" in
    kexec) ;;
    reboot)
        # A reboot boots GRUB's entries with their own command lines: neither a broken
        # kernel's command line nor APPEND= reaches them.
        case "${BROKEN:-}" in
            ''|root) ;;
            *) echo "BOOT=reboot takes BROKEN=root only" >&2; exit 2 ;;
        esac
        [ -z "${APPEND:-}" ] || { echo "APPEND= is for BOOT=kexec only" >&2; exit 2; }
        command -v sfdisk >/dev/null || { echo "missing sfdisk (apt-get install fdisk)" >&2; exit 2; } ;;
    *) echo "BOOT must be kexec or reboot, not $BOOT" >&2; exit 2 ;;
esac
for tool in debootstrap qemu-system-x86_64 mkfs.ext4; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install debootstrap qemu-system-x86 e2fsprogs)" >&2; exit 2; }
done
mkdir -p "$CACHE" "$OUT" "$MNT" "$BMNT"
# The binary may change under us: copy it first.
cp "$BIN" "$OUT/pretouch"
log "pretouch binary: $BIN ($(sha256sum "$OUT/pretouch" | cut -c1-16)), output in $OUT"

umount_all() {
    for d in "$BMNT" "$MNT"; do
        for m in dev/pts dev proc sys; do
            mountpoint -q "$d/$m" && umount "$d/$m" || true
        done
        mountpoint -q "$d" && umount "$d" || true
    done
    if [ -n "$LOOPDEV" ]; then
        partx -d "$LOOPDEV" 2>/dev/null || true
        losetup -d "$LOOPDEV" || true
        LOOPDEV=
    fi
    return 0
}
# Mounts the run's image: the filesystem itself (kexec), or its disk's partition (reboot).
mount_image() {
    if [ "$BOOT" = reboot ]; then
        mount -o loop,offset=$PART_OFFSET "$1" "$2"
    else
        mount -o loop "$1" "$2"
    fi
}
cleanup() {
    [ -f "$OUT/qemu.pid" ] && kill "$(cat "$OUT/qemu.pid")" 2>/dev/null || true
    umount_all
    rmdir "$MNT" 2>/dev/null || true
}
trap cleanup EXIT

in_chroot() {
    chroot "$BMNT" env DEBIAN_FRONTEND=noninteractive LC_ALL=C PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

build_base() {
    local t0=$SECONDS
    log "building the base image $BASE (debootstrap from $MIRROR)"
    rm -f "$BASE.tmp"
    truncate -s 6G "$BASE.tmp"
    mkfs.ext4 -q -F -L pretouch-root "$BASE.tmp"
    mount -o loop "$BASE.tmp" "$BMNT"
    debootstrap --variant=minbase \
        --include=systemd-sysv,udev,kmod,initramfs-tools,procps,debconf \
        bookworm "$BMNT" "$MIRROR" > "$OUT/debootstrap.log" 2>&1 \
        || { tail -30 "$OUT/debootstrap.log" >&2; exit 1; }
    mount --bind /dev "$BMNT/dev"; mount --bind /dev/pts "$BMNT/dev/pts"
    mount -t proc proc "$BMNT/proc"; mount -t sysfs sys "$BMNT/sys"
    cat > "$BMNT/etc/apt/sources.list" <<EOF
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb $SECURITY bookworm-security main
EOF
    # kexec-tools must NOT take over reboots: its kexec-load would load /vmlinuz at
    # every shutdown, over the campaign's own `kexec -l` and the final reboot.
    echo "kexec-tools kexec-tools/load_kexec boolean false" | in_chroot debconf-set-selections
    echo "kexec-tools kexec-tools/use_grub_config boolean false" | in_chroot debconf-set-selections
    in_chroot apt-get update > "$OUT/apt.log" 2>&1
    in_chroot apt-get install -y --no-install-recommends \
        kexec-tools openjdk-17-jre-headless "linux-image-$K1" "linux-image-$K2" \
        >> "$OUT/apt.log" 2>&1 || { tail -30 "$OUT/apt.log" >&2; exit 1; }
    in_chroot apt-get clean
    printf 'LOAD_KEXEC=false\nUSE_GRUB_CONFIG=false\n' > "$BMNT/etc/default/kexec"
    echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" > "$BMNT/etc/fstab"
    echo pretouch-kexec > "$BMNT/etc/hostname"
    printf '127.0.0.1 localhost\n127.0.1.1 pretouch-kexec\n' > "$BMNT/etc/hosts"
    # The journal kept on disk (read afterwards) and copied to the serial console.
    mkdir -p "$BMNT/var/log/journal" "$BMNT/etc/systemd/journald.conf.d"
    printf '[Journal]\nStorage=persistent\nForwardToConsole=yes\nTTYPath=/dev/ttyS0\nMaxLevelConsole=info\n' \
        > "$BMNT/etc/systemd/journald.conf.d/console.conf"
    grep -q '^MODULES=most' "$BMNT/etc/initramfs-tools/initramfs.conf" || echo "warning: initramfs MODULES is not most" >&2
    ls -la "$BMNT/boot" > "$OUT/guest-boot.txt"
    cp "$BMNT/boot/vmlinuz-$K2" "$CACHE/vmlinuz-$K2"
    cp "$BMNT/boot/initrd.img-$K2" "$CACHE/initrd.img-$K2"
    umount_all
    mv "$BASE.tmp" "$BASE"
    log "base image built in $((SECONDS - t0)) s"
}

# The base filesystem in the partition of an MBR disk that boots by GRUB (BOOT=reboot).
build_grub() {
    local t0=$SECONDS part uuid
    log "building the GRUB disk image $GRUBIMG from $BASE"
    rm -f "$GRUBIMG.tmp"
    truncate -s $(( $(stat -c %s "$BASE") + PART_OFFSET )) "$GRUBIMG.tmp"
    printf 'label: dos\nstart=%s, type=83, bootable\n' $((PART_OFFSET / 512)) \
        | sfdisk -q "$GRUBIMG.tmp"
    dd if="$BASE" of="$GRUBIMG.tmp" bs=1M seek=$((PART_OFFSET / 1048576)) conv=sparse,notrunc status=none
    LOOPDEV=$(losetup -P --show -f "$GRUBIMG.tmp")
    part=${LOOPDEV}p1
    for _ in $(seq 20); do [ -b "$part" ] && break; sleep 0.1; done
    # Some kernels do not scan the loop device's table at losetup -P: ask for it.
    [ -b "$part" ] || partx -a "$LOOPDEV"
    for _ in $(seq 20); do [ -b "$part" ] && break; sleep 0.1; done
    [ -b "$part" ] || { echo "no partition device $part" >&2; exit 1; }
    uuid=$(blkid -s UUID -o value "$part")
    mount "$part" "$BMNT"
    mount --bind /dev "$BMNT/dev"; mount --bind /dev/pts "$BMNT/dev/pts"
    mount -t proc proc "$BMNT/proc"; mount -t sysfs sys "$BMNT/sys"
    # No device to install to at the package's own configuration: grub-install is run
    # below, on the loop device.
    echo "grub-pc grub-pc/install_devices multiselect" | in_chroot debconf-set-selections
    echo "grub-pc grub-pc/install_devices_empty boolean true" | in_chroot debconf-set-selections
    in_chroot apt-get update > "$OUT/apt-grub.log" 2>&1
    in_chroot apt-get install -y --no-install-recommends grub-pc >> "$OUT/apt-grub.log" 2>&1 \
        || { tail -30 "$OUT/apt-grub.log" >&2; exit 1; }
    in_chroot apt-get clean
    cat > "$BMNT/etc/default/grub" <<'EOF'
# pretouch kexec-chain-vm.sh, BOOT=reboot: grub-reboot's one-shot entry over a saved
# default, GRUB and the kernels on the serial console, panic=30 as a way back.
GRUB_DEFAULT=saved
GRUB_TIMEOUT=1
GRUB_DISTRIBUTOR=Debian
GRUB_CMDLINE_LINUX_DEFAULT=""
GRUB_CMDLINE_LINUX="console=ttyS0 panic=30"
GRUB_TERMINAL=serial
GRUB_SERIAL_COMMAND="serial --unit=0 --speed=115200"
GRUB_DISABLE_OS_PROBER=true
EOF
    in_chroot grub-install --target=i386-pc --modules="part_msdos ext2" "$LOOPDEV" >> "$OUT/apt-grub.log" 2>&1 \
        || { tail -30 "$OUT/apt-grub.log" >&2; exit 1; }
    in_chroot update-grub >> "$OUT/apt-grub.log" 2>&1 || { tail -30 "$OUT/apt-grub.log" >&2; exit 1; }
    # grub-mkconfig names the root by UUID only where /dev/disk/by-uuid has it, which
    # this host (no udev) has not: it wrote the loop partition instead.
    sed -i -E "s#root=$part( |\$)#root=UUID=$uuid\\1#g" "$BMNT/boot/grub/grub.cfg"
    if grep -q "$LOOPDEV" "$BMNT/boot/grub/grub.cfg"; then
        echo "grub.cfg still names $LOOPDEV" >&2; exit 1
    fi
    # The default kernel: 6.12's entry, saved (GRUB_DEFAULT=saved boots it whenever no
    # one-shot next_entry is set).
    local entry="Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux $K2"
    grep -qF "menuentry 'Debian GNU/Linux, with Linux $K2'" "$BMNT/boot/grub/grub.cfg" \
        || { echo "grub.cfg has no entry for $K2" >&2; exit 1; }
    in_chroot grub-set-default "$entry"
    in_chroot grub-editenv - list > "$OUT/grubenv-base.txt"
    echo "UUID=$uuid / ext4 rw,errors=remount-ro 0 1" > "$BMNT/etc/fstab"
    cp "$BMNT/boot/grub/grub.cfg" "$OUT/grub.cfg"
    umount_all
    mv "$GRUBIMG.tmp" "$GRUBIMG"
    log "GRUB disk image built in $((SECONDS - t0)) s"
}

if [ -n "${REBUILD:-}" ] || [ ! -f "$BASE" ] || [ ! -f "$CACHE/initrd.img-$K2" ]; then
    build_base
else
    log "reusing the cached base image $BASE"
fi
IMAGE=$BASE
if [ "$BOOT" = reboot ]; then
    if [ -n "${REBUILD:-}" ] || [ ! -f "$GRUBIMG" ] || [ "$GRUBIMG" -ot "$BASE" ]; then
        build_grub
    else
        log "reusing the cached GRUB disk image $GRUBIMG"
    fi
    IMAGE=$GRUBIMG
fi

# The run's image: a sparse copy of the base, with pretouch and the first-boot unit.
t0=$SECONDS
rm -f "$RUNIMG"
cp --sparse=always "$IMAGE" "$RUNIMG"
mount_image "$RUNIMG" "$MNT"
install -m 0755 "$OUT/pretouch" "$MNT/usr/local/bin/pretouch"
printf 'name: chain\njdks: [/usr/lib/jvm/java-17-openjdk-amd64]\ngcs: [%s]\nheaps: [64m]\nrepetitions: %s\n' "${GCS// /, }" "$REPETITIONS" \
    > "$MNT/root/m.yaml"
START_ARGS="--kernel $K1 --kernel $K2 --runs $RUNS"
if [ -n "${BROKEN:-}" ] && [ "$BOOT" = reboot ]; then
    # A reboot boots GRUB's entries with their own command lines: the 6.1 entry of this
    # run's grub.cfg is broken instead (its title, which the campaign looks for, kept).
    sed -i "/menuentry 'Debian GNU\/Linux, with Linux $K1'/,/^[[:space:]]*}/ s#root=UUID=[^ ]*#root=/dev/nope rootdelay=5#" \
        "$MNT/boot/grub/grub.cfg"
    [ "$(grep -c 'root=/dev/nope' "$MNT/boot/grub/grub.cfg")" = 1 ] \
        || { echo "the 6.1 entry of grub.cfg was not broken as meant" >&2; exit 1; }
    grep -A8 "menuentry 'Debian GNU/Linux, with Linux $K1'" "$MNT/boot/grub/grub.cfg" > "$OUT/grub-broken-entry.txt"
elif [ -n "${BROKEN:-}" ]; then
    # A kernel whose boot fails: its root never appears, the initramfs gives up after
    # rootdelay and reboots by panic=30 (the firmware, here QEMU, boots the default).
    case "$BROKEN" in
        hang) broken_cmdline="init=/usr/bin/cat"; broken_label=broken-hang ;;
        *) broken_cmdline="root=/dev/nope rootdelay=5"; broken_label=broken-root ;;
    esac
    cat >> "$MNT/root/m.yaml" <<EOF
kernels:
  - image: /boot/vmlinuz-$K1
  - image: /boot/vmlinuz-$K2
  - image: /boot/vmlinuz-$K2
    cmdline: $broken_cmdline
    label: $broken_label
EOF
    START_ARGS="--runs 1"
fi
cp "$MNT/root/m.yaml" "$OUT/m.yaml"
if [ -n "${WATCHDOG:-}" ]; then
    mkdir -p "$MNT/etc/systemd/system.conf.d"
    printf '[Manager]\nRuntimeWatchdogSec=%s\nKExecWatchdogSec=%s\nRebootWatchdogSec=%s\n' \
        "${WATCHDOG%%,*}" "${WATCHDOG#*,}" "${WATCHDOG#*,}" > "$MNT/etc/systemd/system.conf.d/watchdog.conf"
    cp "$MNT/etc/systemd/system.conf.d/watchdog.conf" "$OUT/"
fi
if [ -n "${TRACE_SYSTEMCTL:-}" ]; then
    cat > "$MNT/usr/local/sbin/systemctl" <<'EOF'
#!/bin/sh
# Test wrapper: logs the call and where stdout/stderr go, then runs the real systemctl.
{ echo "$(date -u +%T) systemctl $* (parent $PPID: $(tr '\0' ' ' < /proc/$PPID/cmdline))"
  echo "  fd1 -> $(readlink /proc/$$/fd/1)  fd2 -> $(readlink /proc/$$/fd/2)"; } >> /var/log/systemctl-trace.log
exec /bin/systemctl "$@"
EOF
    chmod 0755 "$MNT/usr/local/sbin/systemctl"
fi
cat > "$MNT/etc/systemd/system/pretouch-start.service" <<EOF
[Unit]
Description=Start the pretouch $BOOT campaign (first boot only)
After=multi-user.target
ConditionPathExists=!/var/lib/pretouch-start.done

[Service]
Type=oneshot
ExecStartPre=/bin/touch /var/lib/pretouch-start.done
# The watchdog's driver (udev) may come after multi-user.target: wait for it.
ExecStartPre=/bin/sh -c 'for i in \$\$(seq 120); do [ -e /dev/watchdog0 ] && exit 0; sleep 1; done; echo "no /dev/watchdog0 after 120 s"'
ExecStart=/bin/sh -c 'date -u; uname -r; cat /proc/cmdline; ls -l /dev/watchdog*; /usr/local/bin/pretouch run /root/m.yaml $START_ARGS --boot $BOOT --yes --results /var/lib/pretouch-results; echo "pretouch run exited \$\$?"' 
StandardOutput=append:/var/log/pretouch-start.log
StandardError=append:/var/log/pretouch-start.log
TimeoutStartSec=infinity

[Install]
WantedBy=multi-user.target
EOF
ln -sf /etc/systemd/system/pretouch-start.service \
    "$MNT/etc/systemd/system/multi-user.target.wants/pretouch-start.service"
# Every boot says which kernel came up and when, on the serial console.
cat > "$MNT/etc/systemd/system/pretouch-bootmark.service" <<'EOF'
[Unit]
Description=Mark the boot on the console
After=multi-user.target

[Service]
Type=oneshot
# Through journald (ForwardToConsole=, which opens the console per message): a write
# to /dev/ttyS0 itself races serial-getty's vhangup() and can fail with EIO.
ExecStart=/bin/sh -c 'echo "=== BOOTMARK $$(uname -r) up $$(cut -d" " -f1 /proc/uptime)s cmdline: $$(cat /proc/cmdline)"'
ExecStart=-/bin/sh -c 'command -v grub-editenv >/dev/null || exit 0; grub-editenv - list 2>&1 | sed "s/^/=== GRUBENV /"'
ExecStart=-/bin/sh -c '/usr/local/bin/pretouch campaign status 2>&1 | sed "s/^/=== STATUS /"; sync'
StandardOutput=journal
StandardError=journal

[Install]
WantedBy=multi-user.target
EOF
ln -sf /etc/systemd/system/pretouch-bootmark.service \
    "$MNT/etc/systemd/system/multi-user.target.wants/pretouch-bootmark.service"
if [ -n "${STOP_AT:-}" ]; then
    cat > "$MNT/etc/systemd/system/pretouch-stop-test.service" <<EOF
[Unit]
Description=Test: pretouch campaign stop during step $STOP_AT's run, then a reboot
After=multi-user.target
ConditionPathExists=/var/lib/pretouch-campaign

[Service]
Type=simple
ExecStart=/bin/sh -c 'while [ -d /var/lib/pretouch-campaign ]; do case "\$\$(/usr/local/bin/pretouch campaign status 2>&1 | head -n 1)" in *"step $STOP_AT of "*", running"*) sleep ${STOP_DELAY:-10}; echo "=== STOPTEST pretouch campaign stop in step $STOP_AT"; /usr/local/bin/pretouch campaign stop 2>&1; echo "=== STOPTEST stop exited \$\$?; grubenv: \$\$(grub-editenv - list 2>/dev/null | tr "\\n" " "); left: \$\$(ls -d /var/lib/pretouch-campaign /etc/systemd/system/pretouch-campaign.service 2>&1 | tr "\\n" " ")"; sync; systemctl reboot; exit 0;; esac; sleep 2; done'
StandardOutput=journal
StandardError=journal

[Install]
WantedBy=multi-user.target
EOF
    ln -sf /etc/systemd/system/pretouch-stop-test.service \
        "$MNT/etc/systemd/system/multi-user.target.wants/pretouch-stop-test.service"
    cp "$MNT/etc/systemd/system/pretouch-stop-test.service" "$OUT/"
fi
umount_all
log "run image prepared in $((SECONDS - t0)) s"

# Boot it. QEMU's serial output, each line stamped with the host's UTC time.
if [ "$BOOT" = reboot ]; then
    # The disk boots itself: SeaBIOS, GRUB, the entry grub-reboot or the default chose.
    BOOT_ARGS=()
    log "booting the guest (from its disk, GRUB's default $K2), timeout ${TIMEOUT}s"
else
    BOOT_ARGS=(-kernel "$CACHE/vmlinuz-$K2" -initrd "$CACHE/initrd.img-$K2"
        -append "root=/dev/vda rw console=ttyS0 panic=30${APPEND:+ $APPEND}")
    log "booting the guest ($K2 via -kernel), timeout ${TIMEOUT}s"
fi
# More than one vCPU: each in a host thread of its own (multi-threaded TCG).
ACCEL=tcg
[ "$SMP" -gt 1 ] && ACCEL=tcg,thread=multi
log "$SMP vCPU(s), -accel $ACCEL"
MEM_ARGS=(-m 2048)
[ "$PREALLOC" = 1 ] && MEM_ARGS+=(-mem-prealloc)
log "memory: ${MEM_ARGS[*]}"
t0=$SECONDS
# The end: after "pretouch campaign: finished" (or "stopped") the next boot's BOOTMARK
# and STATUS lines are the default kernel up; QEMU is then stopped.
watch_end() {
    while sleep 5; do
        [ -f "$OUT/qemu.pid" ] || continue
        kill -0 "$(cat "$OUT/qemu.pid")" 2>/dev/null || return 0
        if awk '/pretouch campaign: (finished|stopped)/{f=1} f && /=== BOOTMARK/{b=1} f && b && /=== STATUS/{s=1} END{exit !s}' \
            "$OUT/serial.log" 2>/dev/null; then
            sleep 20
            log "the default kernel came up after the campaign's end: stopping QEMU"
            kill "$(cat "$OUT/qemu.pid")"
            return 0
        fi
    done
}
watch_end &
WATCHER=$!
set +e
timeout "$TIMEOUT" nice -n 5 qemu-system-x86_64 -accel "$ACCEL" "${MEM_ARGS[@]}" -smp "$SMP" \
    -display none -monitor none -serial stdio -pidfile "$OUT/qemu.pid" \
    -device i6300esb \
    -drive "file=$RUNIMG,format=raw,if=virtio" \
    "${BOOT_ARGS[@]}" < /dev/null 2>&1 \
    | while IFS= read -r line; do printf '%(%H:%M:%S)T %s\n' -1 "${line//$'\r'/}"; done \
    > "$OUT/serial.log"
rc=${PIPESTATUS[0]}
set -e
kill "$WATCHER" 2>/dev/null || true
rm -f "$OUT/qemu.pid"
log "qemu exited with $rc after $((SECONDS - t0)) s (124 = timeout)"

# Copy the results out of the stopped guest's disk (mounted read-write: QEMU may have
# been stopped under a running guest, so the ext4 journal is replayed).
mount_image "$RUNIMG" "$MNT"
cp -a "$MNT/var/lib/pretouch-results" "$OUT/results" 2>/dev/null || log "no /var/lib/pretouch-results in the guest"
cp -a "$MNT/var/log/pretouch-start.log" "$OUT/" 2>/dev/null || true
cp -a "$MNT/var/log/systemctl-trace.log" "$OUT/" 2>/dev/null || true
[ -d "$MNT/var/lib/pretouch-campaign" ] && cp -a "$MNT/var/lib/pretouch-campaign" "$OUT/campaign-left" || true
[ -e "$MNT/etc/systemd/system/pretouch-campaign.service" ] && log "the campaign's unit is left in the guest" || true
[ -f "$MNT/boot/grub/grubenv" ] && grep -av "^#" "$MNT/boot/grub/grubenv" > "$OUT/grubenv-end.txt" || true
journalctl --directory="$MNT/var/log/journal" --no-pager -o short-iso-precise > "$OUT/journal.txt" 2>/dev/null || true
journalctl --directory="$MNT/var/log/journal" --no-pager --list-boots > "$OUT/boots.txt" 2>/dev/null || true
umount_all
[ -n "${KEEP_IMAGE:-}" ] || rm -f "$RUNIMG"
for report in "$OUT"/results/campaign-*/campaign-report.txt; do
    [ -f "$report" ] && { log "report: $report"; cat "$report"; }
done
grep -a -E "BOOTMARK|STATUS|GRUBENV|STOPTEST|Booting .|pretouch campaign|Linux version|kexec_core|reboot:|i6300|watchdog" "$OUT/serial.log" || true
log "done: $OUT"
