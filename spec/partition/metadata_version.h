// The fixes a real KRaft cluster switches off through the metadata.version its storage is
// formatted at (`kafka-storage format --feature metadata.version=L`), and the level that
// does it. One decision for both users: `export` writes the level into a scenario's
// features (counterexamples/export/export_scenario.cc), and `conform` counts a trace that
// turns these fixes off as executable on a release that has them
// (conformance/release_fixes.cc).
#pragma once

#include <string_view>

namespace isr::spec {

// Whether the fix named `fix` (a FixInfo name, `list fixes`) is gated by metadata.version
// in a KRaft cluster: isr_shrink_keeps_leader_epoch and directory_assignment.
bool fix_gated_by_metadata_version(std::string_view fix);

// The metadata.version feature level to format a KRaft cluster at for a model with these
// two fixes on or off, or 0 when the release's default level will do: 11 (3.5-IV2) with
// both off, 15 (3.7-IV0) with only directory_assignment off. With only the epoch fix off
// no production level has directory assignment without it, so 0.
int metadata_version_level(bool isr_shrink_keeps_leader_epoch, bool directory_assignment);

}  // namespace isr::spec
