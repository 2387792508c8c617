#!/usr/bin/env bash
# Runs powerfs_test (GoogleTest over real FUSE mounts) in WORK_DIR and, on any exit,
# unmounts every mount left under it and kills its daemons (a crashed test cannot leave
# a mount behind).   powerfs_test.sh POWERFS_TEST_BINARY WORK_DIR [gtest args...]
set -euo pipefail
binary="$1" work="$2"
shift 2
if [[ ! -e /dev/fuse ]]; then
  echo "powerfs_test.sh: /dev/fuse is missing: the fuse label needs FUSE (apt-get install fuse3)" >&2
  exit 1
fi
rm -rf "$work" 2>/dev/null || { echo "powerfs_test.sh: cannot clear $work (a mount left busy?)" >&2; exit 1; }
mkdir -p "$work"
work="$(cd "$work" && pwd)"
cleanup() {
  local left=0
  # /proc/mounts escapes spaces as \040; the work dir has none.
  while read -r _ point _; do
    case "$point" in
      "$work"/*) left=1; fusermount3 -u "$point" 2>/dev/null || fusermount3 -uz "$point" || true ;;
    esac
  done < /proc/mounts
  [[ $left -eq 0 ]] || echo "powerfs_test.sh: unmounted mounts the test left under $work" >&2
}
trap cleanup EXIT
POWERFS_TEST_WORK="$work" "$binary" "$@"
