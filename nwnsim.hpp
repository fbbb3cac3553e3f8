// nwnsim's public API, for programs that use it as a library
// (docs/EMBEDDING.md): #include <nwnsim/nwnsim.hpp>, link nwnsim::nwnsim.
#pragma once
#include "sim/config.hpp"      // nwn::Config: the TOML schema of every key (docs/CONFIG.md)
#include "sim/embed.hpp"       // nwn::TlmNetwork: a router or network with TLM-2.0 sockets per node
#include "sim/experiment.hpp"  // nwn::run_experiment, RunResult: one standalone simulation point
#include "sim/version.hpp"     // nwn::build_info
