// StopSignals: SIGTERM and SIGINT turned into an orderly stop.
//
// Construct it in main's thread before any other thread starts: it blocks the
// two signals in every thread and waits for them on one thread of its own.
// The first signal runs every hook given to on_stop() (each must return
// quickly, e.g. Server::stop) and wakes every wait_for(); a second signal
// ends the process at once with status 130, for an operator who means it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace peto::app {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  void on_stop(std::function<void()> hook);
  // Asks for a stop as a signal would (used when one part fails).
  void request_stop();
  bool stopping() const;
  // Waits up to `d`; true when a stop was asked for (at once or meanwhile).
  bool wait_for(std::chrono::milliseconds d);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::function<void()>> hooks_;
  bool stopping_ = false;
  std::thread waiter_;
};

}  // namespace peto::app
