// Status and Result: the error values a caller must handle.
//
// A module returns a Status (or a Result<T>) where a caller can do something
// about a failure: bad configuration, a schema newer than the binary, a record
// that is not there. The message is written for the person who reads it: it
// says what was wrong and, where it can, what to do. Programming errors and a
// database that fails under a unit of work are exceptions (see store/db.h).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace peto {

class Status {
 public:
  enum class Code { ok, invalid, not_found, conflict, unavailable, internal };

  Status() = default;
  static Status ok() { return Status(); }
  static Status invalid(std::string m) { return Status(Code::invalid, std::move(m)); }
  static Status not_found(std::string m) { return Status(Code::not_found, std::move(m)); }
  static Status conflict(std::string m) { return Status(Code::conflict, std::move(m)); }
  static Status unavailable(std::string m) { return Status(Code::unavailable, std::move(m)); }
  static Status internal(std::string m) { return Status(Code::internal, std::move(m)); }

  bool is_ok() const { return code_ == Code::ok; }
  explicit operator bool() const { return is_ok(); }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Status(Code c, std::string m) : code_(c), message_(std::move(m)) {}
  Code code_ = Code::ok;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit on purpose
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: implicit on purpose

  bool is_ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return is_ok(); }
  const Status& status() const {
    static const Status ok;
    return is_ok() ? ok : std::get<Status>(v_);
  }
  T& value() { return std::get<T>(v_); }
  const T& value() const { return std::get<T>(v_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace peto
