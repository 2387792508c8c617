#!/usr/bin/env bash
# Fetches one prebuilt file of a pinned npm package for embedding in an offline report
# (fetch-mermaid.sh and fetch-vega.sh say which and why): the package's tarball from the
# npm registry, checked against the registry's published sha512 integrity, of which only
# that file and the licence are kept, in DEST (never committed: minified third-party code).
# Idempotent: when the file is there it touches no network. Prints the file's path.
#   scripts/fetch-npm.sh PACKAGE VERSION SHA512_HEX PATH_IN_PACKAGE DEST
set -euo pipefail

[[ $# -eq 5 ]] || { echo "usage: fetch-npm.sh PACKAGE VERSION SHA512_HEX PATH_IN_PACKAGE DEST" >&2; exit 2; }
package="$1" version="$2" sha512="$3" path_in_package="$4" dest="$5"
file="$(basename "$path_in_package")"
if [[ -s "$dest/$file" && -s "$dest/LICENSE" ]]; then
  echo "$dest/$file"
  exit 0
fi

if ! command -v npm >/dev/null; then
  sudo=()
  if [[ "$(id -u)" -ne 0 ]]; then sudo=(sudo); fi
  echo "fetch-$package: installing npm" >&2
  "${sudo[@]}" apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends npm
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "fetch-$package: fetching $package $version from the npm registry" >&2
# npm pack downloads the package's tarball alone (no dependencies, no install scripts).
(cd "$work" && timeout 300 npm pack --silent "$package@$version" >/dev/null)
tarball="$work/$package-$version.tgz"
actual="$(sha512sum "$tarball" | cut -d' ' -f1)"
if [[ "$actual" != "$sha512" ]]; then
  echo "fetch-$package: $package-$version.tgz has sha512 $actual, expected $sha512" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$work" "package/$path_in_package" package/LICENSE
mkdir -p "$dest"
# Into place atomically: a half-written library must never be embedded.
cp "$work/package/LICENSE" "$dest/LICENSE.tmp" && mv "$dest/LICENSE.tmp" "$dest/LICENSE"
cp "$work/package/$path_in_package" "$dest/$file.tmp"
mv "$dest/$file.tmp" "$dest/$file"
echo "$dest/$file"
