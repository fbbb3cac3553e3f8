#include "process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>

#include "atomic_file.hpp"

extern char** environ;

namespace nwn {

Interrupted::Interrupted(int sig)
    : std::runtime_error(std::string("interrupted by ") +
                         (sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal")),
      signal(sig) {}

const std::string& nwnsim_version() {
  static const std::string v = std::string(NWNSIM_VERSION) + "+" + fnv1a_hex(read_file("/proc/self/exe"));
  return v;
}

std::string self_executable() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find the nwnsim executable (/proc/self/exe)");
  buf[n] = 0;
  return buf;
}

namespace {

// Runs `argv` (argv[0] a path) and waits; -1 when it cannot start (errno set).
int spawn_and_wait(const std::vector<std::string>& args, bool silent) {
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (silent) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  pid_t pid = 0;
  const int err = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    errno = err;
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string plot_python() {
  if (const char* configured = std::getenv("NWNSIM_PYTHON"); configured && *configured) return configured;
  std::vector<std::string> found;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t at = 0; at <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', at), dirs.size());
    const std::string python = (end > at ? dirs.substr(at, end - at) : std::string(".")) + "/python3";
    at = end + 1;
    if (access(python.c_str(), X_OK) != 0) continue;
    found.push_back(python);
    if (spawn_and_wait({python, "-c", "import matplotlib"}, true) == 0) return python;
  }
  return found.empty() ? "python3" : found.front();
}

// <prefix>/share/nwnsim of an installed nwnsim, from the directory of the
// executable (CMakeLists.txt: the install's bin to data path).
std::filesystem::path installed_data_dir() {
  try {
    return std::filesystem::path(self_executable()).parent_path() / NWNSIM_BIN_TO_DATA;
  } catch (const std::runtime_error&) {
    return {};
  }
}

}  // namespace

std::string data_path(const std::string& relative) {
  namespace fs = std::filesystem;
  const fs::path installed = installed_data_dir();
  std::error_code ec;
  if (!installed.empty() && fs::exists(installed / relative, ec)) return (installed / relative).lexically_normal().string();
  return (fs::path(NWNSIM_SOURCE_DIR) / relative).string();
}

std::string data_dir() {
  namespace fs = std::filesystem;
  const fs::path installed = installed_data_dir();
  std::error_code ec;
  if (!installed.empty() && fs::is_directory(installed / "scripts", ec)) return installed.lexically_normal().string();
  return NWNSIM_SOURCE_DIR;
}

std::string run_plot_script(const std::vector<std::string>& args) {
  const std::string script = data_path(args.at(0));
  std::error_code ec;
  if (!std::filesystem::is_regular_file(script, ec))
    return "no plot script " + args.at(0) + " (looked in " + (installed_data_dir() / args.at(0)).lexically_normal().string() +
           " and " + script + ")";
  std::vector<std::string> argv = {plot_python()};
  argv.push_back(script);
  argv.insert(argv.end(), args.begin() + 1, args.end());
  std::string command;
  for (auto& a : argv) command += (command.empty() ? "" : " ") + a;
  const int code = spawn_and_wait(argv, false);
  if (code < 0)
    return "cannot run " + argv[0] + " (" + std::strerror(errno) +
           "; set NWNSIM_PYTHON to a Python 3 with matplotlib): " + command;
  if (code != 0) return "exit " + std::to_string(code) + " (its error is above): " + command;
  return "";
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

// The signal that stopped run_jobs (0: none) and the children it forwards
// to. The handler only reads the table: a slot is cleared before its child
// is reaped, so the handler never signals a pid the kernel has reused.
std::atomic<int> g_signal{0};
constexpr std::size_t kMaxChildren = 1024;
std::array<std::atomic<pid_t>, kMaxChildren> g_children{};

extern "C" void forward_signal(int sig) {
  g_signal.store(sig);
  for (auto& c : g_children) {
    const pid_t pid = c.load();
    if (pid > 0) kill(pid, sig);
  }
}

// SIGINT and SIGTERM go to forward_signal while jobs run.
class SignalForwarding {
 public:
  SignalForwarding() {
    struct sigaction sa {};
    sa.sa_handler = forward_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~SignalForwarding() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

// `exe` is argv[0], the name the child shows.
pid_t spawn(const std::string& exe, const Job& job) {
  std::vector<std::string> argv_s;
  argv_s.push_back(exe);
  argv_s.insert(argv_s.end(), job.args.begin(), job.args.end());
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  // SIGINT and SIGTERM wait while the child is made: it must not run
  // forward_signal on its copy of the table.
  sigset_t stop, old;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop, &old);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // The child dies with its parent, also when the parent is SIGKILLed
    // (then nothing forwards): no orphan simulation races a resumed sweep.
    // Only async-signal-safe calls until execve.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(128 + SIGTERM);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigprocmask(SIG_SETMASK, &old, nullptr);
    if (job.quiet) {
      const int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
      if (fd >= 0) dup2(fd, 1);
    }
    // This very build, even if the file was rebuilt since: the parent
    // stamps the child's results with its own version.
    execve("/proc/self/exe", argv.data(), environ);
    _exit(127);
  }
  const int err = errno;
  sigprocmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) throw std::runtime_error(std::string("cannot start a child nwnsim process: ") + std::strerror(err));
  return pid;
}
}  // namespace

void run_jobs_impl(std::vector<Job>& jobs, int parallel, void (*cb)(void*, std::size_t), void* ctx) {
  const std::string exe = self_executable();
  struct Running {
    std::size_t job, slot;
  };
  std::map<pid_t, Running> running;
  std::vector<std::size_t> free_slots;
  for (std::size_t s = kMaxChildren; s-- > 0;) free_slots.push_back(s);
  std::size_t next = 0;
  parallel = std::max(1, std::min(parallel, int(kMaxChildren)));
  const SignalForwarding forwarding;
  g_signal.store(0);
  // An error here (a child that cannot start, a callback that throws) takes
  // the running children down with it rather than leaving them orphaned.
  struct Reaper {
    std::map<pid_t, Running>& running;
    ~Reaper() {
      for (auto& [pid, r] : running) {
        g_children[r.slot].store(0);
        kill(pid, SIGTERM);
        while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
      }
    }
  } reaper{running};
  while (next < jobs.size() || !running.empty()) {
    while (!g_signal.load() && next < jobs.size() && int(running.size()) < parallel) {
      const pid_t pid = spawn(exe, jobs[next]);
      const std::size_t slot = free_slots.back();
      free_slots.pop_back();
      g_children[slot].store(pid);
      running[pid] = {next++, slot};
      if (const int sig = g_signal.load()) kill(pid, sig);  // the signal came before the slot was filled
    }
    if (running.empty()) break;
    // Wait without reaping, clear the slot, then reap: see g_children.
    siginfo_t info{};
    if (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waiting for a child nwnsim failed: ") + std::strerror(errno));
    }
    const pid_t pid = info.si_pid;
    auto it = running.find(pid);
    if (it != running.end()) g_children[it->second.slot].store(0);
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    if (it == running.end()) continue;
    const std::size_t i = it->second.job;
    free_slots.push_back(it->second.slot);
    running.erase(it);
    jobs[i].exit_code = info.si_code == CLD_EXITED ? info.si_status : 128 + info.si_status;
    if (!g_signal.load() || jobs[i].exit_code == 0) cb(ctx, i);
  }
  if (const int sig = g_signal.load()) throw Interrupted(sig);
}

}  // namespace nwn
