// The Verilated allocator configurations this build has, registered for the
// full simulator (router.allocator_impl = rtl). One line per configuration
// of tb/CMakeLists.txt; the key is rtl_allocator_key() of the C++ allocator
// the RTL stands in for.
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

template <class Model, int N, int M>
RtlAllocatorRegistration rtl(const std::string& algorithm, int iterations) {
  return RtlAllocatorRegistration(rtl_allocator_key(algorithm, {N, M, iterations}),
                                  [](const AllocatorParams& p, const RtlOptions& o) -> std::unique_ptr<Allocator> {
                                    return std::make_unique<RtlAllocator<Model, N, M>>(p, o);
                                  });
}

const RtlAllocatorRegistration regs[] = {
    rtl<Vislip_4x4_it1, 4, 4>("islip", 1),
    rtl<Vislip_8x8_it1, 8, 8>("islip", 1),
    rtl<Vislip_16x16_it1, 16, 16>("islip", 1),
    rtl<Vislip_4x8_it3, 4, 8>("islip", 3),
    rtl<Vinput_first_8x8, 8, 8>("input_first", 1),
    rtl<Voutput_first_8x8, 8, 8>("output_first", 1),
};

}  // namespace
}  // namespace nwn::tb
