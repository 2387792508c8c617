#!/usr/bin/env bash
# Fetches the plotting library that `isrcheck research unclean --html` embeds in its
# report, so that the report draws its plots with no network: Vega (vega.github.io, the
# visualization grammar under Vega-Lite), from the npm registry, at the version pinned
# below, checked against the registry's published sha512 integrity. Only the prebuilt
# build/vega.min.js (it bundles its own dependencies) and the licence are kept, in
# build/third_party/vega-<version>/ (never committed: it is minified third-party code).
# Idempotent: when the file is there it touches no network. Prints the file's path.
set -euo pipefail

version=6.4.0
# The registry's "integrity" of vega-6.4.0.tgz (sha512-rHXCq2Lp...), in hex for sha512sum.
sha512=ac75c2ab62e911608b3235c1123ee1a1c63d1b4fe2e5319845ac861928f4e954c5e3e976206d99ee87992828d66d487fee14c4fe65616da38f07bdb0084961ea

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${ISRCHECK_BUILD_ROOT:-$root}"
dest="${1:-$build_root/build/third_party/vega-$version}"
if [[ -s "$dest/vega.min.js" && -s "$dest/LICENSE" ]]; then
  echo "$dest/vega.min.js"
  exit 0
fi

if ! command -v npm >/dev/null; then
  sudo=()
  if [[ "$(id -u)" -ne 0 ]]; then sudo=(sudo); fi
  echo "fetch-vega: installing npm" >&2
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends npm
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "fetch-vega: fetching vega $version from the npm registry" >&2
# npm pack downloads the package's tarball alone (no dependencies, no install scripts).
(cd "$work" && timeout 300 npm pack --silent "vega@$version" >/dev/null)
tarball="$work/vega-$version.tgz"
actual="$(sha512sum "$tarball" | cut -d' ' -f1)"
if [[ "$actual" != "$sha512" ]]; then
  echo "fetch-vega: vega-$version.tgz has sha512 $actual, expected $sha512" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$work" package/build/vega.min.js package/LICENSE
mkdir -p "$dest"
# Into place atomically: a half-written library must never be embedded.
cp "$work/package/LICENSE" "$dest/LICENSE.tmp" && mv "$dest/LICENSE.tmp" "$dest/LICENSE"
cp "$work/package/build/vega.min.js" "$dest/vega.min.js.tmp"
mv "$dest/vega.min.js.tmp" "$dest/vega.min.js"
echo "$dest/vega.min.js"
