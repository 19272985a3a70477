// Document copies: each document copied to each of its owner's store
// connections (docs/SPEC.md §6, docs/SPEC.md §6, Stores).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "net/http.h"
#include "plugin/attempt.h"
#include "store/db.h"

namespace peto::media {

class Store;
struct PutResult;

// Makes the pending document_copies rows for one upload, one per enabled
// store connection of `owner`, on `conn` (inside the caller's transaction).
// Idempotent: rows that exist are left alone.
void plan_copies_in(store::Conn& conn, std::int64_t owner, std::int64_t upload_id, Millis now);

// "Copy existing documents", for a store added after them: the documents
// (every version with a file) of `owner` that have no copy planned for the
// store connection `connection_id`, and the planning of a pending copy of
// each, due now, on `conn`; how many. Nothing for a connection that is not
// one of `owner`'s enabled stores.
std::int64_t uncopied_documents(store::Conn& conn, std::int64_t owner, std::int64_t connection_id);
std::int64_t plan_existing_copies_in(store::Conn& conn, std::int64_t owner,
                                     std::int64_t connection_id, Millis now);

// One copy of a document, as its page shows it. Its "Send now" button posts
// to /documents/{upload_id}/copies/{id}/send.
struct CopyView {
  std::int64_t id = 0;
  std::int64_t connection_id = 0;
  std::string store_label;  // the connection's label
  std::string plugin;       // "local", "webdav", "s3"
  std::string status;       // pending, sent, failed, declined
  int attempts = 0;
  std::optional<Millis> next_attempt_at;
  std::optional<Millis> sent_at;
  std::string external_url;
  std::string last_error;
};
// The copies of `owner`'s upload, oldest first; empty for somebody else's.
std::vector<CopyView> list_copies(store::Conn& conn, std::int64_t owner, std::int64_t upload_id);

// Sending (docs/SPEC.md §6, Stores, docs/RULES.md #509 claim, docs/RULES.md #1172 budget).
//
// A copy is due when it is pending or failed, has had fewer than 6 attempts,
// next_attempt_at has come, it is not claimed (claimed_until null or past),
// its connection is enabled and its owner active. A sender claims a row with
// one conditional UPDATE that sets claimed_until = now + 15 min only if the
// row is still due by all of those conditions (another sender may have tried
// it since it was read); every outcome clears claimed_until, and is written
// only while the claim is still the sender's own, so two senders never send
// one copy at once and a late one never overwrites a newer try. "Now" is the
// database's clock (store::now_param): claims, waits and sent_at included.
//
// One attempt: a connection the policy now refuses (Store::refusal) costs no
// attempt: the row waits 5 minutes with the reason. Otherwise attempts + 1,
// then: connection gone, disabled or not a store, unreadable secrets, the
// file missing or no longer matching its SHA-256 → failed; the store's
// answer (PutResult's plugin::Outcome): done → sent (external id and URL,
// the connection marked working), final → declined (never retried), retry →
// failed, or unusable (the connection is retired, the copy failed); the
// connection's row is written by plugin::settle and a failure leaves it alone. A failure waits 5
// min × 2^(attempts−1) (5, 10, 20, 40, 80 min); after the 6th the row stays failed and is never due
// again until a person presses "Send now", which resets attempts to 0 and tries at once.
inline constexpr int kCopyBatch = 50;
inline constexpr int kCopyMaxAttempts = 6;
inline constexpr Millis kCopyFirstRetryMs = 5 * 60 * 1000;
inline constexpr plugin::Backoff kCopyBackoff{kCopyMaxAttempts, kCopyFirstRetryMs};
inline constexpr Millis kCopyClaimMs = 15 * 60 * 1000;
inline constexpr std::size_t kCopyErrorMax = 500;
// The longest file name after "<document id>-" in a copy's name on a store.
inline constexpr std::size_t kCopyNameMax = 100;

// The wait after failed attempt n (1-based): 5 min × 2^(n−1).
Millis copy_retry_delay_ms(int attempts);

enum class CopyOutcome { sent, failed, declined, refused, busy };
const char* copy_outcome_name(CopyOutcome o);  // "sent", "failed", "declined", "refused", "busy"

class Copies {
 public:
  Copies(store::Db& db, const Clock& clock, const Config& config, const net::HttpClient& http);

  // The ids of the first kCopyBatch due copies, in (next_attempt_at, id) order.
  std::vector<std::int64_t> due();
  // Claims copy `id` for one attempt if it is still due; the claim's value
  // (its claimed_until), nullopt when it is no longer due, claimed by another
  // sender or gone.
  std::optional<Millis> claim(std::int64_t id);
  // One attempt on a copy claimed with `claim` (see above).
  CopyOutcome attempt(std::int64_t id, Millis claim);
  // "Send now" on `owner`'s copy: attempts back to 0, claimed, tried at once.
  // nullopt: no such copy of this owner; busy: it is sent or being sent.
  std::optional<CopyOutcome> send_now(std::int64_t owner, std::int64_t copy_id);
  // Whether `copy_id` is one of `owner`'s copies.
  bool owns(std::int64_t owner, std::int64_t copy_id) const;
  // Whether `copy_id` is the owner's copy of the document `document_id`.
  bool is_copy_of(std::int64_t owner, std::int64_t copy_id, std::int64_t document_id) const;

 private:
  bool finish(std::int64_t id, Millis claim, const std::string& status, const std::string& error,
              std::optional<Millis> wait, const std::string& external_id = "",
              const std::string& external_url = "");
  CopyOutcome settle_put(std::int64_t id, Millis claim, int attempts, std::int64_t connection_id,
                         const Store& store, const PutResult& result);
  CopyOutcome copy_failed(std::int64_t id, Millis claim, int attempts, const std::string& why);
  store::Db& db_;
  const Clock& clock_;
  const Config& config_;
  const net::HttpClient& http_;
};

}  // namespace peto::media
