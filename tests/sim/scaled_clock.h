// ScaledClock: the simulation's clock, shared by every process of one run.
//
// Its time runs `scale` times faster than the machine's, from the same two
// origins in every process (`wall_origin`, the simulated wall time at the
// start, and `mono_origin`, the machine's monotonic time then), so that the
// schedulers, the workers and the driver all read the same simulated time:
// a 15-minute lease lasts 15 s of a run at scale 60. It is pinned, so the
// database compares against this time, never its own.
#pragma once

#include <chrono>
#include <thread>

#include "core/clock.h"

namespace peto::sim {

class ScaledClock final : public Clock {
 public:
  ScaledClock(Millis wall_origin, std::int64_t mono_origin_ms, int scale)
      : wall_origin_(wall_origin), mono_origin_ms_(mono_origin_ms), scale_(scale) {}

  // The machine's monotonic time in milliseconds (the same in every process).
  static std::int64_t machine_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  Millis now_ms() const override {
    return wall_origin_ + (machine_ms() - mono_origin_ms_) * scale_;
  }
  std::chrono::steady_clock::time_point mono() const override {
    return std::chrono::steady_clock::time_point(std::chrono::milliseconds(now_ms()));
  }
  std::optional<Millis> pinned_ms() const override { return now_ms(); }
  void sleep_for(std::chrono::milliseconds d) const override {
    std::this_thread::sleep_for(d / scale_);
  }

  int scale() const { return scale_; }
  // Simulated milliseconds as milliseconds of the machine.
  std::int64_t real_ms(std::int64_t simulated_ms) const { return simulated_ms / scale_; }

 private:
  Millis wall_origin_;
  std::int64_t mono_origin_ms_;
  int scale_;
};

}  // namespace peto::sim
