#!/usr/bin/env bash
# Installs Ansible for lab/playbook.yml (and tests/lab.rs, which runs it on this
# machine): ansible-core from PyPI, pinned, in a venv of its own at /opt/pretouch-ansible
# (or $PRETOUCH_ANSIBLE_VENV). Skips what is already there. Run as root on Debian, as CI
# does; any user can run it with PRETOUCH_ANSIBLE_VENV set to a folder they can write.
#
# The pin: the newest ansible-core that runs on Debian 12's Python 3.11 (2.20 needs 3.12).
set -euo pipefail

VENV=${PRETOUCH_ANSIBLE_VENV:-/opt/pretouch-ansible}
ANSIBLE_CORE_VERSION=2.19.14

if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    echo "setup-ansible: installing python3-venv"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-venv
fi

# The whole output is read: `| head` would close ansible's stdout mid-write.
installed=$("$VENV/bin/ansible-playbook" --version 2>/dev/null || true)
if [[ $installed != *"[core $ANSIBLE_CORE_VERSION]"* ]]; then
    echo "setup-ansible: installing ansible-core $ANSIBLE_CORE_VERSION in $VENV"
    # --clear: a venv an earlier install left half made (killed mid-way) is started over,
    # since pip would take its metadata for an installed ansible-core without the scripts.
    python3 -m venv --clear "$VENV"
    "$VENV/bin/pip" install -q "ansible-core==$ANSIBLE_CORE_VERSION"
fi
installed=$("$VENV/bin/ansible-playbook" --version)
echo "setup-ansible: ${installed%%$'\n'*}"
