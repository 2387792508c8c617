// The partition model's action kinds in Kafka's terms (action_meanings.h). The classes
// named are the ones the rule files cite for the same step (produce.cc, replication.cc,
// isr.cc, controller.cc, zookeeper.cc, faults.cc, consumer.cc).
#include "spec/partition/action_meanings.h"

namespace isr::spec {

const std::vector<NameRow>& partition_action_meanings() {
  static const std::vector<NameRow> rows = {
      {"Produce", "a produce request reaches the broker it names and its leader appends the record "
                  "(ReplicaManager.appendRecords -> Partition.appendRecordsToLeader; min ISR checked before the append)", {}},
      {"ProduceTimeout", "the producer's request gets no answer within request.timeout.ms: the send fails or is "
                         "re-enqueued (NetworkClient disconnect, RecordAccumulator.reenqueue); its outcome is unknown. With "
                         "expire_unsent_batches, also (unsent) a batch that never left the client expires in the "
                         "accumulator after delivery.timeout.ms (RecordAccumulator.expiredBatches -> Sender.failBatch)", {}},
      {"Fetch", "a follower's fetch request, handled by the broker it believes leads: the leader records the fetch "
                "offset and may advance its HW (Partition.fetchRecords, updateFollowerFetchState, maybeIncrementLeaderHW)", {}},
      {"FetchResponse", "the follower handles the fetch response: appends the records, takes min(LEO, leader HW) as its "
                        "HW, or truncates on a diverging epoch (AbstractFetcherThread.processFetchRequest, "
                        "ReplicaFetcherThread.processPartitionData)", {}},
      {"EpochQuery", "a follower reconciles its log with the leader through OffsetsForLeaderEpoch and truncates to the "
                     "answer (AbstractFetcherThread.truncateToEpochEndOffsets; KIP-101, KIP-279)", {}},
      {"ShrinkIsr", "the leader proposes removing the followers that did not catch up within replica.lag.time.max.ms, "
                    "one or several in one change (Partition.maybeShrinkIsr -> getOutOfSyncReplicas, sent as "
                    "AlterPartition, KIP-497)", {}},
      {"AlterPartition", "the controller handles the leader's AlterPartition: compare-and-set on the partition epoch, "
                         "broker epochs checked (KIP-903), ELR maintained (KIP-966) "
                         "(ReplicationControlManager.alterPartition)", {}},
      {"FenceBroker", "the controller fences a broker whose heartbeats stopped (session timeout) and moves leadership "
                      "away from it (ReplicationControlManager.maybeFenceOneStaleBroker, PartitionChangeBuilder)", {}},
      {"RegisterBroker", "a restarted broker registers with a new broker epoch and is unfenced once caught up "
                         "(ClusterControlManager.registerBroker, BrokerHeartbeatManager.calculateNextBrokerState)", {}},
      {"UnfenceBroker", "a broker reachable again resumes heartbeats and is unfenced; the change may elect it "
                        "(BrokerHeartbeatManager.calculateNextBrokerState, PartitionChangeBuilder)", {}},
      {"UncleanElection", "the controller elects a live replica outside ISR and ELR, unclean.leader.election.enable "
                          "(ReplicationControlManager.maybeElectUncleanLeaders, ElectionResult.unclean)", {}},
      {"PreferredElection", "the controller moves leadership back to the preferred replica without a failure "
                            "(ReplicationControlManager.electLeader, Admin.electLeaders)", {}},
      {"MetadataUpdate", "a broker catches up with the metadata log and becomes leader or follower of the partition "
                         "(ReplicaManager.applyDelta -> Partition.makeLeader / makeFollower; ZooKeeper mode: "
                         "LeaderAndIsr, or UpdateMetadata refreshing a follower's metadata cache)", {}},
      {"ControllerFailover", "another voter becomes the active controller, with a new controller epoch (the KRaft "
                             "quorum leader: QuorumState.transitionToLeader; ZooKeeper mode: KafkaController.elect, "
                             "then onControllerFailover's offline replicas and election)", {}},
      {"Crash", "a node stops: clean shutdown (controlled, LogManager.shutdown), kill -9 (page cache kept), power "
                "loss (unflushed suffix lost) or disk loss (log lost)", {}},
      {"Restart", "a stopped node starts again and recovers its log and HW checkpoint (LogLoader.recoverLog)", {}},
      {"Cut", "a network partition cuts a node off from the controller quorum, the other brokers or the clients", {}},
      {"Heal", "a network cut heals", {}},
      {"Flush", "a broker fsyncs its log: the flushed prefix survives a power loss (UnifiedLog.flush)", {}},
      {"CheckpointHw", "a broker writes its HW to replication-offset-checkpoint "
                       "(ReplicaManager.checkpointHighWatermarks, replica.high.watermark.checkpoint.interval.ms)", {}},
      {"Consume", "the consumer reads its next offset from a broker that believes it leads, never past its HW "
                  "(Partition.fetchRecords, FetchHighWatermark isolation)", {}},
      {"SessionExpiry", "ZooKeeper expires a broker's session and deletes its ephemeral /brokers/ids znode "
                        "(zookeeper.session.timeout.ms; KafkaController.processBrokerChange)", {}},
      {"BrokerBounce", "the ZooKeeper-mode controller handles a re-registration as a bounce (KIP-380: same id, new "
                       "czxid; KafkaController.processBrokerChange)", {}},
      {"DeposedWrite", "a deposed ZooKeeper-mode controller performs a queued partition-state write "
                       "(KafkaZkClient.updateLeaderAndIsr, fenced by the zkVersion only)", {}},
      {"StaleLeaderAndIsr", "a broker handles a LeaderAndIsr request of a deposed controller "
                            "(ReplicaManager.becomeLeaderOrFollower, ReplicaManager.controllerEpoch check)", {}},
      {"AssignReplicasToDirs", "the controller moves a broker's replica to its new log directory (KIP-858, "
                               "ReplicationControlManager.handleAssignReplicasToDirs)", {}},
      {"Pause", "a node's process freezes (SIGSTOP, a GC pause, a VM freeze): its sessions expire while its state "
                "is kept", {}},
      {"Resume", "a frozen process continues (SIGCONT) with the state it had", {}},
      {"Reassign", "an operator moves the partition to a new set of brokers: the new replicas join the assignment "
                   "at once, the old ones leave it once every target replica is in the ISR (Admin."
                   "alterPartitionReassignments, KIP-455; ReplicationControlManager.changePartitionReassignment, "
                   "PartitionChangeBuilder.completeReassignmentIfNeeded)", {}},
      {"RemoveVoter", "an operator removes the voter key of a controller whose disk was lost from the voter set "
                      "(dynamic quorum, KIP-853: Admin.removeRaftVoter, kafka-raft RemoveVoterHandler)", {}},
      {"AddVoter", "an operator adds a caught-up observer's new voter key, with its new directory id, to the voter set "
                   "(dynamic quorum, KIP-853: Admin.addRaftVoter, kafka-raft AddVoterHandler, LeaderState.isReplicaCaughtUp)", {}},
  };
  return rows;
}

}  // namespace isr::spec
