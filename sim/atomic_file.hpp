// Output files: checked before a command simulates, written whole or not at
// all. Every file nwnsim writes (--json, --csv, --out-dir, sweep points, ...)
// goes through write_file, so a crash, a signal or a full disk never leaves a
// truncated result behind a name that looks finished.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

namespace nwn {

enum class OutputKind {
  File,    // a file written whole (an existing regular file is replaced)
  Dir,     // a directory the command fills (created if missing)
  Prefix,  // PREFIX-name.ext files: only PREFIX's directory matters
};

// Why `path` cannot be written as `kind`, or "" when it can: empty, an
// existing directory where a file is wanted (or the reverse), or a parent that
// is not a writable directory. A missing parent is fine when the nearest
// existing ancestor is a writable directory (write_file creates the rest).
std::string output_problem(const std::string& path, OutputKind kind);
// Throws ConfigError "<what> '<path>': <problem>" (`what` is the flag or
// config key) when output_problem finds one.
void check_output(const std::string& what, const std::string& path, OutputKind kind);

// Writes `text` to a temporary file in the same directory, syncs it and
// renames it over `path` (creating missing parent directories). A path that
// exists and is not a regular file (/dev/stdout, a FIFO) is written in place.
// Throws std::runtime_error naming the path and the OS error.
void write_file(const std::string& path, const std::string& text);
std::string read_file(const std::string& path);

// A file streamed while a simulation runs (packet trace, VCD), written like
// write_file: into a temporary in the same directory that close() syncs and
// renames into place. close() runs from destructors, so its errors cannot be
// thrown: they are kept in deferred_write_errors() for nwnsim_main to report
// (exit code 1).
class StreamFile {
 public:
  // Throws std::runtime_error "cannot write <what> '<path>': <OS error>".
  StreamFile(const std::string& path, const std::string& what);
  ~StreamFile() { close(); }
  StreamFile(const StreamFile&) = delete;
  StreamFile& operator=(const StreamFile&) = delete;
  std::FILE* get() const { return file_; }  // nullptr once closed
  void close();

 private:
  std::string path_, temp_;
  std::FILE* file_;
};
std::vector<std::string>& deferred_write_errors();

// Whether `name` is a temporary of write_file or a sweep's unfinished point
// (".part"): what an interrupted command may leave behind, safe to delete.
bool is_unfinished_output(const std::string& name);

// A private scratch directory under the system temp directory, removed with
// everything in it when the object goes (also when an exception unwinds).
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& what);  // /tmp/nwnsim-<what>-<pid>
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// 64-bit FNV-1a of `text`, as 16 hex digits: the checksum of sweep points.
std::string fnv1a_hex(const std::string& text);

}  // namespace nwn
