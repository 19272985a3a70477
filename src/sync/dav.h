// DavClient: the WebDAV subset that CalDAV (RFC 4791) and CardDAV (RFC 6352)
// syncs need, on one collection (a calendar or an address book).
//
//   sync::DavClient dav(http, {.url = "https://dav.example/cal/work/",
//                              .username = "ann", .password = "…",
//                              .allow_private = config.allow_private_destinations});
//   auto listing = dav.list();                 // every member's href and ETag
//   auto changes = dav.changes_since(token);   // RFC 6578, when the server has it
//   auto got = dav.get(href);                  // body and ETag
//   auto put = dav.put(dav.href_for(uid, ".ics"), body, "text/calendar; charset=utf-8", etag);
//   auto gone = dav.remove(href, etag);
//
// Every request goes through the guarded net::HttpClient (destination
// policy, timeout, no redirects followed) with HTTP Basic credentials when a
// username is set. Answers are parsed with expat in namespace mode, so any
// prefix the server picks for DAV: works. Hrefs are kept as the server wrote
// them, resolved to absolute paths ("/cal/work/abc.ics"); href_for() builds
// one for a new member from the collection's path and a uid (characters
// outside [A-Za-z0-9._-@] percent-encoded).
//
// Failures are values, never exceptions: DavFailure says whether trying again
// can help (failed), whether the connection itself is over (unusable: 401,
// 403 on the collection, a URL that is not a collection), or whether a
// conditional write lost a race (precondition: 412, the member changed or
// appeared since it was read) or the member is gone (not_found: 404/410).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "net/http.h"

namespace peto::sync {

struct DavFailure {
  enum class Kind { failed, unusable, precondition, not_found };
  Kind kind = Kind::failed;
  int status = 0;       // the HTTP status, 0 when none came
  std::string message;  // a sentence for the person ("dav.example answered 500.")
};

struct DavMember {
  std::string href;  // absolute path, as the server wrote it
  std::string etag;  // with its quotes, as the server wrote it ("\"abc\""); may be ""
};

struct DavListing {
  std::vector<DavMember> members;    // list(): every member; changes_since(): the changed ones
  std::vector<std::string> removed;  // changes_since() only: hrefs deleted since the token
  std::string sync_token;            // the collection's DAV:sync-token now; "" when it has none
};

struct DavBody {
  std::string body;
  std::string etag;  // from the ETag header; may be ""
};

struct DavSettings {
  std::string url;  // the collection, http(s), ending in '/' (added when missing)
  std::string username;
  std::string password;
  bool allow_private = false;                 // PETO_ALLOW_PRIVATE_DESTINATIONS
  std::chrono::milliseconds timeout{30'000};  // per request
  std::size_t max_bytes = 16 << 20;           // per answer
};

// A Multi-Status answer (207) as list() and changes_since() read it.
struct DavPage {
  // The members directly inside the collection (neither itself, nor a
  // sub-collection, nor anything elsewhere), with `with_removed` the hrefs
  // reported gone (404), and the answer's top-level DAV:sync-token.
  DavListing listing;
  bool truncated = false;  // the collection's own response says 507
};
// Reads `body` for the collection at `collection_url` (whose path is
// `collection_path`); nullopt when it is not a well-formed DAV:multistatus
// document, or one peto refuses to read (a DOCTYPE, too deep).
std::optional<DavPage> read_multistatus(const std::string& body, const std::string& collection_url,
                                        const std::string& collection_path, bool with_removed);

class DavClient {
 public:
  DavClient(const net::HttpClient& http, DavSettings settings);

  // PROPFIND Depth: 1 asking for DAV:getetag and DAV:sync-token (and
  // DAV:resourcetype, so sub-collections are skipped): every member directly
  // inside the collection (paths compared decoded; the collection itself and
  // any href elsewhere on the server are left out). unusable
  // when the URL is not a collection or the answer does not name the
  // collection itself; failed when the server cut the listing short (507),
  // since a member missing from a full listing is taken as deleted.
  std::variant<DavListing, DavFailure> list() const;

  // REPORT DAV:sync-collection (RFC 6578) from `token`, sync-level 1,
  // asking for DAV:getetag. nullopt when the server does not support it or
  // refuses the token (403/409 with DAV:valid-sync-token, 400, 405, 501, or an
  // answer without a sync-token): the caller then lists the whole collection.
  std::optional<std::variant<DavListing, DavFailure>> changes_since(const std::string& token) const;

  std::variant<DavBody, DavFailure> get(const std::string& href) const;

  // PUT with If-Match: etag, or If-None-Match: * when etag is "" (create
  // only). Returns the new ETag ("" when the server sent none).
  std::variant<std::string, DavFailure> put(const std::string& href, const std::string& body,
                                            const std::string& content_type,
                                            const std::string& etag) const;

  // DELETE with If-Match: etag (none when ""). A member already gone is a
  // success.
  std::optional<DavFailure> remove(const std::string& href, const std::string& etag) const;

  // The href of a new member named after `uid` in the collection, with
  // `extension` (".ics", ".vcf").
  std::string href_for(std::string_view uid, std::string_view extension) const;

  const std::string& collection_path() const { return path_; }

 private:
  const net::HttpClient& http_;
  DavSettings settings_;
  std::string origin_;  // "https://dav.example:8443"
  std::string path_;    // "/cal/work/"
};

}  // namespace peto::sync
