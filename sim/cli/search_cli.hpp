// nwnsim topo search hyperx|slimfly|dragonfly (search.hpp): added under the
// `topo` command of topo_cli.cpp.
#pragma once

namespace CLI {
class App;
}

namespace nwn {

void add_topo_search(CLI::App* topo, int& exit_code);

}  // namespace nwn
