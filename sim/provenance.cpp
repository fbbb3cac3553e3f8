#include "provenance.hpp"

#include <unistd.h>

#include <ctime>

#include "config.hpp"
#include "ranks.hpp"
#include "version.hpp"

namespace nwn {
namespace {

std::string& stored_command_line() {
  static std::string line = "nwnsim";
  return line;
}

// Quoted for a POSIX shell when it holds anything but safe characters.
std::string shell_quoted(const std::string& arg) {
  const bool safe = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                          "0123456789_-+=.,:/@%") == std::string::npos;
  if (safe) return arg;
  std::string q = "'";
  for (char c : arg) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

void set_command_line(int argc, char** argv) {
  std::string line = "nwnsim";
  for (int i = 1; i < argc; ++i) line += " " + shell_quoted(argv[i]);
  stored_command_line() = line;
}

const std::string& command_line() { return stored_command_line(); }

nlohmann::ordered_json provenance(const Config* cfg) {
  const BuildInfo& b = build_info();
  nlohmann::ordered_json j;
  j["version"] = b.version;
  j["commit"] = b.commit;
  j["build_type"] = b.build_type;
  j["compiler"] = b.compiler;
  j["systemc"] = systemc_version_line();
  j["command_line"] = command_line();
  char date[32] = "";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  j["date_utc"] = date;
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  j["host"] = host;
  if (cfg) {
    j["seed"] = cfg->get_int("sim.seed");
    j["threads"] = cfg->get_int("sim.threads");
  }
  if (process_ranks().distributed()) j["ranks"] = process_ranks().size();  // mpirun -np
  return j;
}

std::string csv_provenance_line() {
  const BuildInfo& b = build_info();
  return "# nwnsim " + b.version + " commit " + b.commit + "\n";
}

}  // namespace nwn
