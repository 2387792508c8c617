#!/usr/bin/env bash
# Fetches the plotting library that `isrcheck research unclean --html` embeds in its
# report, so that the report draws its plots with no network: Vega (vega.github.io, the
# visualization grammar under Vega-Lite), its prebuilt build/vega.min.js (it bundles its
# own dependencies), pinned, from the npm registry (scripts/fetch-npm.sh), into
# build/third_party/vega-<version>/ or the directory given. Prints the file's path.
set -euo pipefail

version=6.4.0
# The registry's "integrity" of vega-6.4.0.tgz (sha512-rHXCq2Lp...), in hex for sha512sum.
sha512=ac75c2ab62e911608b3235c1123ee1a1c63d1b4fe2e5319845ac861928f4e954c5e3e976206d99ee87992828d66d487fee14c4fe65616da38f07bdb0084961ea

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_root="${ISRCHECK_BUILD_ROOT:-$root}"
exec "$root/scripts/fetch-npm.sh" vega "$version" "$sha512" build/vega.min.js \
  "${1:-$build_root/build/third_party/vega-$version}"
