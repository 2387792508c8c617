#!/usr/bin/env bash
# Fetches the diagram renderer that `isrcheck matrix --html` embeds in its report, so
# that the report draws its sequence diagrams with no network: mermaid, from the npm
# registry, at the version pinned below, checked against the registry's published
# sha512 integrity. Only the prebuilt dist/mermaid.min.js and the licence are kept, in
# build/third_party/mermaid-<version>/ (never committed: it is minified third-party code).
# Idempotent: when the file is there it touches no network. Prints the file's path.
set -euo pipefail

version=11.6.0
# The registry's "integrity" of mermaid-11.6.0.tgz (sha512-PE8hGUy1...), in hex for sha512sum.
sha512=3c4f21194cb52c39562075813f4e5215da941c699170270ae08ce938a3c4df978ec3e1bdcd981c9cca72ba72555043a06fffca04e44f8f2b0a9ddc3c6c52ee46

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${ISRCHECK_BUILD_ROOT:-$root}"
dest="${1:-$build_root/build/third_party/mermaid-$version}"
if [[ -s "$dest/mermaid.min.js" && -s "$dest/LICENSE" ]]; then
  echo "$dest/mermaid.min.js"
  exit 0
fi

if ! command -v npm >/dev/null; then
  sudo=()
  if [[ "$(id -u)" -ne 0 ]]; then sudo=(sudo); fi
  echo "fetch-mermaid: installing npm" >&2
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends npm
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "fetch-mermaid: fetching mermaid $version from the npm registry" >&2
# npm pack downloads the package's tarball alone (no dependencies, no install scripts).
(cd "$work" && timeout 300 npm pack --silent "mermaid@$version" >/dev/null)
tarball="$work/mermaid-$version.tgz"
actual="$(sha512sum "$tarball" | cut -d' ' -f1)"
if [[ "$actual" != "$sha512" ]]; then
  echo "fetch-mermaid: mermaid-$version.tgz has sha512 $actual, expected $sha512" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$work" package/dist/mermaid.min.js package/LICENSE
mkdir -p "$dest"
# Into place atomically: a half-written renderer must never be embedded.
cp "$work/package/LICENSE" "$dest/LICENSE.tmp" && mv "$dest/LICENSE.tmp" "$dest/LICENSE"
cp "$work/package/dist/mermaid.min.js" "$dest/mermaid.min.js.tmp"
mv "$dest/mermaid.min.js.tmp" "$dest/mermaid.min.js"
echo "$dest/mermaid.min.js"
