#!/usr/bin/env bash
# The suite's `path` scenarios (conformance/suite/generate.sh: the model's trace along a
# path of actions named in the entry, trace_from_path.py) are still what the model does:
# each entry's path is walked again through `isrcheck explore`, exported, and compared
# with the checked-in scenario. Fails when a step is no longer enabled (the model changed
# under the path) or the scenario differs (generate.sh was not re-run).
#   path_traces.sh ISRCHECK SUITE_DIR
set -euo pipefail
isrcheck="$1" suite="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
count=0
while IFS='|' read -r name source settings script _sentence export_args; do
  [[ "$source" == path ]] || continue
  name="${name#*\"}"
  set_args=()
  for s in $settings; do set_args+=(--set "$s"); done
  python3 "$suite/trace_from_path.py" "$isrcheck" "$tmp/$name.trace.json" "$script" "${set_args[@]}"
  export_args="${export_args%\"}"
  # shellcheck disable=SC2086  # export_args is a list of options
  "$isrcheck" export "$tmp/$name.trace.json" --format scenario --name "$name" --out "$tmp/$name.json" $export_args
  if ! cmp -s "$tmp/$name.json" "$suite/$name.json"; then
    echo "path_traces.sh: $name: the model's trace along the path no longer exports to $suite/$name.json" \
         "(re-run conformance/suite/generate.sh)" >&2
    diff <(python3 -m json.tool "$suite/$name.json") <(python3 -m json.tool "$tmp/$name.json") | head -20 >&2 || true
    exit 1
  fi
  count=$((count + 1))
done < <(grep -E '^  "[^|]+\|path\|' "$suite/generate.sh")
((count > 0)) || { echo "path_traces.sh: no path entry found in $suite/generate.sh" >&2; exit 1; }
echo "path_traces.sh: $count path scenario(s) reproduced"
