// StopSignals' hooks: a stop never calls into an object that is gone.
#include "app/signals.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

namespace peto::app {
namespace {

using namespace std::chrono_literals;

TEST(StopSignals, AHookRunsOnceOnStop) {
  StopSignals signals;
  int calls = 0;
  const auto hook = signals.on_stop([&] { ++calls; });
  signals.request_stop();
  signals.request_stop();
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(signals.stopping());
}

TEST(StopSignals, AHookGivenAfterTheStopRunsAtOnce) {
  StopSignals signals;
  signals.request_stop();
  bool called = false;
  const auto hook = signals.on_stop([&] { called = true; });
  EXPECT_TRUE(called);
}

TEST(StopSignals, AnUnhookedHookIsNotCalled) {
  StopSignals signals;
  bool called = false;
  {
    const auto hook = signals.on_stop([&] { called = true; });
  }
  signals.request_stop();
  EXPECT_FALSE(called);
}

// The serve loop's shape: the stop comes from the signal thread, the loop
// returns as soon as the hook has asked it to, and the object the hook calls
// is destroyed right after. Unhooking waits until the hook has returned.
TEST(StopSignals, UnhookingWaitsForTheHookThatIsRunning) {
  StopSignals signals;
  std::promise<void> entered;
  std::atomic<bool> hook_returned{false};
  bool returned_before_unhook_ended = false;
  std::thread stopper;
  {
    const auto hook = signals.on_stop([&] {
      entered.set_value();
      std::this_thread::sleep_for(100ms);  // still inside, as Server::stop's post is
      hook_returned = true;
    });
    stopper = std::thread([&] { signals.request_stop(); });
    entered.get_future().wait();
  }  // ~Hook
  returned_before_unhook_ended = hook_returned;
  stopper.join();
  EXPECT_TRUE(returned_before_unhook_ended);
}

}  // namespace
}  // namespace peto::app
