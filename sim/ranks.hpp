// The processes of one simulation. `mpirun -np R nwnsim run ...` splits a
// network's routers, with their terminals, over R ranks (sim/partition.hpp);
// each rank builds and runs only its own, exchanges what crossed between
// ranks at every block end (sim/exchange.hpp), and takes every global
// decision (drain, batch end, the watchdog, conservation) from collectives,
// so all ranks run the same blocks and reach the same results. A run
// without mpirun is one rank: every collective below is then the value
// itself, at no cost.
//
// The MPI implementation (sim/ranks_mpi.cpp) is linked into the nwnsim
// program only (CMake option NWNSIM_MPI), never into the library an
// embedding links: the library sees only this interface.
#pragma once
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace nwn {

class Ranks {
 public:
  virtual ~Ranks() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool root() const { return rank() == 0; }
  bool distributed() const { return size() > 1; }

  // Element by element over the ranks, in place; every rank gets the result.
  // Sums are modulo 2^64: a count that one rank raises and another lowers
  // (packets created here, delivered there) sums right.
  virtual void sum(std::uint64_t* v, std::size_t n) = 0;
  virtual void max(std::uint64_t* v, std::size_t n) = 0;
  virtual void min(std::uint64_t* v, std::size_t n) = 0;
  std::uint64_t sum(std::uint64_t v) { return sum(&v, 1), v; }
  std::uint64_t max(std::uint64_t v) { return max(&v, 1), v; }
  std::uint64_t min(std::uint64_t v) { return min(&v, 1), v; }
  void sum(std::vector<std::uint64_t>& v) { sum(v.data(), v.size()); }
  void max(std::vector<std::uint64_t>& v) { max(v.data(), v.size()); }

  // Every rank's bytes, in rank order, on rank 0 (empty elsewhere).
  virtual std::vector<std::string> gather(const std::string& bytes) = 0;
  // Rank 0's bytes on every rank.
  virtual std::string broadcast(const std::string& bytes) = 0;
  // Point to point: sends[i] goes to peers[i] and what peers[i] sent comes
  // back in received[i]. Every peer must call it with this rank among its
  // peers, the same number of times (empty messages too).
  virtual void exchange(const std::vector<int>& peers, const std::vector<std::string>& sends,
                        std::vector<std::string>& received) = 0;
  // Seconds this rank spent blocked in collectives and exchanges.
  virtual double wait_seconds() const { return 0; }
  // Ends every rank at once with `code` (an error one rank cannot tell the others).
  [[noreturn]] virtual void abort(int code) = 0;

  // This rank ends with a failure every rank knows of (run_on_ranks in
  // sim/experiment.hpp); any other failure must end all of them (abort).
  void set_failure_agreed() { failure_agreed_ = true; }
  bool failure_agreed() const { return failure_agreed_; }

 private:
  bool failure_agreed_ = false;
};

// One process: rank 0 of 1.
Ranks& one_process();
// The ranks of this process: MPI's world when nwnsim was started by an MPI
// launcher (sim/main.cpp sets it), else one_process().
Ranks& process_ranks();
void set_process_ranks(Ranks* ranks);

// A failure every rank agreed on (agree_on_failure in sim/experiment.hpp:
// building a network; the watchdog; the conservation check): each rank ends with `code`. The
// rank whose error it was carries it in `error` and `report` says whether
// this rank prints it (one rank does, so an error is printed once).
class RanksFailed : public std::runtime_error {
 public:
  RanksFailed(int code, std::exception_ptr error, bool report)
      : std::runtime_error("failed on another rank"), code(code), error(std::move(error)), report(report) {}
  int code;
  std::exception_ptr error;
  bool report;
};

// `text` of every rank joined in rank order, on rank 0; elsewhere "". The
// total length over all ranks comes back in `total_length`.
std::string gather_text(Ranks& ranks, const std::string& text, std::uint64_t* total_length = nullptr);

}  // namespace nwn
