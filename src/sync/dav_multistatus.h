// Reading WebDAV Multi-Status answers (RFC 4918 §13) for the DAV client
// (sync/dav.cpp). expat reads them in namespace mode, element names arriving
// as "DAV:|href". A document with a DOCTYPE is refused outright (no entity can
// then be declared, so none can be expanded), and elements deeper than 64
// levels stop the parser.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace peto::sync::multistatus {

struct DavResponse {
  std::string href;    // as written
  int status = 0;      // the response's own DAV:status (404 for a removed member), 0 when none
  bool found = false;  // some propstat said 200
  std::string etag;
  bool collection = false;
  std::string sync_token;
};

struct MultiStatus {
  std::vector<DavResponse> responses;
  std::string sync_token;  // the top-level one (REPORT)
};

struct Propstat {
  int status = 0;
  std::string etag;
  bool collection = false;
  std::string sync_token;
};

// nullopt when `xml` is not a well-formed DAV:multistatus document, or one
// peto refuses to read (a DOCTYPE, too deep).
std::optional<MultiStatus> read(const std::string& xml);
// The local name of the first element inside a DAV:error document
// ("valid-sync-token", "valid-calendar-data"), "" for anything else.
std::string error_precondition(const std::string& xml);
// The status code of an HTTP status line ("HTTP/1.1 404 Not Found" → 404); 0
// when there is none.
int status_of(std::string_view line);

}  // namespace peto::sync::multistatus
