#include "version.hpp"

#include <systemc>

#include <fmt/format.h>

#include "process.hpp"

namespace nwn {

const BuildInfo& build_info() {
  static const BuildInfo info{NWNSIM_VERSION, NWNSIM_GIT_COMMIT, NWNSIM_BUILD_TYPE,
                              fmt::format("{} {}", NWNSIM_COMPILER_ID, NWNSIM_COMPILER_VERSION),
                              sc_core::sc_version()};
  return info;
}

std::string systemc_version_line() {
  std::string systemc = build_info().systemc;
  if (auto nl = systemc.find('\n'); nl != std::string::npos) systemc.resize(nl);
  return systemc;
}

std::string version_text() {
  const BuildInfo& b = build_info();
  return fmt::format("nwnsim {}\ncommit {}\nbuild {}\ncompiler {}\n{}\nplot scripts and presets in {}\n",
                     b.version, b.commit, b.build_type, b.compiler, systemc_version_line(), data_dir());
}

}  // namespace nwn
