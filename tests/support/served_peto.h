// ServedPeto: the real `peto serve`, as production starts it, on a free
// loopback port and a fresh SQLite database in `dir`, for tests of what only
// the whole process shows (the server's limits as serve sets them, its memory).
//
//   ServedPeto peto(dir());                 // migrates, starts, waits for "listening"
//   http_request(peto.port(), "GET", "/healthz");
//   peto.rss_kb();                          // its resident memory now
//
// `env` adds variables or replaces the ones above ("PETO_TRUSTED_PROXIES=127.0.0.1
// PETO_LOG_LEVEL=debug "). The process logs
// to dir/serve.log; it gets SIGTERM when the ServedPeto goes, then SIGKILL
// after 10 s. The constructor throws std::runtime_error (with the log's
// tail) when the server does not start within 20 s.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace peto::testing {

class ServedPeto {
 public:
  explicit ServedPeto(const std::filesystem::path& dir, const std::string& env = "");
  ~ServedPeto();
  ServedPeto(const ServedPeto&) = delete;
  ServedPeto& operator=(const ServedPeto&) = delete;

  std::uint16_t port() const { return port_; }
  // Its database and data folder, for `run_peto` beside it.
  const std::string& database_url() const { return url_; }
  const std::string& data_dir() const { return data_; }
  // VmRSS of the process, in KiB.
  long rss_kb() const;
  // Everything the process has logged so far.
  std::string log() const;

 private:
  void stop();  // SIGTERM, then SIGKILL after 10 s

  std::filesystem::path log_path_;
  std::string data_, url_;
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
};

}  // namespace peto::testing
