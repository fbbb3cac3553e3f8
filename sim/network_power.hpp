// Power and area of every router of a network over the measurement window
// (power/ applied to the summed activity); null when the routers differ.
#pragma once
#include <nlohmann/json.hpp>

#include "config.hpp"
#include "run_result.hpp"

namespace nwn {

class Network;
nlohmann::ordered_json network_power(const Config& cfg, const Network& net, const RunResult& r);

}  // namespace nwn
