// The ground floor: the error every layer throws for bad input. Its
// message names the key or field, the value and what is allowed; the
// commands map it to exit code 2 (docs/RELIABILITY.md).
#pragma once
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace nwn {

// `text` with control characters (a NUL, a newline, an escape sequence) as
// \xNN, so a value cannot cut a message short or garble the terminal.
inline std::string printable(const std::string& text) {
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) out += fmt::format("\\x{:02x}", u);
    else out += c;
  }
  return out;
}

// Its message is printable(): values quoted in it are shown whole.
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(const std::string& message) : std::runtime_error(printable(message)) {}
};

}  // namespace nwn
