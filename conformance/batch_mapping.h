// A scenario whose model record stands for one producer batch of k Kafka records
// (clients.producer.records_per_send = k, read by
// counterexamples/scenario/scenario_reader.h; docs/conformance.md, "A model record as a
// batch"): the mapping of what Kafka exposes, record by record, onto the model's
// records. Kafka appends, replicates, acknowledges and truncates whole batches
// (RecordAccumulator batches per partition; UnifiedLog.append assigns a batch's offsets
// in one append; a follower fetches and appends whole batches; truncation points and
// leader epochs are per batch), so a log of such batches is the model's log scaled by k.
//
// Everything here is a pure function of the driver's answers, so that the mapping is
// tested without a cluster (tests/conformance_test.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "counterexamples/scenario/cluster_under_test.h"

namespace isr::conformance {

// Never equal to a model value (record ids and offsets are >= 0): a Kafka observation
// that does not map onto the model shows as this, so it is never taken for a match.
inline constexpr int kUnmapped = -999;

// The value of the i-th Kafka record (1-based) of model record m: "record-<m>.<i>".
std::string batch_record_value(int m, int i);

// The model record a batch of values stands for: m when the values are exactly
// record-<m>.1 .. record-<m>.k in order; kUnmapped otherwise.
int model_record_of(const std::vector<std::string>& values, int k);

// A Kafka offset (an LEO, the HW, a consumed offset) as a model offset: offset / k at a
// batch boundary, kUnmapped inside a batch.
int model_offset(long long kafka_offset, int k);

// A replica's log in model records, from the driver's `batches` (each {base, count,
// epoch, values}): batch j maps to [epoch, m] when it is the j-th batch of k records at
// base offset j*k standing for model record m, to [epoch, kUnmapped] otherwise.
std::vector<cut::LogRecord> model_log_of(const nlohmann::json& batches, int k);

}  // namespace isr::conformance
