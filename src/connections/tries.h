// A person's tries of a connection: "Send a test" (a notifier or a store),
// "Sync now" (a sync) and a document copy's "Send now". Each makes requests
// to another server that may take its full timeout, so none runs on a
// server thread for long:
//
//   connections::Tries tries(db, clock, config, http);
//   auto started = tries.start(owner, connections::Try::test, connection_id, "en");
//   //   a worker runs (PETO_BACKGROUND_WORK, the default): an errand is
//   //   queued and started.task_id names it; the page shows "Sending…" and
//   //   reloads itself until tries.seen(owner, task_id) has the outcome.
//   //   No worker: the try runs at once and started.outcome holds it.
//   kinds.add(…tries.run(task)…);  // app/work.cpp, for the three task kinds
//
// Limits: a person has at most kUnfinishedPerPerson errands of these kinds
// waiting or running, and asking again for a subject whose errand still
// waits returns that one (one idempotency key per subject); without a worker, a process runs
// at most kAtOnce tries in requests at the same moment and one per person
// (TryGate). A refused start changes nothing.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <variant>

#include "core/clock.h"
#include "core/config.h"
#include "core/status.h"
#include "engine/queue.h"
#include "net/http.h"
#include "store/db.h"

namespace peto::connections {

enum class Try { test, sync, copy };

// The task kinds of the errands.
inline constexpr const char* kTestTask = "connection.test";
inline constexpr const char* kSyncTask = "connection.sync";
inline constexpr const char* kCopyTask = "copy.send";

// What a try came to, in the words its page uses:
//   test: the attempt's outcome name (sent, failed, final, unusable) and its
//         message (a catalogue key or a sentence; "" when sent);
//   sync: done, failed (the report's error as message) or busy (a run holds
//         the connection);
//   copy: sent, failed, declined, refused or busy.
struct TryOutcome {
  std::string outcome;
  std::string message;
};

// A try as its page sees it while it waits and after.
struct SeenTry {
  Try kind = Try::test;
  std::int64_t subject = 0;           // the connection, or the copy
  bool working = false;               // waiting for the worker, or running
  std::optional<TryOutcome> outcome;  // once done
  std::string interrupted;            // the reason, when the errand failed
};

struct Started {
  std::int64_t task_id = 0;           // the errand; 0 when the try ran at once
  std::optional<TryOutcome> outcome;  // when it ran at once
};
enum class TryRefusal {
  not_found,  // no such connection (or copy) of this person
  too_many,   // the person has enough tries running; the page says to wait
};

// The tries that run in requests (no worker): at most kAtOnce in the process
// and one per person. enter() is a ticket, or nullopt when the gate is full.
class TryGate {
 public:
  static constexpr int kAtOnce = 2;
  class Ticket {
   public:
    Ticket(TryGate& gate, std::int64_t owner) : gate_(&gate), owner_(owner) {}
    Ticket(Ticket&& other) noexcept : gate_(other.gate_), owner_(other.owner_) {
      other.gate_ = nullptr;
    }
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket() {
      if (gate_ != nullptr) gate_->leave(owner_);
    }

   private:
    TryGate* gate_;
    std::int64_t owner_;
  };
  std::optional<Ticket> enter(std::int64_t owner);
  // The one gate of this process.
  static TryGate& process();

 private:
  void leave(std::int64_t owner);
  std::mutex mutex_;
  int running_ = 0;
  std::map<std::int64_t, int> by_owner_;
};

class Tries {
 public:
  static constexpr int kUnfinishedPerPerson = 3;
  // How long a "Sync now" starts new entries; the next scheduled run does
  // the rest.
  static constexpr auto kSyncLimit = std::chrono::seconds(20);

  Tries(store::Db& db, const Clock& clock, const Config& config, const net::HttpClient& http)
      : db_(db), clock_(clock), config_(config), http_(http) {}

  // `subject` is the connection (test, sync) or the document copy (copy).
  // `language` words a test notice.
  std::variant<Started, TryRefusal> start(std::int64_t owner, Try kind, std::int64_t subject,
                                          const std::string& language);
  // The try itself, at once; nullopt when the subject is not `owner`'s (or
  // is a connection of another kind).
  std::optional<TryOutcome> run_now(std::int64_t owner, Try kind, std::int64_t subject,
                                    const std::string& language);
  // The errand's body (a worker's handler for the three kinds): the
  // outcome as JSON text. An error Status only for a malformed task.
  Result<std::string> run(const engine::Task& task);
  // `owner`'s try `task_id`; nullopt for anybody else's or a forgotten one.
  std::optional<SeenTry> seen(std::int64_t owner, std::int64_t task_id);

 private:
  store::Db& db_;
  const Clock& clock_;
  const Config& config_;
  const net::HttpClient& http_;
};

const char* try_task_kind(Try kind);

}  // namespace peto::connections
