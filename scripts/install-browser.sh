#!/usr/bin/env bash
# Installs headless Chromium from Debian (packages chromium and chromium-driver) for the
# browser test of the matrix HTML report (ctest label `browser`). Idempotent: when both
# packages are installed it changes nothing and touches no network.
set -euo pipefail

packages=(chromium chromium-driver fonts-dejavu-core)
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
echo "install-browser: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${missing[@]}"
