// What built this nwnsim: version, commit, build type, compiler, SystemC.
#pragma once
#include <string>

namespace nwn {

struct BuildInfo {
  std::string version;     // the project version (CMakeLists.txt)
  std::string commit;      // git describe of the source tree at configure time ("unknown" outside git)
  std::string build_type;  // CMAKE_BUILD_TYPE
  std::string compiler;
  std::string systemc;     // SystemC's own version string
};
const BuildInfo& build_info();
// SystemC's version, its first line (sc_version() spans several).
std::string systemc_version_line();
// The lines `nwnsim --version` prints.
std::string version_text();

}  // namespace nwn
