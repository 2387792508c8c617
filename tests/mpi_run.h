// The command prefixes the mpirun tests (label mpi) share: `mpirun` on N ranks of this
// machine, bounded by `timeout`, and the isrcheck binary under test, both shell-quoted.
// Needs ISRCHECK_MPIEXEC and ISRCHECK_BINARY (CMakeLists.txt defines them).
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace isr::mpi_test {

inline std::string mpirun(int ranks, int timeout_seconds = 300) {
  // CI runs as root, which OpenMPI refuses unless told; the network stays on loopback.
  if (geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  return "timeout " + std::to_string(timeout_seconds) + " '" + ISRCHECK_MPIEXEC + "' --oversubscribe -np " +
         std::to_string(ranks) + " --mca btl self,vader,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo ";
}

inline std::string isrcheck() { return std::string("'") + ISRCHECK_BINARY + "' "; }

}  // namespace isr::mpi_test
