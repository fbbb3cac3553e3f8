#include "report.hpp"

#include <sstream>

#include "provenance.hpp"

namespace nwn {

namespace {

// Characters on screen of UTF-8 text ("±" is two bytes, one character).
std::size_t width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
  return n;
}

}  // namespace

std::string Table::render() const {
  std::vector<std::size_t> w(header.size(), 0);
  for (std::size_t c = 0; c < header.size(); ++c) w[c] = width(header[c]);
  for (auto& r : rows)
    for (std::size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], width(r[c]));
  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < w.size(); ++c) {
      const std::string& s = c < cells.size() ? cells[c] : std::string();
      os << (c ? "  " : "") << std::string(w[c] - width(s), ' ') << s;
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
  os << csv_provenance_line();
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) os << (c ? "," : "") << cell(cells[c]);
    os << "\n";
  };
  line(header);
  for (auto& r : rows) line(r);
  return os.str();
}

}  // namespace nwn
