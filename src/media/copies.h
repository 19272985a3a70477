// Document copies: each document copied to each of its owner's store
// connections (SPEC §6, reference scheduler §3.4).
#pragma once

#include <cstdint>

#include "core/clock.h"
#include "store/db.h"

namespace peto::media {

// Makes the pending document_copies rows for one upload, one per enabled
// store connection of `owner`, on `conn` (inside the caller's transaction).
// Idempotent: rows that exist are left alone.
void plan_copies_in(store::Conn& conn, std::int64_t owner, std::int64_t upload_id, Millis now);

}  // namespace peto::media
