// Collection: keeps some of a person's records and one DAV collection in
// step, through sync_links. The CalDAV and CardDAV plugins describe their
// records as Sides (how a record reads as text, how a member's text changes a
// record) and call sync_collection() once per run.
//
// One run:
//   1. What the server holds: the changes since the saved sync-token when the
//      server has RFC 6578 and the token is still good, else a full listing.
//   2. Each link, by what changed since the last run:
//      - nothing: nothing;
//      - the record here: PUT with If-Match (a 412 leaves it for next run);
//      - the member there (ETag differs): GET, and the record takes its
//        values; when both changed, the server's version wins ("conflicts");
//      - the record deleted here: DELETE there with If-Match;
//      - the member deleted there: the record is deleted here;
//      - both gone: the link goes.
//      A deletion wins over a change on the other side.
//   3. Records without a link: PUT with If-None-Match: * under their uid; a
//      412 means the member is already there (a run that died after the PUT):
//      it is adopted and overwritten, never duplicated.
//   4. Members without a link: GET; a Side that can make a record of it
//      does (the record and its link in one transaction); others are
//      remembered as "skipped" (a link without a record kind) so they are
//      read again only when they change, and never deleted.
// Every local write goes with its link's update in one transaction, and every
// remote write is conditional, so a run that dies anywhere resumes cleanly.
// The sync-token is saved only when the whole run succeeded.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "store/db.h"
#include "sync/dav.h"
#include "sync/syncs.h"

namespace peto::sync {

// A record as a member's text.
struct Rendered {
  std::string text;  // the body peto would write
  std::string hash;  // of the text without what changes on every write (DTSTAMP)
};

// What the record made or changed from a member now is, or why it could not
// be made or changed.
using Applied = std::variant<nlohmann::json, std::string>;

struct Side {
  std::string record_kind;  // "interviews", "reminders", "contacts"
  std::string extension;    // ".ics", ".vcf"
  std::string content_type;
  // Every record of this side (domain::Record JSON: id, created_at …).
  std::function<std::vector<nlohmann::json>()> records;
  // The record as a member named `uid`.
  std::function<Rendered(const nlohmann::json& record, const std::string& uid)> render;
  // The member's UID when its text is this side's (a VTODO for reminders);
  // nullopt when it is not.
  std::function<std::optional<std::string>(const std::string& text)> claims;
  // The record `id` takes the member's values, inside the caller's
  // transaction.
  std::function<Applied(store::Conn&, std::int64_t id, const std::string& text)> apply;
  // A new record from a member; empty when this side never makes one from
  // the server (interviews need an application).
  std::function<Applied(store::Conn&, const std::string& text)> create;
  std::function<void(store::Conn&, std::int64_t id)> remove;
};

// The hash of a member's text peto keeps on a link.
std::string text_hash(const std::string& text);

// One run over `dav`'s collection for `sides`; counts, notes and error go
// into `report`.
void sync_collection(SyncContext& ctx, const DavClient& dav, const std::vector<Side>& sides,
                     SyncReport& report);

}  // namespace peto::sync
