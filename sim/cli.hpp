#pragma once

namespace nwn {
// The nwnsim command line: run, sweep, bench, config. Returns the exit code.
int nwnsim_main(int argc, char** argv);
}  // namespace nwn
