#!/bin/sh
# Not pretouch: given to scripts/kexec-chain-vm.sh as its "binary", it times kexec-tools
# itself in the guest (each variant of a trial load, the files' SHA-256, a JDK's flag
# table), prints the times to the start log (out-*/pretouch-start.log, lines TIME),
# and powers the guest off.
#   sudo scripts/kexec-chain-vm.sh scripts/chain-experiments/kexec-load-times.sh
# With TOUCH_FIRST=1 (set on the line below: the unit that starts it passes no
# environment) it first writes 900 MB to /dev/shm and removes it, so the guest has
# touched most of its memory once, then times the first loads of 6.1 only.
TOUCH_FIRST=${TOUCH_FIRST:-0}
[ "$1" = run ] || exit 0
now() { cut -d" " -f1 /proc/uptime; }
t() { t_a=$(now); "$@" >/dev/null 2>&1; rc=$?; t_b=$(now); echo "TIME $(awk "BEGIN{print $t_b - $t_a}") rc=$rc :: $*"; }
kexec --version
for k in 6.1.0-57-amd64 6.12.118+deb12-amd64; do
  t cat /boot/vmlinuz-$k /boot/initrd.img-$k
done
if [ "$TOUCH_FIRST" = 1 ]; then
  grep -E "MemFree|^Cached" /proc/meminfo
  t dd if=/dev/zero of=/dev/shm/fill bs=1M count=900
  t rm /dev/shm/fill
  grep -E "MemFree|^Cached" /proc/meminfo
  K=6.1.0-57-amd64
  for opts in "" "" --no-checks --no-checks; do
    t kexec -l /boot/vmlinuz-$K --initrd=/boot/initrd.img-$K --reuse-cmdline $opts; t kexec -u
  done
else
  for pass in 1 2; do
    for k in 6.1.0-57-amd64 6.12.118+deb12-amd64; do
      I=/boot/vmlinuz-$k; R=/boot/initrd.img-$k
      t kexec -l $I --initrd=$R --reuse-cmdline; t kexec -u
      t kexec -l $I --initrd=$R --reuse-cmdline --no-checks; t kexec -u
      t kexec -s -l $I --initrd=$R --reuse-cmdline; t kexec -u
      t kexec -l $I --reuse-cmdline --no-checks; t kexec -u
      t kexec -s -l $I --reuse-cmdline; t kexec -u
      t kexec -c -l $I --initrd=$R --reuse-cmdline --no-checks; t kexec -u
      t sha256sum $I
      t sha256sum $R
    done
  done
  J=$(readlink -f /usr/bin/java)
  t $J -XX:+PrintFlagsFinal -version
  t $J -XX:+PrintFlagsFinal -version
fi
sync
systemctl poweroff
