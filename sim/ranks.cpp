#include "ranks.hpp"

#include <cstdlib>

namespace nwn {

namespace {

class OneProcess final : public Ranks {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void sum(std::uint64_t*, std::size_t) override {}
  void max(std::uint64_t*, std::size_t) override {}
  void min(std::uint64_t*, std::size_t) override {}
  std::vector<std::string> gather(const std::string& bytes) override { return {bytes}; }
  std::string broadcast(const std::string& bytes) override { return bytes; }
  void exchange(const std::vector<int>& peers, const std::vector<std::string>&,
                std::vector<std::string>& received) override {
    if (!peers.empty()) throw std::logic_error("ranks: one process has no peers to exchange with");
    received.clear();
  }
  [[noreturn]] void abort(int code) override { std::exit(code); }
};

Ranks* g_process_ranks = nullptr;

}  // namespace

Ranks& one_process() {
  static OneProcess one;
  return one;
}

Ranks& process_ranks() { return g_process_ranks ? *g_process_ranks : one_process(); }
void set_process_ranks(Ranks* ranks) { g_process_ranks = ranks; }

std::string gather_text(Ranks& ranks, const std::string& text, std::uint64_t* total_length) {
  if (total_length) *total_length = ranks.sum(std::uint64_t(text.size()));
  if (!ranks.distributed()) return text;
  std::string all;
  for (const std::string& part : ranks.gather(text)) all += part;
  return all;
}

}  // namespace nwn
