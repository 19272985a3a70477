#include "tests/support/terminal.h"

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <stdexcept>

namespace peto::testing {

AtTerminal::AtTerminal(const std::string& command) {
  winsize size{};
  size.ws_row = 24;
  size.ws_col = 120;
  pid_ = ::forkpty(&master_, nullptr, nullptr, &size);
  if (pid_ < 0) throw std::runtime_error("forkpty failed");
  if (pid_ == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
}

AtTerminal::~AtTerminal() {
  if (pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  if (master_ >= 0) ::close(master_);
}

bool AtTerminal::read_some(int ms) {
  pollfd fd{master_, POLLIN, 0};
  if (::poll(&fd, 1, ms) <= 0) return true;
  char buf[4096];
  ssize_t n = ::read(master_, buf, sizeof buf);
  if (n <= 0) return false;  // EIO once the command's side is closed
  seen_.append(buf, static_cast<std::size_t>(n));
  return true;
}

bool AtTerminal::wait_for(const std::string& text, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (seen_.find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= until || !read_some(100)) break;
  }
  return seen_.find(text) != std::string::npos;
}

void AtTerminal::type(const std::string& line) {
  const std::string keys = line + "\r";
  if (::write(master_, keys.data(), keys.size()) != static_cast<ssize_t>(keys.size()))
    throw std::runtime_error("cannot type at the terminal");
}

void AtTerminal::signal(int sig) { ::kill(pid_, sig); }

int AtTerminal::wait_exit(std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until && read_some(100)) {
  }
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= until) return -1;
    ::usleep(20 * 1000);
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace peto::testing
