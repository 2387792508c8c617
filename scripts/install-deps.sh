#!/usr/bin/env bash
# Installs the Debian packages isrcheck needs to build and test. Idempotent: when every
# package is already installed it changes nothing and touches no network. With --fuzz,
# also clang and its libFuzzer runtime (scripts/fuzz.sh); with --browser, headless
# Chromium for the browser tests of the matrix HTML report and of explore (scripts/install-browser.sh).
set -euo pipefail

packages=(
  cmake g++ ninja-build make
  librapidcheck-dev libboost-graph-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libcli11-dev libbenchmark-dev libxxhash-dev
  # `check --distributed` under mpirun (docs/distributed.md) and its tests (label mpi)
  libopenmpi-dev openmpi-bin
  # isrcheck-powerfs (conformance/powerfs: power loss on real Kafka) and its tests (label fuse)
  libfuse3-dev fuse3 pkg-config
  # `isrcheck explore`'s HTTP server (explorer/, docs/explore.md)
  libcpp-httplib-dev
)
for option in "$@"; do
  case "$option" in
    --fuzz) packages+=(clang-14 libclang-rt-14-dev) ;;
    --browser) packages+=(chromium chromium-driver fonts-dejavu-core) ;;
    *) echo "install-deps: unknown option $option (allowed: --fuzz, --browser)" >&2; exit 2 ;;
  esac
done

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
