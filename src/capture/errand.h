// The capture fetch errand: reads the page of a capture made from a link.
//
//   capture::enqueue_fetch(db, clock, owner, capture_id);      // web or API
//   kinds.add({capture::kFetchTask, handler…});                // app/work.cpp
//
// It runs on the worker as an errand of the person (never retried: a second
// try is the person's "capture again"). The page is fetched through the
// guarded client with the public-only destination policy — no setting lets a
// capture reach a private address — after robots.txt allows it (an admin can
// switch that off with PETO_CAPTURE_ROBOTS=false): at most 3 redirects, each
// re-checked, 10 s and 2 MB. Whatever happens, the capture ends pending (the
// parsers' reading, for review) or failed with a sentence saying why.
#pragma once

#include <cstdint>
#include <string>

#include "capture/kept_pages.h"
#include "core/clock.h"
#include "core/status.h"
#include "domain/captures.h"
#include "engine/queue.h"
#include "net/http.h"
#include "store/db.h"

namespace peto::capture {

inline constexpr const char* kFetchTask = "capture.fetch";

struct FetchOptions {
  bool honour_robots = true;
  KeptPages* pages = nullptr;  // keeps the fetched source when set
};

// A capture of `url`: read from `html` at once when it is given (nothing is
// fetched; the source is kept when `pages` is set), else made `fetching`
// with its errand enqueued, both on `conn` (inside the caller's transaction).
std::variant<domain::Capture, domain::FieldErrors> capture_page_in(
    store::Conn& conn, domain::Records& records, std::int64_t owner, const std::string& url,
    std::string_view html, const std::string& origin, KeptPages* pages = nullptr);
// The same in a transaction of its own.
std::variant<domain::Capture, domain::FieldErrors> capture_page(
    domain::Records& records, std::int64_t owner, const std::string& url, std::string_view html,
    const std::string& origin, KeptPages* pages = nullptr);

// The errand's body. The Status is an error only for a malformed task; a page
// that cannot be read is the capture's `failed` state, not a task failure.
Result<std::string> run_fetch(store::Db& db, const Clock& clock, const net::HttpClient& http,
                              const engine::Task& task, const FetchOptions& options = {});

}  // namespace peto::capture
