// Switch area in channel pitch^2 from the structural description.
#pragma once
#include "../models/organization.hpp"

namespace nwn {
double switch_area_pitch2(const SwitchDescription& d);
}
