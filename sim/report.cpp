#include "report.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nwn {

std::string Table::render() const {
  std::vector<std::size_t> w(header.size(), 0);
  for (std::size_t c = 0; c < header.size(); ++c) w[c] = header[c].size();
  for (auto& r : rows)
    for (std::size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], r[c].size());
  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < w.size(); ++c) {
      const std::string& s = c < cells.size() ? cells[c] : std::string();
      os << (c ? "  " : "") << std::string(w[c] - s.size(), ' ') << s;
    }
    os << "\n";
  };
  line(header);
  std::size_t total = 0;
  for (auto x : w) total += x + 2;
  os << std::string(total > 2 ? total - 2 : 0, '-') << "\n";
  for (auto& r : rows) line(r);
  return os.str();
}

std::string Table::csv() const {
  auto cell = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) os << (c ? "," : "") << cell(cells[c]);
    os << "\n";
  };
  line(header);
  for (auto& r : rows) line(r);
  return os.str();
}

void write_file(const std::string& path, const std::string& text) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);  // a failure shows below
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  out << text;
  if (!out) throw std::runtime_error("error writing '" + path + "'");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace nwn
