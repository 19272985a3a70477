// Document copies: each document copied to each of its owner's store
// connections (SPEC §6, reference scheduler §3.4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "store/db.h"

namespace peto::media {

// Makes the pending document_copies rows for one upload, one per enabled
// store connection of `owner`, on `conn` (inside the caller's transaction).
// Idempotent: rows that exist are left alone.
void plan_copies_in(store::Conn& conn, std::int64_t owner, std::int64_t upload_id, Millis now);

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

}  // namespace peto::media
