#!/bin/bash
# Writes OUT, a "binary" for scripts/kexec-chain-vm.sh that carries two pretouch builds,
# BEFORE and AFTER, and in the guest times the dry run of the chain's campaign start
# (`run /root/m.yaml --kernel 6.1 --kernel 6.12 --runs 3 --boot kexec --dry-run`:
# every check, the plan, nothing installed) of each in turn, three pairs at boot, then
# three more a minute later (TIME lines in out-*/pretouch-start.log), and powers off.
#   scripts/chain-experiments/dry-run-pair.sh BEFORE AFTER /tmp/pair
#   sudo SMP=2 WATCHDOG=30s,2min GCS="g1 parallel" REPETITIONS=10 scripts/kexec-chain-vm.sh /tmp/pair
# (WATCHDOG: without a way back from a hang the start refuses, and so does its dry run)
set -euo pipefail
BEFORE=$1 AFTER=$2 OUT=$3
A=$(stat -c %s "$BEFORE") B=$(stat -c %s "$AFTER")
cat > "$OUT" <<HEAD
#!/bin/sh
[ "\$1" = run ] || exit 0
tail -c $((A + B)) "\$0" | head -c $A > /root/pt-before
tail -c $B "\$0" > /root/pt-after
chmod 0755 /root/pt-before /root/pt-after
now() { cut -d" " -f1 /proc/uptime; }
t() { t_a=\$(now); "\$@" >/tmp/t.out 2>&1; rc=\$?; t_b=\$(now); echo "TIME \$(awk "BEGIN{print \$t_b - \$t_a}") rc=\$rc :: \$*"; [ \$rc = 0 ] || cat /tmp/t.out; }
S="--kernel 6.1.0-57-amd64 --kernel 6.12.118+deb12-amd64 --runs 3 --boot kexec --yes --results /var/lib/pretouch-results --dry-run"
nproc
for i in 1 2 3; do t /root/pt-before run /root/m.yaml \$S; t /root/pt-after run /root/m.yaml \$S; done
sleep 60
for i in 1 2 3; do t /root/pt-after run /root/m.yaml \$S; t /root/pt-before run /root/m.yaml \$S; done
sync
systemctl poweroff
exit 0
HEAD
cat "$BEFORE" "$AFTER" >> "$OUT"
chmod +x "$OUT"
