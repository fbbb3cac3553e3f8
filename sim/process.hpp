// Child processes of nwnsim itself: SystemC elaborates once per process, so
// every simulation point of a sweep or benchmark runs in its own child.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace nwn {

struct Job {
  std::vector<std::string> args;  // arguments after the program name
  bool quiet = true;              // child's stdout to /dev/null
  int exit_code = -1;
};

// Runs the jobs with at most `parallel` children at once; each job's exit code
// is filled in. `on_done(i)` is called as job i finishes (in finishing order).
// SIGINT and SIGTERM are forwarded to the running children, which are reaped;
// then no more start and run_jobs throws Interrupted (on_done is still called
// for a child that exited 0, so its finished work is kept).
template <typename OnDone>
void run_jobs(std::vector<Job>& jobs, int parallel, OnDone on_done);

void run_jobs_impl(std::vector<Job>& jobs, int parallel, void (*cb)(void*, std::size_t), void* ctx);

template <typename OnDone>
void run_jobs(std::vector<Job>& jobs, int parallel, OnDone on_done) {
  run_jobs_impl(jobs, parallel, [](void* c, std::size_t i) { (*static_cast<OnDone*>(c))(i); }, &on_done);
}

// A command stopped by SIGINT or SIGTERM; nwnsim exits with 128 + signal.
class Interrupted : public std::runtime_error {
 public:
  explicit Interrupted(int sig);
  int signal;
};

std::string self_executable();

// A data file of nwnsim (`relative`: its path in the source tree, e.g.
// "scripts/plot_sweep.py" or "configs/paper"): an installed nwnsim's copy
// beside the executable (<prefix>/share/nwnsim/RELATIVE, cmake --install),
// else the source tree's that the program was built from.
std::string data_path(const std::string& relative);
// The directory data_path reads: the install's share/nwnsim when it has the
// plot scripts, else the source tree (`nwnsim --version` shows it).
std::string data_dir();

// Runs a plot script (`args`: the script's path relative to the source tree,
// found by data_path, then its arguments) with Python, directly, no shell between:
// NWNSIM_PYTHON if set, else the first python3 on PATH that has matplotlib
// (else the first python3, whose error then says what is missing). The
// script's output and errors go to ours. Returns "" on success, else what
// failed, with the command.
std::string run_plot_script(const std::vector<std::string>& args);
// The nwnsim version and build: the project version and a checksum of the
// executable, so results of one build are never taken for another's.
const std::string& nwnsim_version();

// A large network does not fit in the caches, and with 4 KB pages nearly
// every buffer or link a cycle visits also misses the TLB. glibc's malloc
// asks the kernel for transparent huge pages when the tunable
// glibc.malloc.hugetlb=1 is set, which glibc reads only at process start,
// so nwnsim starts itself once more with it (docs/RESULTS.md: 10-15 % more
// cycles per second on the 4,096-node folded Clos). Results do not change.
// NWNSIM_NO_HUGE_PAGES=1, a GLIBC_TUNABLES that already names the tunable,
// a kernel with huge pages off, or a sanitizer build keep the process as it
// is. Returns only when the process is not restarted.
void restart_with_huge_pages(char** argv);
// Whether this process's malloc asks for huge pages.
bool huge_pages_requested();

}  // namespace nwn
