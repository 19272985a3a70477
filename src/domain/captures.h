// Captures: a job page a person saved, waiting for them to review it.
//
//   Captures captures(records);
//   auto c = captures.from_html(owner, "https://jobs.example/42", html, "web");
//   ... the person reviews c's fields, corrects them ...
//   auto listing = captures.accept(owner, id, edited, /*apply=*/false);
//
// A capture keeps the page's URL and its url_key (the URL with what does not
// name the page removed: scheme, "www.", default port, fragment, tracking
// parameters, parameter order, a trailing slash), what the parsers read
// (capture/posting.h: the data, the parser's name and version) and where it
// came from (web or api). Nothing is saved as a listing on a guess: a capture
// is pending until the person accepts it (one transaction: the company by
// name, the listing, optionally the application, and a `capture` entry on the
// listing's history) or discards it. A discarded capture keeps its url_key,
// so the same page is recognised the next time ("you saved this already").
//
// A capture by URL starts as `fetching`; the fetch errand fills it in
// (fill) or records why it could not (fail).
//
// Every statement carries owner_id: somebody else's capture is NotFound.
// Thread-safe (state is in the Db).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "domain/applications.h"
#include "domain/records.h"
#include "store/db.h"
#include "store/migrate.h"

namespace peto::domain {

inline constexpr std::size_t kMaxCapturedPageBytes = 2 << 20;

// The normalised key of an http(s) URL ("jobs.example/a/42?id=7"); "" when
// it is not one.
std::string url_key(std::string_view url);

inline constexpr std::int64_t kCapturesPerHour = 30;

// Counts one capture of `owner` (web and API together) in this hour's window
// of the shared cache; the seconds until the window ends when this one is
// over kCapturesPerHour (then nothing should be captured), else nullopt.
std::optional<std::int64_t> capture_rate_limited(store::Db& db, const Clock& clock,
                                                 std::int64_t owner);

// A capture as JSON: id, url, url_key, origin, status (fetching, pending,
// accepted, discarded, failed), parser, parser_version, data (the posting's
// fields), error, listing_id, application_id, seen_before (another capture or
// a listing of the owner has the same url_key), created_at, updated_at (ms).
using Capture = nlohmann::json;

// A listing's own history (listing_events), newest first: {kind, summary,
// occurred_at (ms), capture_id, actor}. Empty for somebody else's listing.
std::vector<nlohmann::json> listing_history(store::Db& db, std::int64_t owner,
                                            std::int64_t listing_id);

class Captures {
 public:
  explicit Captures(Records& records) : records_(records), apps_(records) {}
  static std::vector<store::Migration> migrations();

  // Parses `html` now (nothing is fetched). FieldErrors for a URL that is
  // not http(s), an overlong URL or page, an origin other than web/api.
  std::variant<Capture, FieldErrors> from_html(std::int64_t owner, const std::string& url,
                                               std::string_view html, const std::string& origin);
  // A capture waiting for the fetch errand.
  std::variant<Capture, FieldErrors> from_url(std::int64_t owner, const std::string& url,
                                              const std::string& origin);
  // The same on a connection inside the caller's transaction (the API's
  // idempotent POST; the fetch errand is enqueued in the same transaction).
  std::variant<Capture, FieldErrors> from_html_in(store::Conn& conn, std::int64_t owner,
                                                  const std::string& url, std::string_view html,
                                                  const std::string& origin);
  std::variant<Capture, FieldErrors> from_url_in(store::Conn& conn, std::int64_t owner,
                                                 const std::string& url, const std::string& origin);
  // The errand's outcome for a `fetching` capture: the page, or why not.
  // False when the capture is no longer fetching (discarded meanwhile).
  bool fill(std::int64_t owner, std::int64_t id, std::string_view html);
  bool fail(std::int64_t owner, std::int64_t id, const std::string& reason);

  std::optional<Capture> get(std::int64_t owner, std::int64_t id);
  std::optional<Capture> get_in(store::Conn& conn, std::int64_t owner, std::int64_t id);
  // Newest first; `status` "" = all.
  std::vector<Capture> list(std::int64_t owner, const std::string& status, int limit = 50);

  // Makes the listing from `edited` (listing fields plus `company`, the
  // company's name) in one transaction; with `apply`, its application too.
  // FieldErrors (nothing written) for invalid values or a capture that is not
  // pending ("form": "error_capture_not_pending"); NotFound for another's.
  Written accept(std::int64_t owner, std::int64_t id, const Input& edited, bool apply,
                 const std::string& actor = "");
  // False when it is not the owner's or not pending/failed.
  bool discard(std::int64_t owner, std::int64_t id);

 private:
  std::variant<Capture, FieldErrors> insert(store::Conn& conn, std::int64_t owner,
                                            const std::string& url, const std::string& origin,
                                            std::string_view html, bool fetch);
  Records& records_;
  Applications apps_;
};

}  // namespace peto::domain
