// Output formats: aligned tables on stdout, CSV and JSON files.
#pragma once
#include <string>
#include <vector>

#include "atomic_file.hpp"  // write_file, read_file

namespace nwn {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string render() const;  // aligned columns, right-justified numbers
  std::string csv() const;  // headed by a comment line naming the nwnsim build
};

}  // namespace nwn
