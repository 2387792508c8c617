#!/usr/bin/env bash
# Regenerates the conformance suite (conformance/suite/*.json) from the model: every
# scenario is the export (`isrcheck export --format scenario`) of a model trace, never a
# hand-written expectation:
#   - `check`   : the shortest counterexample of an unsafe configuration (isrcheck check);
#   - `witness` : the model's settled run of a client script (isrcheck witness), for facts
#                 that are not counterexamples (a kill that keeps every acked record);
#   - `corpus`  : a stored trace of the counterexample corpus (counterexamples/corpus/).
# Each entry carries its Kafka sentence (docs/conformance.md lists them with the results).
#   conformance/suite/generate.sh [ISRCHECK_BINARY]      (default build/isrcheck)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
isrcheck="${1:-$repo/build/isrcheck}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# name | source | settings (--set, space separated) | script (witness) | Kafka sentence
#      | export options (optional; --records-per-send K: each model record is sent as one
#        producer batch of K Kafka records, docs/conformance.md "A model record as a batch")
entries=(
  "a-rf3-kill-leader-acked-kept|witness|idempotence=true bounds.max_records=3 bounds.max_retries=1 faults.max_lossy_crashes=0|produce; produce; produce; kill leader; consume; consume; consume|RF 3, min ISR 2, acks=all, idempotent, 30 records (three sends, each one producer batch of 10 records: a model record stands for a batch), kill -9 of the leader: every acked record is kept (30/30 read back) and the ISR shrinks by the dead node|--records-per-send 10"
  "b-acks1-leader-loss|check|acks=1 faults.max_lossy_crashes=0||acks=1: the leader acks alone; kill -9 of it before any follower fetched loses the acked record (the follower is elected cleanly)"
  "c-rf2-min-isr2-not-enough-replicas|witness|brokers=3 replication_factor=2 min_insync_replicas=2 idempotence=false consumer=false faults.max_lossy_crashes=0|kill 1; produce|RF 2, min ISR 2, one replica killed, quorum kept: the ISR shrinks to the leader, the removed replica goes to the ELR, and a send with retries 0 and idempotence off gets NOT_ENOUGH_REPLICAS"
  "c-idempotent-rf2-min-isr2-timeout|witness|brokers=3 replication_factor=2 min_insync_replicas=2 idempotence=true consumer=false faults.max_lossy_crashes=0|kill 1; produce; timeout|RF 2, min ISR 2, one replica killed, quorum kept, an idempotent producer: the broker answers NOT_ENOUGH_REPLICAS, the producer retries it internally (Sender.canRetry, retries = Integer.MAX_VALUE) and the application sees only a timeout at delivery.timeout.ms"
  "d-two-of-three-combined-killed|witness|faults.max_crashes=2 faults.max_lossy_crashes=0|kill 1; kill 2; produce; timeout; restart 1; consume|3 combined nodes, two killed: no controller quorum, so no NOT_ENOUGH_REPLICAS: the send times out and the ISR stays stale; the leader had appended the record, so once the quorum is back (one killed node restarted: the controller fences the dead ISR member, the restarted follower fetches and rejoins the ISR) the timed-out record is committed and read back"
  "e-unclean-rf2-acked-lost|check|brokers=2 replication_factor=2 min_insync_replicas=1 unclean_leader_election=true controller.placement=dedicated controller.voters=1 faults.max_lossy_crashes=0||unclean election on, ISR shrunk to the leader, the leader lost: the out-of-sync replica is elected and the acked write is lost"
  "e-unclean-off-offline|witness|brokers=2 replication_factor=2 min_insync_replicas=1 unclean_leader_election=false controller.placement=dedicated controller.voters=1 consumer=false faults.max_crashes=1 faults.max_network_cuts=1 faults.max_lossy_crashes=0|cut 1 brokers; produce; kill 0|the same with unclean election off: ISR shrunk to the leader (the follower cut from replication), a write acked by the leader alone, the leader lost: nobody is elected, the partition stays offline (no leader) and the acked write is on no live replica"
  "i-release-pair-kip-903|witness|protocol=kip-903 fixes.isr_shrink_keeps_leader_epoch=true fixes.hw_frozen_below_min_isr=true fixes.directory_assignment=true controller.placement=dedicated controller.voters=1 faults.max_crashes=3 faults.max_disk_losses=1 faults.max_lossy_crashes=0 consumer=false bounds.max_partition_epoch=8 bounds.max_leader_epoch=4|produce; kill 1; kill 2; disk 0; restart 0; restart 1; restart 2|Kafka 3.9 as it runs by default (run on 3.9.1, metadata.version 3.9-IV0: the 3.6 and 3.7 fixes, directory assignment, no ELR): a record acked by all three; both followers killed (the ISR shrinks to the leader); the leader loses its disk and restarts with a new log directory id, so its registration does not elect it (its assigned directory is offline: LeaderAcceptor, KIP-858); its directory assignment moves the replica without an election; the first follower's restart elects it with the empty log and the acked record is lost"
  "i-release-pair-kip-903-mv-3.5|witness|protocol=kip-903 fixes.hw_frozen_below_min_isr=true controller.placement=dedicated controller.voters=1 faults.max_crashes=3 faults.max_disk_losses=1 faults.max_lossy_crashes=0 consumer=false bounds.max_partition_epoch=8 bounds.max_leader_epoch=4|produce; kill 1; kill 2; disk 0; restart 0; restart 1; restart 2|Kafka 3.5 as kip-903 models it (run on 3.9.1 formatted at metadata.version 3.5-IV2: ISR shrinks bump the leader epoch, no directory assignment; the HW freeze of 3.7 is broker code and stays): the same faults; the restarted leader with the empty disk is elected at its own registration and the acked record is lost (KIP-966 set out to fix this)"
  "i-release-pair-clean-kip-903|witness|protocol=kip-903 fixes.isr_shrink_keeps_leader_epoch=true fixes.hw_frozen_below_min_isr=true fixes.directory_assignment=true controller.placement=dedicated controller.voters=1 faults.max_crashes=3 faults.max_disk_losses=1 faults.max_clean_shutdowns=2 faults.max_lossy_crashes=0 consumer=false bounds.max_partition_epoch=8 bounds.max_leader_epoch=4|produce; clean 1; clean 2; disk 0; restart 0; restart 1; restart 2|Kafka 3.9 (run on 3.9.1, default metadata.version, no ELR): the release pair with the followers stopped cleanly (controlled shutdown) instead of killed: the ISR shrinks to the leader, which loses its disk; its registration does not elect it (KIP-858), the first follower's restart does, with the empty log: the acked record is lost"
  "i-release-pair-clean-kip-966|witness|protocol=kip-966 controller.placement=dedicated controller.voters=1 faults.max_crashes=3 faults.max_disk_losses=1 faults.max_clean_shutdowns=2 faults.max_lossy_crashes=0 consumer=false bounds.max_partition_epoch=8 bounds.max_leader_epoch=4|produce; clean 1; clean 2; disk 0; restart 0; restart 1; restart 2|Kafka 4.4 (ELR): the same faults; the second follower left the ISR while it was below min ISR, so it is in the ELR, and a clean restart keeps it there (KAFKA-15586): it is elected from the ELR with the record and the disk-lost leader fetches it back: nothing acked is lost (the step KIP-966 makes)"
  "i-release-pair-kip-966|witness|protocol=kip-966 controller.placement=dedicated controller.voters=1 faults.max_crashes=3 faults.max_disk_losses=1 faults.max_lossy_crashes=0 consumer=false bounds.max_partition_epoch=8 bounds.max_leader_epoch=4|produce; kill 1; kill 2; disk 0; restart 0; restart 1; restart 2|Kafka 4.4: the same faults; both followers leave the ELR on their unclean restart, so with ISR and ELR empty the controller elects the last known leader (PartitionChangeBuilder.canElectLastKnownLeader: an unclean election although unclean.leader.election.enable is false), the restarted leader with the empty disk, acceptable by then because its directory assignment (KIP-858) followed its registration, and the acked record is lost"
  "g-duplicates-idempotence-off|witness|idempotence=false bounds.max_retries=1 consumer=false faults.max_crashes=0 faults.max_lossy_crashes=0|produce; drop; retry|idempotence off, retries on, the answer to a produce request lost (dropped at the client proxy): the producer retries and the record is in the log twice"
  "g-duplicates-idempotence-on|witness|idempotence=true bounds.max_retries=1 consumer=false faults.max_crashes=0 faults.max_lossy_crashes=0|produce; drop; retry|idempotence on, the same lost answer: the retry carries the same producer id and sequence, the leader answers it as a duplicate, and the record is in the log once"
  "g-acks1-lost-response-duplicates|witness|acks=1 idempotence=false bounds.max_retries=1 consumer=false faults.max_crashes=0 faults.max_lossy_crashes=0 faults.max_lost_produce_responses=1|lose; retry|acks=1, idempotence off: the leader appends and answers at once, the answer is lost (the model's lost-response fault, dropped at the client proxy): the retry appends the record again"
  "j-acks1-pause-loss|witness|acks=1 brokers=3 replication_factor=2 min_insync_replicas=1 faults.max_pauses=1 faults.max_lossy_crashes=0 consumer=false|pause 1; produce; kill leader; resume 1|acks=1 loss window with an explicit pause: pause the follower longer than replica.fetch.wait.max.ms, produce with acks=1 (acked), kill -9 the leader, resume the follower within its session: it is elected cleanly and the acked record is gone"
  "k-reelected-leader-stale-follower|check|bounds.max_leader_moves=1 faults.max_crashes=2 faults.max_lossy_crashes=0 controller.placement=dedicated properties=no-acked-loss||a re-elected leader that skipped a leader epoch keeps its followers' offsets (Partition.makeLeader with isNewLeader false): N1 fetched r1 from N0, a preferred election moves leadership to N2 while N0's metadata replay is held (its heartbeats flow), N1 truncates r1 under N2, N2 is killed and N0 elected at epoch 2; N0 replays epochs 1 and 2 at once, counts N1's offset from epoch 0 and acks r1 while N1 (in the ISR) has an empty log; N0 is killed and N1 elected with the empty log: the acked record is lost (docs/findings.md)|--request-timeout-ms 30000 --broker-config replica.lag.time.max.ms=30000"
  "k-reelected-leader-stale-follower-kip-903|check|protocol=kip-903 fixes.isr_shrink_keeps_leader_epoch=true fixes.hw_frozen_below_min_isr=true fixes.directory_assignment=true bounds.max_leader_moves=1 faults.max_crashes=2 faults.max_lossy_crashes=0 controller.placement=dedicated properties=no-acked-loss||Kafka 3.9 as it runs by default (run on 3.9.1): the same re-elected leader that skipped a leader epoch and acks r1 from N1's stale offset; N1 elected with the empty log: the acked record is lost (docs/findings.md)|--request-timeout-ms 30000 --broker-config replica.lag.time.max.ms=30000"
  "k-power-loss-flush-none|witness|brokers=3 replication_factor=3 min_insync_replicas=2 controller.placement=dedicated controller.voters=1 consumer=false flush=none faults.max_crashes=2 faults.max_lossy_crashes=2 faults.max_network_cuts=1 bounds.max_partition_epoch=8 bounds.max_leader_epoch=4|cut 2 brokers; produce; power 1; power 0; restart 0; restart 1|power loss without flush (run on isrcheck-powerfs mounts, conformance/powerfs): RF 3, min ISR 2, the third replica cut from replication, a record acked by the leader and one follower; both lose power (kill -9, then every write since the file's last fsync dropped): Kafka did not fsync the segment (log.flush.interval.messages unset), so the acked record is on no replica; both restart: the follower leaves the ELR (unclean restart) and the old leader is elected as the last known leader with its empty log"
  "k-power-loss-flush-every-append|witness|brokers=3 replication_factor=3 min_insync_replicas=2 controller.placement=dedicated controller.voters=1 consumer=false flush=every-append faults.max_crashes=2 faults.max_lossy_crashes=2 faults.max_network_cuts=1 bounds.max_partition_epoch=8 bounds.max_leader_epoch=4|cut 2 brokers; produce; power 1; power 0; restart 0; restart 1|the same with flush.messages=1 (log.flush.interval.messages=1): leader and follower fsync each append before it counts, so both keep the acked record through the power loss, and the old leader is elected with it"
  "l-unclean-restarted-broker-unregistered|check|unclean_leader_election=true consumer=false faults.max_crashes=2 faults.max_lossy_crashes=0||issue 28, the first counterexample a new user finds (3 combined nodes, unclean election on, ELR): N0 acks r1 with N1 (N2 shrunk out, held from fetching), N0 is killed and restarted, and the controller fences it before its new incarnation registers (steering holds its BrokerRegistration and heartbeats at the controller proxies to the end): N1 leads alone with N0 in the ELR; N1 is killed, N2 is elected uncleanly with its empty log and the acked record is lost"
  # A combined voter's disk loss and restart on a KIP-853 dynamic quorum (issue 28 item 6;
  # docs/conformance.md "A combined voter's disk loss"): executable there, not on the static one.
  "m-dynamic-quorum-voter-disk-loss|witness|controller.quorum=dynamic faults.max_disk_losses=1 faults.max_lossy_crashes=0 consumer=false bounds.max_records=2|produce; disk 1; remove_voter 1; restart 1; add_voter 1; produce|3 combined nodes on a dynamic quorum (KIP-853: formatted with --initial-controllers, controller.quorum.bootstrap.servers): N1 loses its disk; the operator removes its old voter key (Admin.removeRaftVoter); N1, formatted with --no-initial-controllers, restarts as an observer on a new directory id, registers and catches up (voters [0,2], observers [1]); the operator adds its new key (Admin.addRaftVoter): voters [0,1,2] again, and the next acks=all write is committed on all three"
  # ZooKeeper mode (issue 28 item 4; docs/conformance.md "ZooKeeper mode"): Kafka 3.9 with
  # a ZooKeeper ensemble of one dedicated server (the model's voter under
  # controller.mode=zookeeper), run on 3.9.1 (kafka_conformance_zookeeper); the HW freeze
  # of KAFKA-15583 is broker code of 3.7 and applies in ZooKeeper mode too.
  "z-zk-cut-session-expiry|witness|protocol=kip-903 controller.mode=zookeeper controller.placement=dedicated controller.voters=1 fixes.hw_frozen_below_min_isr=true faults.max_lossy_crashes=0 bounds.max_records=2 bounds.max_partition_epoch=6 bounds.max_leader_epoch=4 faults.max_network_cuts=1 faults.max_crashes=0|produce; cut 1 quorum; produce; heal 1 quorum; consume|ZooKeeper mode: follower N1 cut from ZooKeeper and the controller (the driver's proxies freeze its ZooKeeper connection and its control-plane channel) loses its session after zookeeper.session.timeout.ms; the controller (onBrokerFailure) removes it from the ISR with a leader-epoch bump; a send is acked by the other two; healed, N1 registers again, fetches the record and rejoins the ISR"
  "z-zk-kill-followers-not-enough-replicas|witness|protocol=kip-903 controller.mode=zookeeper controller.placement=dedicated controller.voters=1 fixes.hw_frozen_below_min_isr=true faults.max_lossy_crashes=0 bounds.max_records=2 bounds.max_partition_epoch=6 bounds.max_leader_epoch=4 faults.max_crashes=2 idempotence=false|produce; kill 1; kill 2; produce; restart 1; consume|ZooKeeper mode: both followers killed: each one's session expires and the controller takes it out of the ISR (an epoch bump each); with the ensemble on its own node the controller can still act, so a send gets NOT_ENOUGH_REPLICAS (not a timeout as with three combined KRaft nodes); a follower restarted once its old session is gone registers and rejoins the ISR"
  "z-zk-pause-within-session|witness|protocol=kip-903 controller.mode=zookeeper controller.placement=dedicated controller.voters=1 fixes.hw_frozen_below_min_isr=true faults.max_lossy_crashes=0 bounds.max_records=2 bounds.max_partition_epoch=6 bounds.max_leader_epoch=4 faults.max_pauses=1 faults.max_crashes=0|produce; pause 2; produce; resume 2; consume|ZooKeeper mode: a follower paused shorter than its ZooKeeper session keeps it and stays in the ISR: an acks=all send waits for it and is acked once it is resumed"
  "z-zk-acks1-controller-failover|check|protocol=kip-903 controller.mode=zookeeper controller.placement=dedicated controller.voters=1 acks=1 consumer=false faults.max_lossy_crashes=0||ZooKeeper mode, acks=1: the leader, which is also the controller, acks alone and is killed; its session expires and another broker becomes controller; its failover first removes the dead leader from the ISR in a write of its own (ZkReplicaStateMachine.startup, OfflineReplica: leader -1, epoch 1), then elects the follower without the record (ZkPartitionStateMachine.startup, epoch 2): the acked record is lost"
  "f-elr-hw-frozen|witness|brokers=3 replication_factor=2 min_insync_replicas=2 idempotence=false consumer=false bounds.max_records=2 faults.max_lossy_crashes=0|produce; kill 1; produce; restart 1|ELR: with the ISR below min ISR the removed replica is in the ELR, a send is refused and the HW is frozen until the replica returns"
)
# Entries under open/ diverge on Kafka 4.4 for a reason documented in docs/conformance.md
# ("Divergences"); the CI suite is the top directory.
open_corpus=()
corpus=(acks-1-leader-loss acks-0-no-broker-ack min-isr-1-single-copy no-fsync-power-loss
        hw-truncation-leader-change kip-101-divergent-epochs kip-279-stale-follower-hw kip-320-unnoticed-bounce maximal-isr-off-shrink-before-commit
        kip-497-stale-incarnation kip-903-last-replica-disk-loss combined-placement-two-losses unclean-leader-election
        acks-1-lost-response-duplicates)
# Export options of a corpus entry. acks-1-lost-response-duplicates ends before any
# follower fetched, so steering cuts both followers from replication across the
# producer's own retry of the lost answer, which comes after request.timeout.ms: below
# replica.lag.time.max.ms (2 s) with margin, else the leader shrinks the ISR, which the
# trace does not (docs/conformance.md).
declare -A corpus_export=([acks-1-lost-response-duplicates]="--request-timeout-ms 500")

rm -f "$here"/*.json "$here"/open/*.json
mkdir -p "$tmp/open" "$here/open"
: > "$here/sentences.tsv"
for entry in "${entries[@]}"; do
  IFS='|' read -r name source settings script sentence export_args <<<"$entry"
  set_args=()
  for s in $settings; do set_args+=(--set "$s"); done
  trace="$tmp/$name.trace.json"
  case "$source" in
    check)
      # check exits 1 when it finds the violation: success is a written trace.
      "$isrcheck" check "${set_args[@]}" --quiet --trace-out "$trace" >/dev/null || true ;;
    witness)
      "$isrcheck" witness "${set_args[@]}" --script "$script" --description "$sentence" --trace-out "$trace" >/dev/null ;;
  esac
  [[ -s "$trace" ]] || { echo "generate.sh: no trace for $name" >&2; exit 1; }
  # shellcheck disable=SC2086  # export_args is a list of options
  "$isrcheck" export "$trace" --format scenario --name "${name#open/}" --out "$here/$name.json" $export_args
  printf '%s\t%s\t%s\n' "$name" "$source: $settings${script:+ / $script}${export_args:+ / export $export_args}" "$sentence" >> "$here/sentences.tsv"
done
for c in "${corpus[@]}"; do
  args="${corpus_export[$c]:-}"
  # shellcheck disable=SC2086  # args is a list of options
  "$isrcheck" export "$repo/counterexamples/corpus/$c.json" --format scenario --name "h-corpus-$c" --out "$here/h-corpus-$c.json" $args
  printf '%s\t%s\t%s\n' "h-corpus-$c" "corpus: counterexamples/corpus/$c.json${args:+ / export $args}" "corpus hazard $c (docs/corpus.md)" >> "$here/sentences.tsv"
done
for c in "${open_corpus[@]}"; do
  "$isrcheck" export "$repo/counterexamples/corpus/$c.json" --format scenario --name "h-corpus-$c" --out "$here/open/h-corpus-$c.json"
  printf '%s\t%s\t%s\n' "open/h-corpus-$c" "corpus: counterexamples/corpus/$c.json" "corpus hazard $c (docs/corpus.md)" >> "$here/sentences.tsv"
done
echo "generate.sh: $(find "$here" -maxdepth 1 -name '*.json' | wc -l) scenarios in $here, $(find "$here/open" -name '*.json' | wc -l) in $here/open"
