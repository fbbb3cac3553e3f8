// The Verilated allocator configurations this build has, registered for the
// full simulator (router.allocator_impl = rtl). One line per configuration
// of tb/CMakeLists.txt; the key is rtl_allocator_key() of the C++ allocator
// the RTL stands in for. Sizes added with NWNSIM_RTL_EXTRA register from
// files generated from tb/rtl_extra.cpp.in.
#include "Vinput_first_8x8.h"
#include "Vislip_16x16_it1.h"
#include "Vislip_4x4_it1.h"
#include "Vislip_4x8_it3.h"
#include "Vislip_8x8_it1.h"
#include "Voutput_first_8x8.h"
#include "tb/rtl_allocator.hpp"

NWN_RTL_EVAL_ACCESS(Vislip_4x4_it1);
NWN_RTL_EVAL_ACCESS(Vislip_8x8_it1);
NWN_RTL_EVAL_ACCESS(Vislip_16x16_it1);
NWN_RTL_EVAL_ACCESS(Vislip_4x8_it3);
NWN_RTL_EVAL_ACCESS(Vinput_first_8x8);
NWN_RTL_EVAL_ACCESS(Voutput_first_8x8);

namespace nwn::tb {
namespace {

const RtlAllocatorRegistration regs[] = {
    register_rtl<Vislip_4x4_it1, 4, 4>("islip", 1),
    register_rtl<Vislip_8x8_it1, 8, 8>("islip", 1),
    register_rtl<Vislip_16x16_it1, 16, 16>("islip", 1),
    register_rtl<Vislip_4x8_it3, 4, 8>("islip", 3),
    register_rtl<Vinput_first_8x8, 8, 8>("input_first", 1),
    register_rtl<Voutput_first_8x8, 8, 8>("output_first", 1),
};

}  // namespace
}  // namespace nwn::tb
