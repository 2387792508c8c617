// The composed model's default configuration, checked exhaustively: one crash, so that
// the KRaft leader may crash while an AlterPartition record it appended is still
// uncommitted (tests/cluster_test.cc shows such states are reached), and every
// property, no-acked-loss and committed-metadata-only included, holds. About a million
// states: too long for the fast pass.
#include <gtest/gtest.h>

#include "checker/bfs/bfs.h"
#include "spec/cluster/cluster_config.h"
#include "spec/cluster/cluster_model.h"

namespace {

TEST(ClusterSlow, DefaultConfigurationHolds) {
  const isr::spec::cluster::ClusterModel m(isr::spec::cluster::default_config());
  isr::checker::BfsOptions options;
  options.threads = 2;
  const auto r = isr::checker::bfs(m, options);
  EXPECT_EQ(r.verdict, isr::checker::Verdict::Holds) << r.property;
  EXPECT_GT(r.distinct_states, 1000000u);
}

}  // namespace
