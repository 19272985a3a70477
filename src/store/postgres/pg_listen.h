// PgListener: waits for PostgreSQL NOTIFY on a dedicated connection.
//
//   PgListener listener(conninfo);
//   listener.listen("peto_tasks");
//   while (running) {
//     listener.wait(std::chrono::seconds(5));  // then look at the queue either way
//     …
//   }
//
// A notification is only a hint that something changed: wait() returns false
// on timeout and also when the connection broke and was made again (it then
// LISTENs on every channel again, but notifications sent in the gap are lost),
// so the caller must look at the table after every wait, whatever it returned.
//
// The constructor throws store::Error when the server cannot be reached; wait()
// never throws for a lost server: it keeps trying to reconnect and returns
// false within the timeout. Not thread-safe: one thread owns a listener.
#pragma once

#include <chrono>
#include <string>
#include <vector>

struct pg_conn;

namespace peto::store {

class PgListener {
 public:
  explicit PgListener(std::string conninfo);
  ~PgListener();
  PgListener(const PgListener&) = delete;
  PgListener& operator=(const PgListener&) = delete;

  // Subscribes to `channel` (any text; it is quoted). Throws store::Error.
  void listen(const std::string& channel);
  // Waits up to `timeout` for a notification on any listened channel. True if
  // at least one arrived (all pending ones are consumed).
  bool wait(std::chrono::milliseconds timeout);

 private:
  void recover(std::chrono::steady_clock::time_point deadline);

  std::string conninfo_;
  std::vector<std::string> channels_;
  pg_conn* conn_ = nullptr;
};

}  // namespace peto::store
