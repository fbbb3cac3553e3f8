#include "process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>

extern char** environ;

namespace nwn {

std::string self_executable() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find the nwnsim executable (/proc/self/exe)");
  buf[n] = 0;
  return buf;
}

namespace {
constexpr const char* kHugePageTunable = "glibc.malloc.hugetlb=1";
}  // namespace

bool huge_pages_requested() {
  const char* env = std::getenv("GLIBC_TUNABLES");
  return env && std::string(env).find(kHugePageTunable) != std::string::npos;
}

void restart_with_huge_pages(char** argv) {
#if defined(__SANITIZE_ADDRESS__)
  (void)argv;
#else
  if (std::getenv("NWNSIM_NO_HUGE_PAGES")) return;
  const char* env = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = env ? env : "";
  if (tunables.find("glibc.malloc.hugetlb") != std::string::npos) return;
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  const std::string mode((std::istreambuf_iterator<char>(thp)), std::istreambuf_iterator<char>());
  if (mode.empty() || mode.find("[never]") != std::string::npos) return;
  const std::string value = tunables.empty() ? kHugePageTunable : tunables + ":" + kHugePageTunable;
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);  // returns only if it failed: run on as we are
  if (env) setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
  else unsetenv("GLIBC_TUNABLES");
#endif
}

namespace {
pid_t spawn(const std::string& exe, const Job& job) {
  std::vector<std::string> argv_s;
  argv_s.push_back(exe);
  argv_s.insert(argv_s.end(), job.args.begin(), job.args.end());
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (job.quiet) posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot start a child nwnsim process");
  return pid;
}
}  // namespace

void run_jobs_impl(std::vector<Job>& jobs, int parallel, void (*cb)(void*, std::size_t), void* ctx) {
  const std::string exe = self_executable();
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0;
  if (parallel < 1) parallel = 1;
  while (next < jobs.size() || !running.empty()) {
    while (next < jobs.size() && int(running.size()) < parallel) {
      running[spawn(exe, jobs[next])] = next;
      ++next;
    }
    int status = 0;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) throw std::runtime_error("waitpid failed");
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const std::size_t i = it->second;
    running.erase(it);
    jobs[i].exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    cb(ctx, i);
  }
}

}  // namespace nwn
