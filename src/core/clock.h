// Clock: the one source of time in peto.
//
// Wall time (UTC, milliseconds since the Unix epoch) is what is stored and
// compared in the database; monotonic time is what budgets and intervals are
// measured on, so a clock set back never stretches or shortens a budget.
// Tests use FakeClock and move time instead of sleeping. All methods are
// thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace peto {

using Millis = std::int64_t;  // milliseconds since the Unix epoch, UTC

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Millis now_ms() const = 0;
  virtual std::chrono::steady_clock::time_point mono() const = 0;
  // For database statements that take "now" as a parameter: empty means "use
  // the database's own clock" (the real clock on PostgreSQL, so that nodes with
  // skewed clocks agree); a fake clock pins the value.
  virtual std::optional<Millis> pinned_ms() const = 0;
  // Waits up to `d` of this clock's time; a fake clock returns at once.
  virtual void sleep_for(std::chrono::milliseconds d) const = 0;
};

class SystemClock final : public Clock {
 public:
  Millis now_ms() const override;
  std::chrono::steady_clock::time_point mono() const override;
  std::optional<Millis> pinned_ms() const override { return std::nullopt; }
  void sleep_for(std::chrono::milliseconds d) const override;
};

// A clock that moves only when told to. Wall and monotonic time move together.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(Millis start_ms = 1'800'000'000'000) : ms_(start_ms) {}
  Millis now_ms() const override { return ms_.load(); }
  std::chrono::steady_clock::time_point mono() const override {
    return std::chrono::steady_clock::time_point(std::chrono::milliseconds(ms_.load()));
  }
  std::optional<Millis> pinned_ms() const override { return ms_.load(); }
  void sleep_for(std::chrono::milliseconds d) const override { ms_ += d.count(); }
  void advance(std::chrono::milliseconds d) { ms_ += d.count(); }
  void set(Millis ms) { ms_ = ms; }

 private:
  mutable std::atomic<Millis> ms_;
};

const Clock& system_clock();

// RFC 3339 in UTC with milliseconds: 2026-01-01T09:00:00.000Z.
std::string format_time(Millis ms);
// RFC 3339 in UTC without fractions: 2026-01-01T09:00:00Z.
std::string format_time_s(Millis ms);
// Parses RFC 3339 ("Z" or a numeric offset, optional fraction).
std::optional<Millis> parse_time(const std::string& text);

}  // namespace peto
