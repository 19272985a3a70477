// ExternalServer: a server no one here wrote (aiosmtpd, and for the sync and
// store tests Radicale, Xandikos, rclone), run by a test on a free loopback
// port with a folder of its own, and stopped with it.
//
//   ExternalServer smtp({"/usr/bin/python3", "-m", "aiosmtpd", "-n", "-l",
//                        "127.0.0.1:{port}", ...}, dir.path());
//   smtp.port()                                  // accepting connections
//
// The constructor returns once the port accepts connections, and throws (with
// the server's output) when the program ends first or is not ready in 20 s.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace peto::testing {

class ExternalServer {
 public:
  // `argv`, each "{port}" in it replaced by the port; what the program
  // prints goes to `dir`/server.log.
  ExternalServer(std::vector<std::string> argv, const std::filesystem::path& dir);
  ~ExternalServer();
  ExternalServer(const ExternalServer&) = delete;
  ExternalServer& operator=(const ExternalServer&) = delete;

  int port() const { return port_; }
  std::string log() const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::filesystem::path log_;
};

}  // namespace peto::testing
