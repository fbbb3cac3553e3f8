#pragma once

#include <functional>
#include <string>
#include <vector>

#include "../atomic_file.hpp"
#include "../config.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace nwn {

// The nwnsim command line: run, sweep, bench, config, and the commands other
// files register. Returns the exit code.
int nwnsim_main(int argc, char** argv);

// A file adds its own subcommands by registering an adder (a static
// CommandRegistration at the bottom of the file). The adder creates the
// subcommand on `app` and sets a callback that stores the command's exit code
// in `exit_code`. Exceptions from callbacks are reported like any command's:
// ConfigError and std::invalid_argument exit 2 with the message.
using CommandAdder = std::function<void(CLI::App& app, int& exit_code)>;
std::vector<CommandAdder>& command_registry();

// Makes an option that names an output checked when the command line is
// parsed, before anything is simulated: a path that cannot be written (see
// output_problem) is an error naming the flag and the path (exit 2).
CLI::Option* output_option(CLI::Option* opt, OutputKind kind = OutputKind::File);

struct CommandRegistration {
  explicit CommandRegistration(CommandAdder f) { command_registry().push_back(std::move(f)); }
};

// Exit codes of every command (README: 2 bad input, 3 a stuck network, 4 flits lost).
constexpr int kExitConfig = 2, kExitDeadlock = 3, kExitConservation = 4, kExitFailure = 1;

// The config arguments run, sweep and config share: a TOML file, --set
// overrides and the flags that set one key each.
struct ConfigArgs {
  std::string file;
  std::vector<std::string> sets;
  std::string allocator;  // --allocator: router.allocator_impl
  std::string trace_rtl;  // --trace-rtl: router.rtl_trace_file
  int threads = 0;        // --threads: sim.threads
};
void add_config_args(CLI::App* cmd, ConfigArgs& a);
Config load_config(const ConfigArgs& a);
// What the flags of `a` set, in load_config's order: KEY=VALUE and the
// argument that says so (`--set KEY=VALUE`, `--allocator NAME`, ...).
struct CommandLineSetting {
  std::string setting, argument;
  std::string key() const { return setting.substr(0, setting.find('=')); }
};
std::vector<CommandLineSetting> command_line_settings(const ConfigArgs& a);
// The arguments that give a child nwnsim the config of `a`.
std::vector<std::string> config_child_args(const ConfigArgs& a);
// `a` for a job that may start in another directory: the config file and the
// files named by --set (is_file_key) by absolute paths, as the config file's
// own traffic.trace_file already is (Config::load_file). (The file's other
// file keys, e.g. power.tech_file, resolve against the job's directory.)
ConfigArgs with_absolute_paths(const ConfigArgs& a);

// --seeds' help, and --columns' (the statistics columns_help lists).
extern const char* const seeds_help;
std::string columns_flag_help();

// The commands of cli.cpp's own files, added in this order before the
// registered ones (sweep.cpp, bench.cpp).
void add_sweep_command(CLI::App& app, int& exit_code);
void add_bench_command(CLI::App& app, int& exit_code);

}  // namespace nwn
