#include "packet_trace.hpp"

#include <algorithm>
#include <limits>

#include "../models/link.hpp"
#include "network.hpp"

namespace nwn {

namespace {

const char* event_name(TraceEvent e) {
  switch (e) {
    case TraceEvent::Create: return "create";
    case TraceEvent::Inject: return "inject";
    case TraceEvent::Buffer: return "buffer";
    case TraceEvent::Route: return "route";
    case TraceEvent::VcGrant: return "vc-grant";
    case TraceEvent::Traverse: return "traverse";
    case TraceEvent::Eject: return "eject";
  }
  return "?";
}

const char* flit_kind(const Flit& f) { return f.head ? (f.tail ? "HT" : "H") : (f.tail ? "T" : "B"); }

}  // namespace

PacketTraceWriter::PacketTraceWriter(const std::string& path, std::vector<std::uint64_t> ids, std::uint64_t every,
                                     std::uint64_t nodes)
    : file_(path, "the packet trace sim.packet_trace_file ="),
      ids_(std::move(ids)),
      every_(every),
      nodes_(std::max<std::uint64_t>(1, nodes)) {
  std::sort(ids_.begin(), ids_.end());
  std::fputs(
      "# nwnsim packet trace: cycle packet flit event unit details (docs/WORKLOADS.md)\n"
      "# flit: H head, B body, T tail, HT single-flit packet; in/out: subswitch ports; link ... arrives: the "
      "channel and the cycle the flit reaches its far end\n",
      file_.get());
}

PacketTraceWriter::~PacketTraceWriter() = default;

bool PacketTraceWriter::wants(std::uint64_t id) const {
  return (every_ && (id / nodes_ + id % nodes_) % every_ == 0) || std::binary_search(ids_.begin(), ids_.end(), id);
}

void PacketTraceWriter::record(TraceEvent e, Cycle now, const Flit& f, const std::string& unit, const TraceHop& h) {
  const std::lock_guard<std::mutex> lock(mutex_);
  line_.clear();
  auto out = std::back_inserter(line_);
  fmt::format_to(out, "{} {} {} {} {}", now, f.packet_id, flit_kind(f), event_name(e), unit);
  switch (e) {
    case TraceEvent::Create:
      fmt::format_to(out, " src {} dst {} size {}", f.src, f.dst, f.packet_flits);
      break;
    case TraceEvent::Inject:
      fmt::format_to(out, " vc {}", h.out_vc);
      break;
    case TraceEvent::Eject:
      fmt::format_to(out, " vc {} hops {} latency {}", h.in_vc, f.hops, now - f.created_cycle);
      break;
    case TraceEvent::Buffer:
      fmt::format_to(out, " in {} vc {}", h.in_port, h.in_vc);
      break;
    case TraceEvent::Route:
      fmt::format_to(out, " in {} vc {} out {} vcs {}-{} router_out {}", h.in_port, h.in_vc, h.out_port, h.vc_lo,
                     h.vc_hi, f.router_out);
      break;
    case TraceEvent::VcGrant:
      fmt::format_to(out, " in {} vc {} out {} vc {}", h.in_port, h.in_vc, h.out_port, h.out_vc);
      break;
    case TraceEvent::Traverse:
      fmt::format_to(out, " in {} vc {} out {} vc {}", h.in_port, h.in_vc, h.out_port, h.out_vc);
      break;
  }
  if (h.link && e != TraceEvent::Buffer && e != TraceEvent::Eject)
    fmt::format_to(out, " link {} arrives {}", h.link->name(), h.arrives);
  line_.push_back('\n');
  std::fwrite(line_.data(), 1, line_.size(), file_.get());
}

std::unique_ptr<PacketTraceWriter> attach_packet_tracer(const Config& cfg, Network& net) {
  const std::string& path = cfg.get_string("sim.packet_trace_file");
  const std::string& ids_text = cfg.get_string("sim.packet_trace_ids");
  const auto every = std::uint64_t(cfg.get_int("sim.packet_trace_every"));
  std::vector<std::uint64_t> ids;
  if (!ids_text.empty())
    for (std::int64_t id : int_list(cfg, "sim.packet_trace_ids", 0, std::numeric_limits<std::int64_t>::max(),
                                    "packet ids, e.g. 12,40"))
      ids.push_back(std::uint64_t(id));
  if (path.empty()) {
    if (!ids.empty() || every)
      throw ConfigError("config error: sim.packet_trace_ids / sim.packet_trace_every choose packets to trace but "
                        "sim.packet_trace_file is empty (set it, or run --trace-packets FILE)");
    return nullptr;
  }
  if (ids.empty() && !every)
    throw ConfigError("config error: sim.packet_trace_file = '" + path +
                      "' but no packet is chosen: set sim.packet_trace_ids (e.g. \"12,40\") or "
                      "sim.packet_trace_every (e.g. 1000)");
  auto tracer = std::make_unique<PacketTraceWriter>(path, std::move(ids), every,
                                                    std::uint64_t(net.endpoints().nodes()));
  net.endpoints().set_tracer(tracer.get());
  for (auto& r : net.routers())
    for (auto& ss : r->subswitches()) ss->set_tracer(tracer.get());
  return tracer;
}

}  // namespace nwn
