#include "trace_workload.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "config.hpp"

namespace nwn {

namespace {

constexpr const char* kFormat = "a packet line is 'cycle source destination size_flits': 4 whitespace-separated integers";

std::vector<std::string_view> fields_of(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

namespace {

// Checks and collects packet lines one at a time.
class TraceParser {
 public:
  TraceParser(std::string origin, const TraceLimits& lim) : origin_(std::move(origin)), lim_(lim) {}

  // One line, without its '\n'.
  void line(std::string_view line) {
    ++line_no_;
    if (line.size() > kTraceMaxLineBytes) too_long(line_no_);
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    f_ = fields_of(line);
    if (f_.empty()) return;
    const std::string where = fmt::format("trace error: {}:{}: ", origin_, line_no_);
    if (f_.size() != 4)
      throw ConfigError(where + fmt::format("{} fields in '{}': {}", f_.size(),
                                            std::string_view(f_.front().data(), f_.back().data() + f_.back().size() -
                                                                                    f_.front().data()),
                                            kFormat));
    if (out_.size() == kTraceMaxPackets)
      throw ConfigError(where + fmt::format("more than {} packets: a trace holds at most that many (24 bytes each "
                                            "while it is read)",
                                            kTraceMaxPackets));
    // One field: an unsigned integer from lo to hi.
    auto number = [&](std::string_view s, const char* name, std::uint64_t lo, std::uint64_t hi,
                      const std::string& allowed) {
      std::uint64_t v = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi)
        throw ConfigError(where + fmt::format("{} = '{}': must be {}", name, s, allowed));
      return v;
    };
    const std::string node_rule =
        fmt::format("a node id, an integer from 0 to {} (the network has {} nodes)", lim_.nodes - 1, lim_.nodes);
    TracePacket p;
    const std::uint64_t cycle = number(f_[0], "cycle", 0, ~std::uint64_t{0}, "an integer >= 0 (cycles)");
    if (!out_.empty() && cycle < prev_cycle_)
      throw ConfigError(where + fmt::format("cycle = '{}': cycles must not decrease (line {} has cycle {})", f_[0],
                                            prev_line_, prev_cycle_));
    p.src = std::int32_t(number(f_[1], "source", 0, std::uint64_t(lim_.nodes - 1), node_rule));
    p.dst = std::int32_t(number(f_[2], "destination", 0, std::uint64_t(lim_.nodes - 1), node_rule));
    p.size_flits = std::uint16_t(number(f_[3], "size_flits", 1, std::uint64_t(lim_.max_packet_flits),
                                        fmt::format("an integer from 1 to {} ({})", lim_.max_packet_flits,
                                                    lim_.size_rule)));
    // Scaled in double, compared before rounding: no overflow.
    const double scaled = lim_.time_scale == 1.0 ? double(cycle) : double(cycle) * lim_.time_scale;
    if (lim_.max_cycles > 0 && std::round(scaled) >= double(lim_.max_cycles))
      throw ConfigError(
          where + fmt::format("cycle = '{}'{}: the run stops at sim.max_cycles = {}, so this packet would never be "
                              "sent (allowed: cycles below {}; or raise sim.max_cycles)",
                              f_[0],
                              lim_.time_scale == 1.0
                                  ? std::string()
                                  : fmt::format(" (cycle {:.0f} after traffic.trace_time_scale = {})", std::round(scaled), lim_.time_scale),
                              lim_.max_cycles, lim_.max_cycles));
    p.cycle = lim_.time_scale == 1.0 ? cycle : Cycle(std::llround(scaled));
    prev_cycle_ = cycle;
    prev_line_ = line_no_;
    out_.push_back(p);
  }

  [[noreturn]] void too_long(std::size_t line) const {
    throw ConfigError(fmt::format("trace error: {}:{}: line longer than {} bytes ({}; is this a trace file?)", origin_,
                                  line, kTraceMaxLineBytes, kFormat));
  }
  std::size_t next_line() const { return line_no_ + 1; }

  std::vector<TracePacket> finish() {
    if (out_.empty()) throw ConfigError("trace error: " + origin_ + ": no packet lines (" + kFormat + ")");
    return std::move(out_);
  }

 private:
  std::string origin_;
  TraceLimits lim_;
  std::vector<TracePacket> out_;
  std::vector<std::string_view> f_;
  std::size_t line_no_ = 0, prev_line_ = 0;
  std::uint64_t prev_cycle_ = 0;
};

}  // namespace

std::vector<TracePacket> parse_trace(const std::string& text, const std::string& origin, const TraceLimits& lim) {
  TraceParser parser(origin, lim);
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    parser.line(std::string_view(text.data() + pos, eol - pos));
    pos = eol + 1;
  }
  return parser.finish();
}

std::vector<TracePacket> read_trace_file(const std::string& path, const TraceLimits& limits) {
  auto fail = [&](int err) {
    return ConfigError(fmt::format("config error: traffic.trace_file = '{}': cannot read the file: {}", path,
                                   std::strerror(err)));
  };
  // Non-blocking open: a named pipe without a writer reads as empty instead
  // of waiting forever; reads block as usual.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw fail(errno);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) throw fail(EISDIR);
  // Reads in blocks; a line is at most kTraceMaxLineBytes, so `pending`
  // (the unfinished line) stays small whatever the file holds.
  TraceParser parser(path, limits);
  std::vector<char> block(1 << 16);
  std::string pending;
  std::uint64_t total = 0;
  for (;;) {
    const ssize_t n = ::read(fd, block.data(), block.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw fail(errno);
    }
    if (n == 0) break;
    total += std::uint64_t(n);
    if (total > kTraceMaxBytes)
      throw ConfigError(fmt::format("trace error: {}: over {} bytes (4 GiB) read by line {}: a trace is at most that "
                                    "long (and {} packets)",
                                    path, kTraceMaxBytes, parser.next_line(), kTraceMaxPackets));
    std::string_view data(block.data(), std::size_t(n));
    for (std::size_t eol; (eol = data.find('\n')) != std::string_view::npos; data.remove_prefix(eol + 1)) {
      if (pending.empty()) {
        parser.line(data.substr(0, eol));
      } else {
        pending.append(data.data(), eol);
        parser.line(pending);
        pending.clear();
      }
    }
    pending.append(data.data(), data.size());
    if (pending.size() > kTraceMaxLineBytes) parser.too_long(parser.next_line());
  }
  if (!pending.empty()) parser.line(pending);
  return parser.finish();
}

TraceWorkload::TraceWorkload(const std::vector<TracePacket>& packets, int nodes)
    : packets_(packets.size()), next_(nodes, 0), end_(nodes, 0) {
  // Counting sort by source, stable: each source's packets in file order.
  std::vector<std::size_t> count(nodes + 1, 0);
  for (const TracePacket& p : packets) ++count[p.src + 1];
  for (int n = 0; n < nodes; ++n) count[n + 1] += count[n];
  for (int n = 0; n < nodes; ++n) next_[n] = count[n], end_[n] = count[n + 1];
  std::vector<std::size_t> fill(count.begin(), count.end() - 1);
  for (const TracePacket& p : packets) packets_[fill[p.src]++] = Entry{p.cycle, p.dst, p.size_flits};
}

Cycle TraceWorkload::next_creation(int node, Cycle) {
  return next_[node] < end_[node] ? packets_[next_[node]].cycle : kNever;
}

PacketSpec TraceWorkload::make_packet(int node, Cycle) {
  const Entry& e = packets_[next_[node]++];
  PacketSpec s;
  s.dst = e.dst;
  s.size_flits = e.size_flits;
  return s;
}

}  // namespace nwn
