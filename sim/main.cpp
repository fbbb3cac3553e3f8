#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <systemc>

#include "cli.hpp"

// SystemC prints its banner before sc_main runs; silence it from a static
// initializer, which runs before libsystemc's main().
static const bool banner_silenced = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0;

namespace {

// A large network does not fit in the caches, and with 4 KB pages nearly
// every buffer or link a cycle visits also misses the TLB. glibc's malloc
// asks the kernel for transparent huge pages when the tunable
// glibc.malloc.hugetlb=1 is set, which glibc reads only at process start:
// so nwnsim starts itself once more with it (the 4,096-node folded Clos runs
// 10-15 % more cycles per second; docs/RESULTS.md). Results do not change.
// NWNSIM_NO_HUGE_PAGES=1, a GLIBC_TUNABLES that already names the tunable,
// a kernel with huge pages off, or a sanitizer build keep the process as it is.
void restart_with_huge_pages(char** argv) {
#if defined(__SANITIZE_ADDRESS__)
  (void)argv;
  return;
#else
  if (std::getenv("NWNSIM_NO_HUGE_PAGES")) return;
  const char* env = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = env ? env : "";
  if (tunables.find("glibc.malloc.hugetlb") != std::string::npos) return;
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode((std::istreambuf_iterator<char>(thp)), std::istreambuf_iterator<char>());
  if (mode.empty() || mode.find("[never]") != std::string::npos) return;
  const std::string value = tunables.empty() ? "glibc.malloc.hugetlb=1" : tunables + ":glibc.malloc.hugetlb=1";
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);  // returns only if it failed: run on as we are
  if (env) setenv("GLIBC_TUNABLES", tunables.c_str(), 1);
  else unsetenv("GLIBC_TUNABLES");
#endif
}

}  // namespace

int sc_main(int argc, char** argv) {
  (void)banner_silenced;
  restart_with_huge_pages(argv);
  return nwn::nwnsim_main(argc, argv);
}
