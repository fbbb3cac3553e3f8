#pragma once

#include <functional>
#include <vector>

#include "../atomic_file.hpp"

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

}  // namespace nwn
