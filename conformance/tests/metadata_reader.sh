#!/usr/bin/env bash
# The driver's reader of the KRaft metadata log (MetadataLogHelper, docs/recording.md,
# "Decisions") on a small stored log: the one voter (a dedicated controller) of a real
# Kafka 4.4.0 run of scenario e-unclean-off-offline, its segment and bootstrap snapshot
# (tests/data/metadata/). No cluster: one JVM on the 4.4.0 classpath that
# scripts/install-kafka.sh resolved. Checks the decisions read for the run's topic (the
# partition's creation, the ISR shrink, the offline election with ELR [0], N0's fencing;
# Kafka's own PartitionRegistration replay gives their epochs), that a log two of three
# voters lack commits nothing (a majority must hold a record), that two voters with the
# same log commit all of it, and that another topic's name reads no partition decision.
# Then a log of Kafka 3.4.1 (the dedicated controller of the 3.4 half of the KIP-903
# release pair, scenario i-release-pair-kip-497-stale-incarnation) read with the 3.4.1 and
# 3.5.2 classpaths: releases without ELR (KIP-966) or log directories (KIP-858), whose
# decisions the reader once failed to read (NoSuchFieldError: elr); N2's re-registration
# with its new broker epoch is what KIP-903's rejection on 3.5.2 turns on.
#   metadata_reader.sh REPO DRIVER_DIR WORK_DIR
set -euo pipefail
repo="$1" driver="$2" work="$3"
rm -rf "$work" && mkdir -p "$work"
cp_file="$driver/4.4.0/classpath.txt"
jar="$driver/driver/target/isrcheck-conformance-driver.jar"
[[ -s "$cp_file" && -s "$jar" ]] || { echo "metadata_reader: run scripts/install-kafka.sh first ($cp_file, $jar)" >&2; exit 1; }
data="$repo/tests/data/metadata/e-unclean-off-offline"
topic=isrcheck-1-e-unclean-off-offline
read_log() { java -Xmx128m -XX:+UseSerialGC -cp "$(cat "$cp_file"):$jar" org.isrcheck.conformance.MetadataLogHelper "$@"; }

read_log "$topic" "$data/__cluster_metadata-0" > "$work/one.jsonl"
diff "$data/expected.jsonl" "$work/one.jsonl"
python3 - "$work/one.jsonl" <<'PY'
import json, sys
d = [json.loads(l) for l in open(sys.argv[1])]
assert [x["record_type"] for x in d] == ["PartitionRecord", "PartitionChangeRecord", "PartitionChangeRecord",
                                         "BrokerRegistrationChangeRecord"], d
assert [x["metadata_offset"] for x in d] == sorted(x["metadata_offset"] for x in d)
created, shrink, offline, fence = d
assert (created["leader"], created["leader_epoch"], created["isr"]) == (0, 0, [0, 1])
assert (shrink["leader"], shrink["leader_epoch"], shrink["partition_epoch"], shrink["isr"]) == (0, 0, 1, [0])
assert (offline["leader"], offline["leader_epoch"], offline["isr"], offline["elr"]) == (-1, 1, [], [0])
assert (fence["broker"], fence["fencing"]) == (0, "fence")
PY
# Three voters of which two lost their logs: no record is on a majority.
read_log "$topic" "$data/__cluster_metadata-0" "$work/gone-1" "$work/gone-2" > "$work/minority.jsonl"
[[ ! -s "$work/minority.jsonl" ]] || { echo "metadata_reader: a minority's records were read as committed" >&2; exit 1; }
# Two voters holding the same log: all of it.
read_log "$topic" "$data/__cluster_metadata-0" "$data/__cluster_metadata-0" > "$work/two.jsonl"
diff "$data/expected.jsonl" "$work/two.jsonl"
# Another topic: no partition of it, so no decision (broker records count from its creation).
read_log other-topic "$data/__cluster_metadata-0" > "$work/other.jsonl"
[[ ! -s "$work/other.jsonl" ]] || { echo "metadata_reader: decisions read for a topic the log does not have" >&2; exit 1; }
# Kafka 3.4.1's own log, with the classpaths of the releases of the pair.
old="$repo/tests/data/metadata/i-release-pair-kip-497-stale-incarnation-3.4.1"
for v in 3.4.1 3.5.2; do
  [[ -s "$driver/$v/classpath.txt" ]] ||
    { echo "metadata_reader: run scripts/install-kafka.sh --kafka-version $v first" >&2; exit 1; }
  java -Xmx128m -XX:+UseSerialGC -cp "$(cat "$driver/$v/classpath.txt"):$jar" org.isrcheck.conformance.MetadataLogHelper \
    isrcheck-1-i-release-pair-kip-497-stale-incarnation "$old/__cluster_metadata-0" > "$work/old-$v.jsonl"
  diff "$old/expected.jsonl" "$work/old-$v.jsonl"
done
python3 - "$work/old-3.4.1.jsonl" <<'PY'
import json, sys
d = [json.loads(l) for l in open(sys.argv[1])]
assert [x["op"] for x in d] == ["partition", "partition", "broker_change", "register_broker", "broker_change"], d
created, shrink, fence, register, unfence = d
assert (created["isr"], shrink["isr"], shrink["leader_epoch"]) == ([0, 1, 2], [0, 1], 1)
assert all(x["elr"] == [] and x["last_known_elr"] == [] for x in (created, shrink))  # no ELR before 3.7
assert (fence["broker"], fence["fencing"], fence["broker_epoch"]) == (2, "fence", 2)
assert (register["broker"], register["directories"]) == (2, [])  # no log directories before 3.7
assert register["broker_epoch"] > fence["broker_epoch"]  # N2's new incarnation
assert (unfence["broker"], unfence["fencing"], unfence["broker_epoch"]) == (2, "unfence", register["broker_epoch"])
PY
echo "metadata_reader: ok"
