// The metadata.version levels that switch two fixes off on a KRaft cluster
// (metadata_version.h). Kafka: org.apache.kafka.server.common.MetadataVersion: the leader
// epoch stays on ISR shrink from IBP_3_6_IV0 (level 12, KAFKA-15021), directory
// assignment from IBP_3_7_IV2 (level 17, KIP-858); the level named is the newest
// production one (IBP_3_5_IV2 = 11, IBP_3_7_IV0 = 15) without the fix.
#include "spec/partition/metadata_version.h"

namespace isr::spec {

bool fix_gated_by_metadata_version(std::string_view fix) {
  return fix == "isr_shrink_keeps_leader_epoch" || fix == "directory_assignment";
}

int metadata_version_level(bool isr_shrink_keeps_leader_epoch, bool directory_assignment) {
  if (!isr_shrink_keeps_leader_epoch && !directory_assignment) return 11;  // 3.5-IV2
  if (isr_shrink_keeps_leader_epoch && !directory_assignment) return 15;   // 3.7-IV0
  return 0;
}

}  // namespace isr::spec
