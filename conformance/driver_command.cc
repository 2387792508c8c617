// Where the conformance driver is and how it starts (see driver_command.h).
#include "conformance/driver_command.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace isr::conformance {

namespace fs = std::filesystem;

std::string driver_location(const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  if (const char* env = std::getenv("ISRCHECK_KAFKA_DRIVER"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path beside = ec ? fs::path() : self.parent_path() / "conformance";
  const fs::path in_tree = fs::path("build") / "conformance";
  if (!beside.empty() && fs::exists(beside, ec)) return beside.string();
  if (fs::exists(in_tree, ec)) return in_tree.string();
  return (beside.empty() ? in_tree : beside).string();
}

std::vector<std::string> read_driver_command(const std::string& file) {
  std::error_code ec;
  if (fs::is_directory(file, ec)) {
    // The output directory of scripts/install-kafka.sh: the driver jar, the driver's
    // classpath file, and one <version>/classpath.txt per Kafka release.
    const fs::path dir = fs::absolute(file);
    const fs::path jar = dir / "driver" / "target" / "isrcheck-conformance-driver.jar";
    std::ifstream cp(dir / "driver" / "classpath.txt");
    std::string classpath((std::istreambuf_iterator<char>(cp)), std::istreambuf_iterator<char>());
    while (!classpath.empty() && (classpath.back() == '\n' || classpath.back() == ' ')) classpath.pop_back();
    if (!fs::exists(jar) || !cp) {
      throw std::invalid_argument(file + ": no driver jar or classpath (run scripts/install-kafka.sh)");
    }
    return {"java", "-cp", jar.string() + (classpath.empty() ? "" : ":" + classpath),
            "org.isrcheck.conformance.Driver", "--kafka-classpath-dir", dir.string()};
  }
  std::ifstream in(file);
  if (!in) throw std::invalid_argument(file + ": cannot read the driver command (run scripts/install-kafka.sh)");
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(line);
  if (out.empty()) throw std::invalid_argument(file + ": empty driver command");
  return out;
}

}  // namespace isr::conformance
