#!/usr/bin/env bash
# Installs the Debian packages isrcheck needs to build and test. Idempotent: when every
# package is already installed it changes nothing and touches no network. With --fuzz,
# also clang and its libFuzzer runtime (scripts/fuzz.sh).
set -euo pipefail

packages=(
  cmake g++ ninja-build make
  librapidcheck-dev libboost-graph-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libcli11-dev libbenchmark-dev libxxhash-dev
)
if [[ "${1:-}" == "--fuzz" ]]; then
  packages+=(clang-14 libclang-rt-14-dev)
fi

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

sudo=()
if [[ "$(id -u)" -ne 0 ]]; then
  sudo=(sudo)
fi
echo "install-deps: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}"
