#include "engine/heartbeat.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace peto::engine {

namespace fs = std::filesystem;

Status write_heartbeat(const std::string& path, Millis at) {
  fs::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  fs::path tmp = p.parent_path() / (".heartbeat-" + std::to_string(::getpid()));
  std::string text = format_time(at) + "\n";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    return Status::unavailable("cannot write " + tmp.string() + ": " + std::strerror(errno));
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), p.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return Status::unavailable("cannot write " + path + ": " + std::strerror(errno));
  }
  return Status::ok();
}

std::optional<Millis> read_heartbeat(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string text;
  std::getline(in, text);
  if (auto t = parse_time(text)) return t;
  std::error_code ec;
  auto mtime = fs::last_write_time(path, ec);
  if (ec) return std::nullopt;
  auto sys = std::chrono::file_clock::to_sys(mtime);
  return std::chrono::duration_cast<std::chrono::milliseconds>(sys.time_since_epoch()).count();
}

bool heartbeat_fresh(const std::string& path, Millis now, Millis max_age_ms) {
  auto at = read_heartbeat(path);
  return at && now - *at <= max_age_ms;
}

}  // namespace peto::engine
