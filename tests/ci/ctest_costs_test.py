"""The long tests carry a ctest COST (CMakeLists.txt), so that `ctest -j` starts them
first on a fresh clone, which has no cost data: otherwise they start in file order, near
the end, and run with the other core idle (.ci/README.md). Usage: ctest_costs_test.py
BUILD_DIR. Exit 0 when readme_examples, browser_explore and the tests of the long test
files have a positive COST and a short test has none."""
import json
import subprocess
import sys

build = sys.argv[1]
listing = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], check=True,
                         capture_output=True, text=True).stdout
costs = {}
for test in json.loads(listing)["tests"]:
    props = {p["name"]: p["value"] for p in test.get("properties", [])}
    costs[test["name"]] = float(props.get("COST", 0))
failures = []
# readme_examples (label slow) is not in the sanitizer build, which holds only what its
# pass runs (CMakeLists.txt).
with open(f"{build}/CMakeCache.txt") as cache:
    sanitizer_build = "ISRCHECK_SANITIZE:BOOL=ON" in cache.read()
for name in ["browser_explore"] + ([] if sanitizer_build else ["readme_examples"]):
    if costs.get(name, 0) <= 0:
        failures.append(f"{name}: COST {costs.get(name)}")
# One test of each long file that every build has (robustness_test and campaign_test are
# built in both; their names are GoogleTest's).
for prefix in ["TraceValidation.", "CampaignRecording.", "ResearchCli."]:
    found = [n for n in costs if n.startswith(prefix)]
    if not found:
        failures.append(f"no test {prefix}* listed")
    elif any(costs[n] <= 0 for n in found):
        failures.append(f"{prefix}*: a test without COST")
if costs.get("ci_scripts", 0) != 0:
    failures.append(f"ci_scripts (a short test) has COST {costs['ci_scripts']}")
for f in failures:
    print("FAIL:", f, file=sys.stderr)
if failures:
    sys.exit(1)
print(f"ctest_costs_test: {sum(1 for c in costs.values() if c > 0)} tests start first")
