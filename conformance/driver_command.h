// Where the conformance driver is (conformance/driver/, built by scripts/install-kafka.sh)
// and the command line that starts it. One order of places for every entry point, the
// conform command (--driver) and the generated GoogleTests over real Kafka
// (shared_session), so that both find the same driver from the same place.
#pragma once

#include <string>
#include <vector>

namespace isr::conformance {

// The driver's location, the first of:
//   1. `explicit_path` when not empty (isrcheck conform --driver);
//   2. $ISRCHECK_KAFKA_DRIVER when set and not empty;
//   3. conformance/ next to the running binary, when it exists: build/conformance for
//      build/isrcheck and the test binaries in build/, wherever the command runs from;
//   4. build/conformance under the current directory, when it exists (a binary built
//      elsewhere, run from the repository);
//   5. otherwise the place of 3 (of 4 when the binary's path is unknown), which
//      read_driver_command then names in its error.
// A directory or a command file (see read_driver_command).
std::string driver_location(const std::string& explicit_path = "");

// The driver's command line: from the directory scripts/install-kafka.sh builds into
// (build/conformance: the driver jar and classpath files), or from a file holding one
// argument per line. Throws std::invalid_argument naming the path.
std::vector<std::string> read_driver_command(const std::string& file);

}  // namespace isr::conformance
