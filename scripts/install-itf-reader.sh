#!/usr/bin/env bash
# Builds the independent ITF reader the tests check `export --format itf` with
# (tests/itf_reader/: the Rust crate `itf` from crates.io, versions pinned by its
# Cargo.lock) into TARGET_DIR (default build/itf-reader). Idempotent: cargo rebuilds
# nothing when it is up to date, and fetches crates only the first time.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target_dir="${1:-${ISRCHECK_BUILD_ROOT:-$root}/build/itf-reader}"
if ! command -v cargo >/dev/null; then
  # rustup's cargo lives in ~/.cargo/bin, which a non-login shell may not have on PATH.
  [[ -x "$HOME/.cargo/bin/cargo" ]] && export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null; then
  echo "install-itf-reader: cargo (Rust) is needed to build tests/itf_reader" >&2
  exit 1
fi
cargo build --quiet --release --locked --manifest-path "$root/tests/itf_reader/Cargo.toml" \
  --target-dir "$target_dir"
echo "$target_dir/release/isrcheck-itf-reader"
