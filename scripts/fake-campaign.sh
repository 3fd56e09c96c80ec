#!/usr/bin/env bash
# A campaign across FAKE reboots, to see what `pretouch run --boot` prints and does
# without rebooting anything (docs/unattended.md shows its output): two fake kernel
# images (a bzImage header naming a release) x RUNS runs, installed under a scratch
# root with the fake boot loader; each "reboot" starts the installed unit's command
# again with the release, boot id and command line the loader was asked for. The JVM
# runs are real, on this machine's kernel. Root only (the campaign is).
#
#   sudo scripts/fake-campaign.sh [MATRIX] [RUNS]
#
# PRETOUCH (default target/debug/pretouch) names the binary. The fake boot loader and
# --campaign-root are test machinery, so only a build with the test-support feature has
# them: `cargo build --features test-support` (the script runs it when PRETOUCH is unset).
set -euo pipefail
if [ -z "${PRETOUCH:-}" ]; then
  cargo build --quiet --features test-support
fi
pretouch=${PRETOUCH:-target/debug/pretouch}
matrix=${1:-configs/quick.yaml}
runs=${2:-2}
work=$(mktemp -d /tmp/pretouch-fake-campaign.XXXXXX)
root=$work/root
mkdir -p "$root" "$work/boot"
image() { # a file with an x86 boot header naming release $1
  python3 - "$work/boot/vmlinuz-$1" "$1" <<'EOF'
import struct, sys
b = bytearray(0x400)
b[0x202:0x206] = b"HdrS"
b[0x20e:0x210] = struct.pack("<H", 0x100)
text = (sys.argv[2] + " (fake) #1 SMP").encode()
b[0x300:0x300 + len(text)] = text
open(sys.argv[1], "wb").write(b)
EOF
  echo "$work/boot/vmlinuz-$1"
}
base=$(image 6.1.0-fake-base)
patch=$(image 6.1.0-fake-patch)
export PRETOUCH_CAMPAIGN_RELEASE=6.1.0-fake-default PRETOUCH_CAMPAIGN_BOOT_ID=boot-0 \
  PRETOUCH_CAMPAIGN_CMDLINE="BOOT_IMAGE=/boot/vmlinuz-6.1.0-fake-default root=/dev/vda ro quiet"
"$pretouch" run "$matrix" --kernel "$base" --kernel "$patch" --runs "$runs" --boot fake \
  --yes --campaign-root "$root" --results "$work/results"
exec_start=$(sed -n 's/^ExecStart=//p' "$root/etc/systemd/system/pretouch-campaign.service")
program=${exec_start%% *}
n=0
while [ -e "$root/var/lib/pretouch-campaign/campaign.json" ]; do
  n=$((n + 1))
  last=$(grep '"action":"boot"' "$root/fake-boot.jsonl" | tail -1)
  export PRETOUCH_CAMPAIGN_RELEASE=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["target"]["release"])' "$last")
  export PRETOUCH_CAMPAIGN_CMDLINE=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["cmdline"])' "$last")
  export PRETOUCH_CAMPAIGN_BOOT_ID=boot-$n
  echo "=== fake reboot $n: $PRETOUCH_CAMPAIGN_RELEASE [$PRETOUCH_CAMPAIGN_CMDLINE]"
  # shellcheck disable=SC2086 # the unit's command line, split as systemd splits it
  "$root$program" ${exec_start#* } --campaign-root "$root"
  if [ "$n" = 2 ] && [ -e "$root/var/lib/pretouch-campaign/campaign.json" ]; then
    echo "=== pretouch campaign status"
    "$pretouch" campaign status --campaign-root "$root"
  fi
done
echo "=== the fake boot loader was asked:"
sed 's/"target":{[^}]*},//' "$root/fake-boot.jsonl"
echo "=== results: $work/results"
