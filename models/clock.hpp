// The datapath clock: cycle numbers from SystemC time. One cycle is
// `period` of simulated time (200 ps at the paper's 5 GHz).
#pragma once
#include <systemc>

#include "flit.hpp"

namespace nwn {

struct Clock {
  sc_core::sc_time period{200, sc_core::SC_PS};
  Cycle now() const { return sc_core::sc_time_stamp().value() / period.value(); }
  sc_core::sc_time delay(Cycle cycles) const { return period * double(cycles); }
};

}  // namespace nwn
