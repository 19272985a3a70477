// StopSignals: SIGTERM and SIGINT turned into an orderly stop.
//
// Construct it in main's thread before any other thread starts: it blocks the
// two signals in every thread and waits for them on one thread of its own.
// The first signal runs every hook given to on_stop() (each must return
// quickly, e.g. Server::stop; the Hook it returns unhooks it) and wakes every
// wait_for(); a second signal ends the process at once with status 130, for
// an operator who means it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace peto::app {

class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Unhooks on destruction, waiting for the hook if it is running: keep it
  // beside the object the hook stops, declared after it, so the object is
  // never destroyed under a stop that is still calling it.
  class [[nodiscard]] Hook {
   public:
    Hook(StopSignals* signals, int id) : signals_(signals), id_(id) {}
    ~Hook();
    Hook(const Hook&) = delete;
    Hook& operator=(const Hook&) = delete;

   private:
    StopSignals* signals_;
    int id_;
  };
  Hook on_stop(std::function<void()> hook);
  // Asks for a stop as a signal would (used when one part fails).
  void request_stop();
  bool stopping() const;
  // Waits up to `d`; true when a stop was asked for (at once or meanwhile).
  bool wait_for(std::chrono::milliseconds d);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  void unhook(int id);

  std::vector<std::pair<int, std::function<void()>>> hooks_;
  int next_id_ = 0;
  int running_ = -1;  // id of the hook being called, -1 when none
  bool stopping_ = false;
  std::thread waiter_;
};

}  // namespace peto::app
