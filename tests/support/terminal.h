// AtTerminal: a command run as a person runs it at a terminal, its standard
// input, output and error one pseudo-terminal, for what peto does only there
// (asking for a password unseen, the human line of `peto up`).
//
//   AtTerminal t(peto_binary() + " user create --email ana@example.com");
//   ASSERT_TRUE(t.wait_for("Password for"));
//   t.type("correct horse battery");
//   EXPECT_EQ(t.wait_exit(), 0);
//   t.seen();  // everything the terminal showed, echo included
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

namespace peto::testing {

class AtTerminal {
 public:
  // Starts `sh -c command` on a new pseudo-terminal; throws std::runtime_error
  // when it cannot.
  explicit AtTerminal(const std::string& command);
  ~AtTerminal();  // SIGKILL when it still runs
  AtTerminal(const AtTerminal&) = delete;
  AtTerminal& operator=(const AtTerminal&) = delete;

  // Reads what the terminal shows until `text` is among it or `timeout`
  // passes; true when it came.
  bool wait_for(const std::string& text,
                std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // Types `line` and Enter, as a person would once the prompt is there.
  void type(const std::string& line);
  // Sends `signal` to the command (SIGINT is Ctrl-C).
  void signal(int signal);
  // Reads to the end and waits for the command: its exit code (128 + signal
  // when one ended it), or -1 when it still ran after `timeout`.
  int wait_exit(std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // Everything the terminal showed so far.
  const std::string& seen() const { return seen_; }

 private:
  // Reads once, waiting up to `ms`; false at the end (the command closed it).
  bool read_some(int ms);

  pid_t pid_ = -1;
  int master_ = -1;
  std::string seen_;
};

}  // namespace peto::testing
