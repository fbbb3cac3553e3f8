// Output formats: aligned tables on stdout, CSV and JSON files.
#pragma once
#include <string>
#include <vector>

namespace nwn {

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string render() const;  // aligned columns, right-justified numbers
  std::string csv() const;
};

void write_file(const std::string& path, const std::string& text);
std::string read_file(const std::string& path);

}  // namespace nwn
