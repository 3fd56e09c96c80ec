#!/usr/bin/env bash
# The Debian package, target/debian/pretouch_<version>-1_<arch>.deb: the release binary,
# its man pages and the bash, zsh and fish completions, which the binary generates
# (`pretouch generate`) just before `cargo deb` packs them (Cargo.toml's
# [package.metadata.deb] names where each goes).
# Usage: scripts/deb.sh              (then: sudo apt-get install ./target/debian/pretouch_*.deb)
# Needs cargo-deb, which it installs from crates.io when missing (pinned below, about
# 4 minutes to compile on a 2-core machine), and dpkg-dev (dpkg-shlibdeps works out the
# package's dependencies).
set -euo pipefail
cd "$(dirname "$0")/.."

# cargo-deb, pinned: a new release may lay the package out differently.
cargo_deb=3.8.0
if ! cargo deb --version 2>/dev/null | grep -qF "$cargo_deb"; then
    cargo install cargo-deb --locked --version "$cargo_deb"
fi
command -v dpkg-shlibdeps >/dev/null || {
    echo "scripts/deb.sh needs dpkg-shlibdeps: sudo apt-get install -y dpkg-dev" >&2
    exit 2
}

cargo build --release --locked -p pretouch
target=${CARGO_TARGET_DIR:-target}
assets=$target/deb-assets
rm -rf "$assets"
mkdir -p "$assets/man" "$assets/completions"
bin=$target/release/pretouch
"$bin" generate man "$assets/man"
"$bin" generate bash >"$assets/completions/pretouch.bash"
"$bin" generate zsh >"$assets/completions/_pretouch"
"$bin" generate fish >"$assets/completions/pretouch.fish"
cargo deb --no-build -p pretouch
