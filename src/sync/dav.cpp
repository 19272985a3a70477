// DavClient (see dav.h): PROPFIND, REPORT sync-collection, GET, PUT and
// DELETE on one collection, over the guarded net::HttpClient.
// Multi-Status answers are read by sync/dav_multistatus.h.
#include "sync/dav.h"

#include "sync/dav_multistatus.h"

#include <sodium.h>

#include <boost/url.hpp>
#include <cctype>
#include <climits>
#include <cstring>
#include <map>

#include "core/text.h"
#include "core/token.h"

namespace peto::sync {

namespace {

constexpr std::string_view kXmlType = "application/xml; charset=utf-8";
// Truncated sync answers followed in one changes_since(); what is left comes
// from the token of the last one, next time.
constexpr int kMaxSyncPages = 100;

// Percent-encodes the bytes a URI reference may not hold as they are (a
// space, a control or non-ASCII byte, `"<>\^`{|}`), keeping everything else
// (existing escapes included) as written.
std::string encode_loose(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (c <= 0x20 || c >= 0x7f || std::strchr("\"<>\\^`{|}", c) != nullptr) {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// "/cal/work/" and "/cal/work" are the same collection.
std::string without_slash(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

// ---------------------------------------------------------------------------
// Answers

DavFailure failure(DavFailure::Kind kind, int status, std::string message) {
  return DavFailure{kind, status, std::move(message)};
}

// An exchange that brought no answer.
DavFailure from_error(const net::HttpError& e) {
  using K = net::HttpError::Kind;
  // Neither a refused address nor an unreadable URL gets better by trying again.
  bool over = e.kind == K::refused_destination || e.kind == K::bad_url;
  return failure(over ? DavFailure::Kind::unusable : DavFailure::Kind::failed, 0, e.message);
}

// A status that is no success, for a request on the collection itself
// (PROPFIND, REPORT): the credentials, a missing collection or a server that
// is not WebDAV end the connection; the rest may pass.
DavFailure collection_failure(int status, const std::string& host) {
  std::string code = std::to_string(status);
  if (status == 401)
    return failure(DavFailure::Kind::unusable, status,
                   host + " refused the user name and password (401).");
  if (status == 403)
    return failure(DavFailure::Kind::unusable, status,
                   host + " refused access to the collection (403).");
  if (status == 404 || status == 410)
    return failure(DavFailure::Kind::unusable, status,
                   host + " has no collection at this address (" + code + ").");
  if (status == 405 || status == 501)
    return failure(DavFailure::Kind::unusable, status,
                   host + " does not answer as a CalDAV or CardDAV server (" + code + ").");
  return failure(DavFailure::Kind::failed, status, host + " answered " + code + ".");
}

// A status that is no success, for a request on one member.
DavFailure member_failure(int status, const std::string& host, const std::string& body) {
  std::string code = std::to_string(status);
  if (status == 401)
    return failure(DavFailure::Kind::unusable, status,
                   host + " refused the user name and password (401).");
  if (status == 403) {
    // A member refused is that member's problem, not the connection's:
    // CalDAV and CardDAV name the precondition it breaks in a DAV:error body
    // (valid-calendar-data, no-uid-conflict, …); a bare 403 refuses the
    // entry all the same (read-only, another owner's).
    std::string why = multistatus::error_precondition(body);
    if (!why.empty())
      return failure(DavFailure::Kind::failed, status, host + " refused the item (" + why + ").");
    return failure(DavFailure::Kind::failed, status, host + " refused the item (403).");
  }
  if (status == 404 || status == 410)
    return failure(DavFailure::Kind::not_found, status,
                   host + " no longer has this item (" + code + ").");
  if (status == 412)
    return failure(DavFailure::Kind::precondition, status,
                   host + " has a newer version of this item (412).");
  return failure(DavFailure::Kind::failed, status, host + " answered " + code + ".");
}

}  // namespace

// ---------------------------------------------------------------------------

DavClient::DavClient(const net::HttpClient& http, DavSettings settings)
    : http_(http), settings_(std::move(settings)) {
  if (settings_.url.empty() || settings_.url.back() != '/') settings_.url += '/';
  auto url = boost::urls::parse_uri(settings_.url);
  if (url && (url->scheme() == "http" || url->scheme() == "https") && url->has_authority()) {
    origin_ = std::string(url->scheme()) + "://" + std::string(url->encoded_host_and_port());
    path_ = std::string(url->encoded_path());
  }
  // An unreadable URL leaves origin_ empty: every request then fails as a
  // bad URL, which is unusable.
  if (path_.empty() || path_.front() != '/') path_ = "/" + path_;
  if (path_.back() != '/') path_ += '/';
}

namespace {

struct Exchange {
  const net::HttpClient& http;
  const DavSettings& settings;
  const std::string& origin;

  // "dav.example" of "https://dav.example:8443", for messages.
  std::string host() const {
    auto start = origin.find("://");
    if (start == std::string::npos) return "The server";
    std::string h = origin.substr(start + 3);
    if (h.starts_with("[")) return h.substr(0, h.find(']') + 1);
    return h.substr(0, h.find(':'));
  }

  std::variant<net::HttpResponse, DavFailure> send(std::string method, const std::string& href,
                                                   net::HttpHeaders headers,
                                                   std::string body = {}) const {
    net::HttpRequest req;
    req.method = std::move(method);
    req.url = origin + href;
    req.headers = std::move(headers);
    if (!settings.username.empty())
      req.headers.emplace_back("Authorization",
                               "Basic " + base64(settings.username + ":" + settings.password));
    req.body = std::move(body);
    req.timeout = settings.timeout;
    req.max_bytes = settings.max_bytes;
    req.max_redirects = 0;
    req.allow_private = settings.allow_private;
    auto answer = http.send(req);
    if (auto* e = std::get_if<net::HttpError>(&answer)) return from_error(*e);
    return std::get<net::HttpResponse>(std::move(answer));
  }
};

// The absolute path of `href` ("a.ics", "/cal/a.ics", "https://h/cal/a.ics")
// in the collection at `collection_url`, its escapes kept as written (no
// normalisation: the server matches what it wrote); "" when it cannot be read.
std::string resolve_href(const std::string& collection_url, const std::string& href) {
  const std::string written = encode_loose(href);  // the views below point into it
  auto ref = boost::urls::parse_uri_reference(written);
  if (!ref) return "";
  std::string path(ref->encoded_path());
  if (ref->has_scheme() || ref->has_authority() || path.starts_with("/"))
    return path.empty() ? "/" : path;
  // Relative to the collection: resolved by the rules of RFC 3986 only when
  // it has dot segments, which resolving removes.
  bool dots = false;
  for (auto seg : ref->encoded_segments()) dots = dots || seg == "." || seg == "..";
  auto base = boost::urls::parse_uri(collection_url);
  if (!base) return "";
  if (!dots) return std::string(base->encoded_path()) + path;
  boost::urls::url dest;
  if (!boost::urls::resolve(*base, *ref, dest)) return "";
  std::string resolved(dest.encoded_path());
  return resolved.empty() ? "/" : resolved;
}

// `path` with its percent escapes decoded; nullopt when an escape is broken.
std::optional<std::string> decoded_path(std::string_view path) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      out += path[i];
      continue;
    }
    if (path.size() - i < 3) return std::nullopt;
    int hi = digit(path[i + 1]);
    int lo = digit(path[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// True when `href` (an absolute path) names the collection itself, whose
// decoded path without its final slash is `self`.
bool names_collection(const std::string& href, const std::string& self) {
  auto path = decoded_path(href);
  return path && without_slash(*path) == self;
}

// True when `href` (an absolute path) names an entry directly inside the
// collection whose decoded path is `self_dir` (ending in '/'), compared
// decoded: "/cal/work/a.ics" in "/cal/work/", but neither "/cal/other/a.ics",
// "/cal/work/sub/a.ics", "//cal/work/a.ics" nor "/cal/work/%2E%2E". Whatever
// a server lists, peto reads, writes and deletes only there with the
// person's credentials.
bool directly_inside(const std::string& href, const std::string& self_dir) {
  auto path = decoded_path(href);
  if (!path || !path->starts_with(self_dir)) return false;
  std::string_view name = std::string_view(*path).substr(self_dir.size());
  if (name.empty() || name == "." || name == "..") return false;
  return name.find_first_of("/\\") == std::string_view::npos;
}

// The members of a Multi-Status (neither the collection itself nor a
// sub-collection, nor anything outside the collection) and, with
// `with_removed`, the hrefs reported gone (404). True when the collection's
// own response says 507: the server cut the answer short (RFC 6578 §3.6).
bool collect(const multistatus::MultiStatus& ms, const std::string& collection_url,
             const std::string& collection_path, DavListing& out, bool with_removed) {
  const std::string self = without_slash(decoded_path(collection_path).value_or(collection_path));
  const std::string self_dir = self == "/" ? self : self + "/";
  bool truncated = false;
  for (const auto& r : ms.responses) {
    std::string href = resolve_href(collection_url, r.href);
    if (href.empty()) continue;
    if (names_collection(href, self)) {
      truncated = truncated || r.status == 507;
      continue;
    }
    if (href.back() == '/') continue;  // a sub-collection
    if (!directly_inside(href, self_dir)) continue;
    if (with_removed && r.status == 404) {
      out.removed.push_back(href);
    } else if (r.found && !r.collection) {
      out.members.push_back({href, r.etag});
    }
  }
  return truncated;
}

}  // namespace

std::optional<DavPage> read_multistatus(const std::string& body, const std::string& collection_url,
                                        const std::string& collection_path, bool with_removed) {
  auto ms = multistatus::read(body);
  if (!ms) return std::nullopt;
  DavPage page;
  page.listing.sync_token = ms->sync_token;
  page.truncated = collect(*ms, collection_url, collection_path, page.listing, with_removed);
  return page;
}

std::variant<DavListing, DavFailure> DavClient::list() const {
  Exchange x{http_, settings_, origin_};
  const std::string host = x.host();
  static const std::string body =
      "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
      "<d:propfind xmlns:d=\"DAV:\"><d:prop><d:resourcetype/><d:getetag/><d:sync-token/>"
      "</d:prop></d:propfind>";
  auto answer =
      x.send("PROPFIND", path_, {{"Content-Type", std::string(kXmlType)}, {"Depth", "1"}}, body);
  if (auto* f = std::get_if<DavFailure>(&answer)) return *f;
  const auto& r = std::get<net::HttpResponse>(answer);
  if (r.status != 207) {
    if (r.status >= 200 && r.status < 300)
      return failure(DavFailure::Kind::unusable, r.status,
                     host + " does not answer as a CalDAV or CardDAV server (" +
                         std::to_string(r.status) + ").");
    return collection_failure(r.status, host);
  }
  auto ms = multistatus::read(r.body);
  if (!ms)
    return failure(DavFailure::Kind::failed, r.status,
                   host + " sent a collection listing peto cannot read.");
  DavListing out;
  const std::string self = without_slash(decoded_path(path_).value_or(path_));
  // A server that writes the collection's path differently from the address
  // (another prefix, another case) would make every member look new and
  // every linked one deleted: its answer must name the collection itself.
  bool named = false;
  for (const auto& resp : ms->responses) {
    std::string href = resolve_href(settings_.url, resp.href);
    if (href.empty() || !names_collection(href, self)) continue;
    named = true;
    if (resp.found && !resp.collection)
      return failure(DavFailure::Kind::unusable, r.status,
                     host + " has an item, not a collection, at this address.");
    if (!resp.sync_token.empty()) out.sync_token = resp.sync_token;
  }
  if (!named)
    return failure(DavFailure::Kind::unusable, r.status,
                   host + " does not answer for a collection at this address.");
  // A member missing from a full listing is taken as deleted: a listing cut
  // short is no listing.
  if (collect(*ms, settings_.url, path_, out, false))
    return failure(DavFailure::Kind::failed, 507,
                   host + "'s listing was cut short (507); peto tries again next time.");
  return out;
}

std::optional<std::variant<DavListing, DavFailure>> DavClient::changes_since(
    const std::string& token) const {
  if (token.empty()) return std::nullopt;
  Exchange x{http_, settings_, origin_};
  const std::string host = x.host();
  // href → its ETag, or nullopt when it was removed; a later page wins.
  std::map<std::string, std::optional<std::string>> changes;
  std::string from = token;
  for (int page = 0; page < kMaxSyncPages; ++page) {
    const std::string body =
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
        "<d:sync-collection xmlns:d=\"DAV:\"><d:sync-token>" +
        text::escape_markup(from) +
        "</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop>"
        "</d:sync-collection>";
    // RFC 6578 §3.2: the report is defined for Depth: 0 only (sync-level
    // says how deep); a server answers 400 to another depth.
    auto answer =
        x.send("REPORT", path_, {{"Content-Type", std::string(kXmlType)}, {"Depth", "0"}}, body);
    if (auto* f = std::get_if<DavFailure>(&answer)) return *f;
    const auto& r = std::get<net::HttpResponse>(answer);
    switch (r.status) {
      case 400:
      case 405:
      case 412:
      case 415:
      case 501:
        return std::nullopt;
      case 403:
      case 409:
        if (multistatus::error_precondition(r.body) == "valid-sync-token") return std::nullopt;
        break;
      default:
        break;
    }
    if (r.status != 207) {
      if (r.status >= 200 && r.status < 300) return std::nullopt;  // not a sync answer
      return collection_failure(r.status, host);
    }
    auto read = read_multistatus(r.body, settings_.url, path_, true);
    if (!read)
      return failure(DavFailure::Kind::failed, r.status,
                     host + " sent a list of changes peto cannot read.");
    DavListing& got = read->listing;
    if (got.sync_token.empty()) return std::nullopt;
    for (auto& m : got.members) changes[m.href] = std::move(m.etag);
    for (auto& h : got.removed) changes[h] = std::nullopt;
    bool moved = got.sync_token != from;
    from = got.sync_token;
    if (!read->truncated || !moved) break;
  }
  DavListing out;
  out.sync_token = from;
  for (auto& [href, etag] : changes) {
    if (etag) {
      out.members.push_back({href, std::move(*etag)});
    } else {
      out.removed.push_back(href);
    }
  }
  return out;
}

std::variant<DavBody, DavFailure> DavClient::get(const std::string& href) const {
  Exchange x{http_, settings_, origin_};
  auto answer = x.send("GET", href, {});
  if (auto* f = std::get_if<DavFailure>(&answer)) return *f;
  auto& r = std::get<net::HttpResponse>(answer);
  if (r.status < 200 || r.status >= 300) return member_failure(r.status, x.host(), r.body);
  const std::string* etag = r.header("ETag");
  return DavBody{std::move(r.body), etag ? *etag : std::string()};
}

std::variant<std::string, DavFailure> DavClient::put(const std::string& href,
                                                     const std::string& body,
                                                     const std::string& content_type,
                                                     const std::string& etag) const {
  Exchange x{http_, settings_, origin_};
  net::HttpHeaders headers{{"Content-Type", content_type}};
  if (etag.empty()) {
    headers.emplace_back("If-None-Match", "*");
  } else {
    headers.emplace_back("If-Match", etag);
  }
  auto answer = x.send("PUT", href, std::move(headers), body);
  if (auto* f = std::get_if<DavFailure>(&answer)) return *f;
  const auto& r = std::get<net::HttpResponse>(answer);
  if (r.status < 200 || r.status >= 300) return member_failure(r.status, x.host(), r.body);
  const std::string* got = r.header("ETag");
  return got ? *got : std::string();
}

std::optional<DavFailure> DavClient::remove(const std::string& href,
                                            const std::string& etag) const {
  Exchange x{http_, settings_, origin_};
  net::HttpHeaders headers;
  if (!etag.empty()) headers.emplace_back("If-Match", etag);
  auto answer = x.send("DELETE", href, std::move(headers));
  if (auto* f = std::get_if<DavFailure>(&answer)) return *f;
  const auto& r = std::get<net::HttpResponse>(answer);
  if ((r.status >= 200 && r.status < 300) || r.status == 404 || r.status == 410)
    return std::nullopt;
  if (r.status == 412 && !etag.empty()) {
    // If-Match fails on a member that is not there at all (RFC 9110
    // §13.1.1), and some servers say so with 412 rather than 404: a member
    // already gone is a success, one that changed is not.
    auto now = get(href);
    if (auto* f = std::get_if<DavFailure>(&now); f && f->kind == DavFailure::Kind::not_found)
      return std::nullopt;
  }
  return member_failure(r.status, x.host(), r.body);
}

std::string DavClient::href_for(std::string_view uid, std::string_view extension) const {
  static const char* hex = "0123456789ABCDEF";
  std::string out = path_;
  for (unsigned char c : uid) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '_' || c == '-' || c == '@';
    if (keep) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  out += extension;
  return out;
}

}  // namespace peto::sync
