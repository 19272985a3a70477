#include "tests/support/served_peto.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tests/support/backends.h"

namespace peto::testing {

namespace {

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

ServedPeto::ServedPeto(const std::filesystem::path& dir, const std::string& env)
    : log_path_(dir / "serve.log"),
      data_((dir / "served").string()),
      url_("sqlite://" + data_ + "/peto.db") {
  Ran migrated = run_peto(url_, data_, "migrate", dir);
  if (migrated.code != 0) throw std::runtime_error("peto migrate failed: " + migrated.err);

  // `env` comes last, so that it may set PETO_LOG_LEVEL too.
  const std::string command =
      "exec env PETO_LOG_LEVEL=info PETO_LOG_FORMAT=json "
      "PETO_LISTEN=127.0.0.1:0 PETO_DATABASE_URL='" +
      url_ + "' PETO_DATA_DIR='" + data_ + "' " + env + peto_binary() + " serve >'" +
      log_path_.string() + "' 2>&1";
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const std::regex address(R"re("address":"127\.0\.0\.1:(\d+)")re");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    std::istringstream lines(log());
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (line.find("\"listening\"") != std::string::npos && std::regex_search(line, m, address)) {
        port_ = static_cast<std::uint16_t>(std::stoi(m[1]));
        return;
      }
    }
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::string tail = log();
  if (tail.size() > 2000) tail = tail.substr(tail.size() - 2000);
  stop();
  throw std::runtime_error("peto serve did not start:\n" + tail);
}

ServedPeto::~ServedPeto() { stop(); }

void ServedPeto::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 200; ++i) {
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

long ServedPeto::rss_kb() const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

std::string ServedPeto::log() const { return read_all(log_path_); }

}  // namespace peto::testing
