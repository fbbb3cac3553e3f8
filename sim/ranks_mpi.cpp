#include "ranks_mpi.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "ranks.hpp"

namespace nwn {

namespace {

// Blocked time: what a rank waits for the others (and the transfers).
class WaitClock {
 public:
  explicit WaitClock(double& total) : total_(total), t0_(std::chrono::steady_clock::now()) {}
  ~WaitClock() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }

 private:
  double& total_;
  std::chrono::steady_clock::time_point t0_;
};

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw std::runtime_error(std::string("MPI: ") + what + ": " + std::string(text, std::size_t(length)));
}

class MpiRanks final : public Ranks {
 public:
  MpiRanks() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void sum(std::uint64_t* v, std::size_t n) override { reduce(v, n, MPI_SUM); }
  void max(std::uint64_t* v, std::size_t n) override { reduce(v, n, MPI_MAX); }
  void min(std::uint64_t* v, std::size_t n) override { reduce(v, n, MPI_MIN); }

  std::vector<std::string> gather(const std::string& bytes) override {
    WaitClock w(wait_);
    const long long mine = static_cast<long long>(bytes.size());
    std::vector<long long> sizes(root() ? std::size_t(size_) : 0);
    check(MPI_Gather(&mine, 1, MPI_LONG_LONG, sizes.data(), 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD), "gather sizes");
    std::vector<int> counts, offsets;
    std::string all;
    if (root()) {
      long long total = 0;
      for (long long s : sizes) {
        counts.push_back(int(s));
        offsets.push_back(int(total));
        total += s;
      }
      all.resize(std::size_t(total));
    }
    check(MPI_Gatherv(bytes.data(), int(mine), MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, 0,
                      MPI_COMM_WORLD),
          "gather");
    std::vector<std::string> out;
    for (std::size_t r = 0; r < counts.size(); ++r) out.push_back(all.substr(std::size_t(offsets[r]), std::size_t(counts[r])));
    return out;
  }

  std::string broadcast(const std::string& bytes) override {
    WaitClock w(wait_);
    long long n = static_cast<long long>(bytes.size());
    check(MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD), "broadcast size");
    std::string out = root() ? bytes : std::string(std::size_t(n), '\0');
    check(MPI_Bcast(out.data(), int(n), MPI_BYTE, 0, MPI_COMM_WORLD), "broadcast");
    return out;
  }

  void exchange(const std::vector<int>& peers, const std::vector<std::string>& sends,
                std::vector<std::string>& received) override {
    WaitClock w(wait_);
    constexpr int kTag = 23;
    requests_.resize(peers.size());
    for (std::size_t i = 0; i < peers.size(); ++i)
      check(MPI_Isend(sends[i].data(), int(sends[i].size()), MPI_BYTE, peers[i], kTag, MPI_COMM_WORLD, &requests_[i]),
            "send");
    received.resize(peers.size());
    for (std::size_t i = 0; i < peers.size(); ++i) {
      MPI_Status status;
      check(MPI_Probe(peers[i], kTag, MPI_COMM_WORLD, &status), "probe");
      int count = 0;
      MPI_Get_count(&status, MPI_BYTE, &count);
      received[i].resize(std::size_t(count));
      check(MPI_Recv(received[i].data(), count, MPI_BYTE, peers[i], kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "receive");
    }
    check(MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE), "wait for sends");
  }

  double wait_seconds() const override { return wait_; }

  [[noreturn]] void abort(int code) override {
    std::cerr << std::flush;
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

 private:
  void reduce(std::uint64_t* v, std::size_t n, MPI_Op op) {
    WaitClock w(wait_);
    check(MPI_Allreduce(MPI_IN_PLACE, v, int(n), MPI_UINT64_T, op, MPI_COMM_WORLD), "allreduce");
  }

  int rank_ = 0, size_ = 1;
  double wait_ = 0;
  std::vector<MPI_Request> requests_;
};

// Set by Open MPI's mpirun, by PMIx launchers (srun --mpi=pmix, prun) and
// by PMI ones (MPICH's hydra, srun --mpi=pmi2). NWNSIM_NO_MPI: a command
// that runs in one process under a launcher sets it, so that its children
// (a sweep's points) do not take the launcher's variables for their own.
bool launched_by_mpi() {
  if (std::getenv("NWNSIM_NO_MPI")) return false;
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

// The launcher's rank count before MPI starts (0: it does not say).
long launched_size() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const char* s = std::getenv(v)) return std::strtol(s, nullptr, 10);
  return 0;
}

MpiRanks* g_world = nullptr;

}  // namespace

MpiSession::MpiSession(int& argc, char**& argv) {
  if (!launched_by_mpi()) return;
  const bool run = argc > 1 && std::strcmp(argv[1], "run") == 0;
  if (!run) {
    if (launched_size() > 1) {
      std::cerr << "nwnsim: " << (argc > 1 ? argv[1] : "(no command)")
                << " runs in one process: under mpirun (or srun) with more than one rank, only `nwnsim run` "
                   "spreads a simulation over the ranks\n";
      code_ = 2;
    }
    setenv("NWNSIM_NO_MPI", "1", 1);
    return;
  }
  int provided = 0;
  // Only the SystemC thread calls MPI; the kernel's worker threads never do.
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "init");
  started_ = true;
  g_world = new MpiRanks;
  set_process_ranks(g_world);
}

void MpiSession::finish(int code) {
  // One rank has no other to stop: it ends as a process alone would
  // (MPI_Finalize, then its code), without MPI_Abort's banner.
  if (started_ && code != 0 && g_world->size() > 1 && !g_world->failure_agreed()) g_world->abort(code);
}

MpiSession::~MpiSession() {
  if (!started_) return;
  set_process_ranks(nullptr);
  delete g_world;
  g_world = nullptr;
  MPI_Finalize();
}

}  // namespace nwn
