#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "config.hpp"

namespace nwn {

namespace fs = std::filesystem;

namespace {

constexpr const char* kTempTag = ".tmp-nwnsim-";

// The nearest ancestor of `p` (or `p` itself) that exists, and what it is.
fs::path nearest_existing(fs::path p) {
  std::error_code ec;
  while (!fs::exists(fs::symlink_status(p, ec))) {
    if (!p.has_parent_path() || p.parent_path() == p) return p.is_absolute() ? p.root_path() : fs::path(".");
    p = p.parent_path();
  }
  return p;
}

std::string writable_dir_problem(const fs::path& dir) {
  const fs::path at = nearest_existing(dir);
  std::error_code ec;
  if (!fs::is_directory(at, ec)) return fmt::format("'{}' is not a directory", at.string());
  if (access(at.c_str(), W_OK | X_OK) != 0)
    return fmt::format("cannot write in directory '{}': {}", at.string(), std::strerror(errno));
  return "";
}

// Where a rename must land: the file a symlink points to, not the link.
std::string rename_target(const std::string& path) {
  fs::path p = path;
  std::error_code ec;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return p.string();
}

[[noreturn]] void write_error(const std::string& path, const std::string& what, int err) {
  throw std::runtime_error(fmt::format("cannot write '{}': {}{}", path, what, std::strerror(err)));
}

void write_all(int fd, const std::string& text, const std::string& path) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      write_error(path, "", err);
    }
    done += std::size_t(n);
  }
}

}  // namespace

std::string output_problem(const std::string& path, OutputKind kind) {
  if (path.empty()) return "an empty path";
  const fs::path p(path);
  // A name the file system refuses (ENAMETOOLONG) would only fail at the
  // write; a file's temporary adds kTempTag, the pid and a serial to its name.
  for (const fs::path& part : p)
    if (part.native().size() > NAME_MAX)
      return fmt::format("a name of {} bytes (at most {})", part.native().size(), NAME_MAX);
  constexpr std::size_t kTempRoom = 40;
  if (kind != OutputKind::Dir && p.filename().native().size() + kTempRoom > NAME_MAX)
    return fmt::format("a file name of {} bytes (at most {}: its temporary file adds {})",
                       p.filename().native().size(), NAME_MAX - kTempRoom, kTempRoom);
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  switch (kind) {
    case OutputKind::File:
      if (fs::is_directory(st)) return "is a directory (a file name is wanted)";
      break;
    case OutputKind::Dir:
      if (fs::exists(st) && !fs::is_directory(st)) return "exists and is not a directory";
      return writable_dir_problem(p);
    case OutputKind::Prefix:
      break;
  }
  if (fs::exists(st)) {
    // An existing file is replaced by a rename in its directory; a device
    // or FIFO is written in place.
    if (!fs::is_regular_file(st)) return access(path.c_str(), W_OK) == 0 ? "" : std::strerror(errno);
  }
  return writable_dir_problem(p.has_parent_path() ? p.parent_path() : fs::path("."));
}

void check_output(const std::string& what, const std::string& path, OutputKind kind) {
  const std::string problem = output_problem(path, kind);
  if (!problem.empty()) throw ConfigError(fmt::format("output error: {} '{}': {}", what, path, problem));
}

void write_file(const std::string& path, const std::string& text) {
  const fs::path p(rename_target(path));
  std::error_code ec;
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) write_error(path, "", EISDIR);
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) write_error(path, "", errno);
    write_all(fd, text, path);
    if (::close(fd) != 0) write_error(path, "", errno);
    return;
  }
  if (p.has_parent_path()) {
    fs::create_directories(p.parent_path(), ec);
    if (ec) write_error(path, fmt::format("cannot create directory '{}': ", p.parent_path().string()), ec.value());
  }
  static std::atomic<unsigned> serial{0};
  const std::string tmp = fmt::format("{}{}{}-{}", p.string(), kTempTag, getpid(), serial++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) write_error(path, "", errno);
  if (exists) (void)::fchmod(fd, st.st_mode & 07777);  // the replaced file's permissions
  try {
    write_all(fd, text, path);
    if (::fsync(fd) != 0) {
      const int err = errno;
      ::close(fd);
      write_error(path, "", err);
    }
    if (::close(fd) != 0) write_error(path, "", errno);
    if (std::rename(tmp.c_str(), p.c_str()) != 0) write_error(path, "", errno);
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

StreamFile::StreamFile(const std::string& path, const std::string& what)
    : path_(rename_target(path)), file_(nullptr) {
  const std::string problem = output_problem(path, OutputKind::File);
  if (!problem.empty()) throw std::runtime_error(fmt::format("cannot write {} '{}': {}", what, path, problem));
  // As in write_file, a device or FIFO is written in place (never renamed over).
  struct stat st;
  const bool in_place = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  if (!in_place) {
    // Missing parent directories are created, as write_file does.
    const fs::path parent = fs::path(path_).parent_path();
    std::error_code ec;
    if (!parent.empty()) fs::create_directories(parent, ec);
    if (ec)
      throw std::runtime_error(
          fmt::format("cannot write {} '{}': cannot create directory '{}': {}", what, path, parent.string(), ec.message()));
    temp_ = fmt::format("{}{}{}-s", path_, kTempTag, getpid());
  }
  file_ = std::fopen(in_place ? path_.c_str() : temp_.c_str(), "w");
  if (!file_) throw std::runtime_error(fmt::format("cannot write {} '{}': {}", what, path, std::strerror(errno)));
}

void StreamFile::close() {
  if (!file_) return;
  std::FILE* f = file_;
  file_ = nullptr;
  bool ok = std::fflush(f) == 0 && !std::ferror(f);
  int err = ok ? 0 : errno;
  if (ok && !temp_.empty() && ::fsync(fileno(f)) != 0) ok = false, err = errno;
  if (std::fclose(f) != 0 && ok) ok = false, err = errno;
  if (ok && !temp_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0) ok = false, err = errno;
  if (!ok) {
    if (!temp_.empty()) ::unlink(temp_.c_str());
    deferred_write_errors().push_back(fmt::format("cannot write '{}': {}", path_, std::strerror(err ? err : EIO)));
  }
}

std::vector<std::string>& deferred_write_errors() {
  static std::vector<std::string> errors;
  return errors;
}

bool is_unfinished_output(const std::string& name) {
  return name.find(kTempTag) != std::string::npos ||
         (name.size() > 5 && name.compare(name.size() - 5, 5, ".part") == 0);
}

ScratchDir::ScratchDir(const std::string& what)
    : path_((fs::temp_directory_path() / fmt::format("nwnsim-{}-{}", what, getpid())).string()) {
  fs::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

std::string fnv1a_hex(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

}  // namespace nwn
