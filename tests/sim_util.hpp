// Helpers for tests that simulate. SystemC elaborates once per process: ctest
// runs every TEST in its own process; when the binary is run by hand, later
// simulating tests skip.
#pragma once
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config.hpp"
#include "sim/experiment.hpp"

namespace nwn::test {

inline bool& simulated_in_this_process() {
  static bool done = false;
  return done;
}

#define NWN_ONE_SIMULATION_PER_PROCESS()                                                      \
  do {                                                                                        \
    if (::nwn::test::simulated_in_this_process())                                             \
      GTEST_SKIP() << "SystemC allows one simulation per process; run this test through ctest"; \
    ::nwn::test::simulated_in_this_process() = true;                                          \
  } while (0)

inline Config config(std::initializer_list<std::string> sets) {
  Config c;
  for (auto& s : sets) c.set_override(s);
  return c;
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A JSON result without its provenance block (the command line, date and
// host differ between runs; everything else must not).
inline std::string without_provenance(const std::string& path) {
  auto j = nlohmann::ordered_json::parse(slurp(path));
  j.erase("provenance");
  return j.dump(2);
}

// A file name in the test temp directory, unique to the running test
// (parameterized tests are named Test/Case: the '/' becomes '_').
inline std::string temp_path(const std::string& name) {
  std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  for (char& c : test)
    if (c == '/') c = '_';
  return ::testing::TempDir() + "/" + test + "-" + name;
}

// Runs a shell command line; its output is stdout and stderr together.
inline CommandResult shell(const std::string& command) {
  CommandResult r;
  const std::string cmd = command + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Runs the nwnsim program with the given arguments.
inline CommandResult nwnsim(const std::string& args) { return shell(std::string(NWNSIM_BINARY) + " " + args); }

}  // namespace nwn::test
