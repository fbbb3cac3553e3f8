// What made a results file: the nwnsim build (the strings of
// `nwnsim --version`), the command line, when and where it ran, and the
// run's seed and threads. Written beside the effective config in every JSON
// result, and as a comment line heading every CSV.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace nwn {

class Config;

// Recorded by nwnsim_main before the command runs.
void set_command_line(int argc, char** argv);
// The command line, each argument shell-quoted when it needs to be.
const std::string& command_line();
// The provenance block; `cfg` (when given) adds sim.seed and sim.threads.
nlohmann::ordered_json provenance(const Config* cfg = nullptr);
// "# nwnsim VERSION commit COMMIT\n": the first line of every CSV we write.
std::string csv_provenance_line();

}  // namespace nwn
