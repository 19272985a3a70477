#include "tests/support/external_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace peto::testing {
namespace {

sockaddr_in loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  return a;
}

// A port that was free a moment ago: bound to 0, read, closed.
int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = loopback(0);
  socklen_t len = sizeof(a);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    throw std::runtime_error("no free port on 127.0.0.1");
  close(fd);
  return ntohs(a.sin_port);
}

bool accepts(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = loopback(port);
  bool ok = fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  if (fd >= 0) close(fd);
  return ok;
}

}  // namespace

ExternalServer::ExternalServer(std::vector<std::string> argv, const std::filesystem::path& dir)
    : port_(free_port()), log_(dir / "server.log") {
  for (auto& arg : argv)
    for (auto at = arg.find("{port}"); at != std::string::npos; at = arg.find("{port}"))
      arg.replace(at, 6, std::to_string(port_));
  std::vector<char*> args;
  for (auto& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ > 0) setpgid(pid_, pid_);  // also here: whichever runs first
  if (pid_ == 0) {
    setpgid(0, 0);  // its own group: stopping it stops what it started
    int out = open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out >= 0) {
      dup2(out, 1);
      dup2(out, 2);
    }
    if (chdir(dir.c_str()) != 0) _exit(126);
    execv(args[0], args.data());
    _exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!accepts(port_)) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error(argv[0] + " ended before it listened: " + log());
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error(argv[0] + " did not listen within 20 s: " + log());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

ExternalServer::~ExternalServer() {
  if (pid_ <= 0) return;
  kill(-pid_, SIGTERM);
  for (int i = 0; i < 100; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(-pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
}

std::string ExternalServer::log() const {
  std::ifstream in(log_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace peto::testing
