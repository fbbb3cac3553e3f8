// Child processes of nwnsim itself: SystemC elaborates once per process, so
// every simulation point of a sweep or benchmark runs in its own child.
#pragma once
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
template <typename OnDone>
void run_jobs(std::vector<Job>& jobs, int parallel, OnDone on_done);

void run_jobs_impl(std::vector<Job>& jobs, int parallel, void (*cb)(void*, std::size_t), void* ctx);

template <typename OnDone>
void run_jobs(std::vector<Job>& jobs, int parallel, OnDone on_done) {
  run_jobs_impl(jobs, parallel, [](void* c, std::size_t i) { (*static_cast<OnDone*>(c))(i); }, &on_done);
}

std::string self_executable();

}  // namespace nwn
