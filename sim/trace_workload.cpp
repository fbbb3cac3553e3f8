#include "trace_workload.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

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

std::vector<TracePacket> parse_trace(const std::string& text, const std::string& origin, const TraceLimits& lim) {
  std::vector<TracePacket> out;
  std::size_t line_no = 0, pos = 0;
  std::size_t prev_line = 0;
  std::uint64_t prev_cycle = 0;
  std::vector<std::string_view> f;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    std::string_view line(text.data() + pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    f = fields_of(line);
    if (f.empty()) continue;
    const std::string where = fmt::format("trace error: {}:{}: ", origin, line_no);
    if (f.size() != 4)
      throw ConfigError(where + fmt::format("{} fields in '{}': {}", f.size(),
                                            std::string_view(f.front().data(), f.back().data() + f.back().size() -
                                                                                    f.front().data()),
                                            kFormat));
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
        fmt::format("a node id, an integer from 0 to {} (the network has {} nodes)", lim.nodes - 1, lim.nodes);
    TracePacket p;
    const std::uint64_t cycle = number(f[0], "cycle", 0, ~std::uint64_t{0}, "an integer >= 0 (cycles)");
    if (!out.empty() && cycle < prev_cycle)
      throw ConfigError(where + fmt::format("cycle = '{}': cycles must not decrease (line {} has cycle {})", f[0],
                                            prev_line, prev_cycle));
    p.src = std::int32_t(number(f[1], "source", 0, std::uint64_t(lim.nodes - 1), node_rule));
    p.dst = std::int32_t(number(f[2], "destination", 0, std::uint64_t(lim.nodes - 1), node_rule));
    p.size_flits = std::uint16_t(number(f[3], "size_flits", 1, std::uint64_t(lim.max_packet_flits),
                                        fmt::format("an integer from 1 to {} ({})", lim.max_packet_flits,
                                                    lim.size_rule)));
    p.cycle = lim.time_scale == 1.0 ? cycle : Cycle(std::llround(double(cycle) * lim.time_scale));
    prev_cycle = cycle;
    prev_line = line_no;
    out.push_back(p);
  }
  if (out.empty()) throw ConfigError("trace error: " + origin + ": no packet lines (" + kFormat + ")");
  return out;
}

std::vector<TracePacket> read_trace_file(const std::string& path, const TraceLimits& limits) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("config error: traffic.trace_file = '" + path + "': cannot read the file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_trace(ss.str(), path, limits);
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
