// The error every reader of user input raises for a bad field: `field` is the dotted key
// at fault ("faults.max_crashes", "--config"), the message says what is allowed. The
// command line turns it into exit code 2. It lives on the ground floor, beside the field
// readers that throw it, so that any model's configuration parser words its errors the
// same way without depending on another model.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace isr::io {

struct ConfigError : std::runtime_error {
  ConfigError(std::string field, const std::string& message)
      : std::runtime_error(field + ": " + message), field(std::move(field)) {}
  std::string field;
};

}  // namespace isr::io
