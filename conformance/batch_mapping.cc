// Kafka batches as model records (see batch_mapping.h).
#include "conformance/batch_mapping.h"


namespace isr::conformance {

using nlohmann::json;

std::string batch_record_value(int m, int i) { return "record-" + std::to_string(m) + "." + std::to_string(i); }

int model_record_of(const std::vector<std::string>& values, int k) {
  if (k < 1 || static_cast<int>(values.size()) != k) return kUnmapped;
  const std::string& first = values[0];
  const std::string prefix = "record-";
  const size_t dot = first.rfind('.');
  if (first.rfind(prefix, 0) != 0 || dot == std::string::npos || dot <= prefix.size()) return kUnmapped;
  const std::string digits = first.substr(prefix.size(), dot - prefix.size());
  if (digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos) return kUnmapped;
  const int m = std::stoi(digits);
  for (int i = 0; i < k; ++i)
    if (values[static_cast<size_t>(i)] != batch_record_value(m, i + 1)) return kUnmapped;
  return m;
}

int model_offset(long long kafka_offset, int k) {
  if (k < 1 || kafka_offset < 0 || kafka_offset % k != 0) return kUnmapped;
  return static_cast<int>(kafka_offset / k);
}

std::vector<cut::LogRecord> model_log_of(const json& batches, int k) {
  std::vector<cut::LogRecord> out;
  if (!batches.is_array()) return out;
  long long expected_base = 0;
  for (const json& b : batches) {
    const int epoch = b.value("epoch", kUnmapped);
    std::vector<std::string> values;
    for (const json& v : b.value("values", json::array())) values.push_back(v.is_string() ? v.get<std::string>() : "");
    const bool whole = b.value("base", -1LL) == expected_base && b.value("count", -1) == k;
    out.push_back({epoch, whole ? model_record_of(values, k) : kUnmapped});
    expected_base += k;
  }
  return out;
}

}  // namespace isr::conformance
