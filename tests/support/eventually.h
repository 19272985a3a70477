// eventually(): polls a condition until it holds or a deadline passes, for
// tests that wait on another thread or process. The one way tests wait;
// never a fixed sleep.
#pragma once

#include <chrono>
#include <thread>

namespace peto::testing {

// Polls `done` every 2 ms until it holds or `limit` passes; its last answer.
template <typename Fn>
bool eventually(Fn done, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return done();
}

}  // namespace peto::testing
