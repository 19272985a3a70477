// DavServer: a CalDAV/CardDAV server on 127.0.0.1 for the sync tests, the
// WebDAV subset such a server in the wild answers: PROPFIND (Depth 0 or 1),
// REPORT sync-collection (RFC 6578), GET, PUT and DELETE with If-Match /
// If-None-Match, HTTP Basic authentication. Members live in memory in their
// collections; every write gives the member a new ETag ("\"<n>\"") and moves
// the collection's sync-token on.
//
//   DavServer dav;                                  // "/dav/cal/" and "/dav/book/", a free port
//   dav.url("/dav/cal/")                            // "http://127.0.0.1:<port>/dav/cal/"
//   dav.expect_basic("ann", "secret");              // else 401
//   std::string etag = dav.put_member("/dav/cal/x.ics", ics);   // the other side changes
//   dav.delete_member("/dav/cal/x.ics");
//   dav.members("/dav/cal/")                        // decoded path → {body, etag}
//   dav.count("PUT")                                // requests by method (every one
//                                                   // recorded on arrival, refused ones too)
//   dav.set_status(500);                            // every request answered 500
//   dav.set_sync_support(false);                    // REPORT → 501, no sync-token
//   dav.set_sync_page(2);                           // sync answers paged with 507
//   dav.forget_history();                           // tokens given so far → 403 valid-sync-token
//   dav.set_elide_short_lived(true);                // a member made and removed since the
//                                                   // token is not reported (RFC 6578 §3.5.1)
//   dav.hold(); … dav.wait_held(1) … dav.release(); // requests wait at a gate
//
// Paths are decoded ("/dav/cal/a b.ics"); hrefs in answers are the encoded
// paths ("/dav/cal/a%20b.ics"), or full URLs after set_absolute_hrefs(true).
// Answers use the default namespace (xmlns="DAV:"), not a prefix.
#pragma once

#include <expat.h>
#include <sodium.h>

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/token.h"
#include "http/router.h"
#include "tests/support/web_server.h"

namespace peto::testing {

struct DavRequest {
  std::string method;
  std::string path;                            // decoded
  std::string target;                          // as sent
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

struct DavItem {
  std::string body;
  std::string etag;  // with its quotes
};

class DavServer {
 public:
  explicit DavServer(std::vector<std::string> collections = {"/dav/cal/", "/dav/book/"}) {
    for (auto& c : collections) collections_[c];
    auto handle = [this](web::Request& r) { return answer(r); };
    std::string pattern;
    for (int depth = 1; depth <= 6; ++depth) {
      pattern += "/{p" + std::to_string(depth) + "}";
      for (const char* m : {"PROPFIND", "REPORT", "GET", "PUT", "DELETE"}) {
        router_.add(m, pattern, handle);
        router_.add(m, pattern + "/", handle);
      }
    }
    web::Server::Options o;
    o.threads = 4;
    o.stop_grace = std::chrono::seconds(0);
    server_ = std::make_unique<WebServer>(router_, o);
  }
  ~DavServer() {
    release();
    server_.reset();
  }

  std::uint16_t port() const { return server_->port(); }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port()) + path;
  }

  // Every request must then carry these credentials, else 401.
  void expect_basic(const std::string& user, const std::string& password) {
    std::lock_guard lock(mutex_);
    authorization_ = "Basic " + base64(user + ":" + password);
  }
  // 0: answer as a server would; else every request gets this status and
  // body (sent as XML when it starts with '<').
  void set_status(int status, std::string body = "status") {
    std::lock_guard lock(mutex_);
    status_ = status;
    status_body_ = std::move(body);
  }
  // false: REPORT is answered 501 and PROPFIND gives no sync-token.
  void set_sync_support(bool on) {
    std::lock_guard lock(mutex_);
    sync_support_ = on;
  }
  // Every sync-token given so far becomes unknown (403 valid-sync-token).
  void forget_history() {
    std::lock_guard lock(mutex_);
    history_floor_ = ++counter_;
  }
  // At most `n` changes per sync-collection answer (0: all), the rest
  // announced with a 507 on the collection, as large servers page them.
  // true: a sync answer leaves out a member that was both made and removed
  // since its token, as some servers do (RFC 6578 allows either).
  void set_elide_short_lived(bool on) {
    std::lock_guard lock(mutex_);
    elide_short_lived_ = on;
  }
  void set_sync_page(std::size_t n) {
    std::lock_guard lock(mutex_);
    sync_page_ = n;
  }
  void set_absolute_hrefs(bool on) {
    std::lock_guard lock(mutex_);
    absolute_hrefs_ = on;
  }

  // Called with every request as it arrives, before it is answered (a test
  // moves its clock here to make a sync "take" time).
  void on_request(std::function<void(const DavRequest&)> hook) {
    std::lock_guard lock(mutex_);
    hook_ = std::move(hook);
  }

  // Called with every request as it arrives, outside the server's lock, so
  // that requests on other threads go on meanwhile (the simulation measures
  // how many requests on one collection are in flight at once).
  void on_arrival(std::function<void(const DavRequest&)> hook) {
    std::lock_guard lock(mutex_);
    arrival_ = std::move(hook);
  }

  // From now on every request (once recorded) waits until release().
  void hold() {
    std::lock_guard lock(mutex_);
    held_ = true;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      held_ = false;
    }
    gate_.notify_all();
  }
  // Waits (up to `limit`) until `n` requests are waiting at the gate.
  bool wait_held(std::size_t n, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex_);
    return gate_.wait_for(lock, limit, [&] { return waiting_ >= n; });
  }

  // The other side: writes a member (decoded path) directly; its new ETag.
  std::string put_member(const std::string& path, const std::string& body) {
    std::lock_guard lock(mutex_);
    return store(path, body);
  }
  bool delete_member(const std::string& path) {
    std::lock_guard lock(mutex_);
    return erase(path);
  }
  std::optional<DavItem> member(const std::string& path) const {
    std::lock_guard lock(mutex_);
    auto* c = collection_of(path);
    if (c == nullptr) return std::nullopt;
    auto it = c->members.find(path);
    if (it == c->members.end()) return std::nullopt;
    return DavItem{it->second.body, it->second.etag};
  }
  // The members of `collection`: decoded path → item.
  std::map<std::string, DavItem> members(const std::string& collection) const {
    std::lock_guard lock(mutex_);
    std::map<std::string, DavItem> out;
    auto it = collections_.find(collection);
    if (it == collections_.end()) return out;
    for (const auto& [path, m] : it->second.members) out[path] = {m.body, m.etag};
    return out;
  }
  std::string sync_token() const {
    std::lock_guard lock(mutex_);
    return token(counter_);
  }
  std::vector<DavRequest> received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }
  std::size_t count(const std::string& method) const {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (const auto& r : received_) n += r.method == method ? 1 : 0;
    return n;
  }

  // "/dav/cal/a b.ics" → "/dav/cal/a%20b.ics".
  static std::string encode_path(const std::string& path) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : path) {
      bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '/' || c == '-' || c == '.' || c == '_' || c == '~' || c == '@';
      if (keep) {
        out += static_cast<char>(c);
      } else {
        out += '%';
        out += hex[c >> 4];
        out += hex[c & 15];
      }
    }
    return out;
  }

 private:
  struct Member {
    std::string body;
    std::string etag;
    std::uint64_t changed = 0;  // the counter at its last write
    std::uint64_t created = 0;  // the counter at its first
  };
  struct Deletion {
    std::uint64_t when = 0;     // the counter at its deletion
    std::uint64_t created = 0;  // the member's
  };
  struct Collection {
    std::map<std::string, Member> members;
    std::map<std::string, Deletion> deleted;  // by path
  };

  static std::string token(std::uint64_t n) { return "http://peto.test/sync/" + std::to_string(n); }
  // The counter a token names; nullopt when it is not one of ours.
  std::optional<std::uint64_t> token_value(const std::string& t) const {
    const std::string prefix = "http://peto.test/sync/";
    if (!t.starts_with(prefix) || t.size() == prefix.size() || t.size() > prefix.size() + 18)
      return std::nullopt;
    std::uint64_t n = 0;
    for (char c : t.substr(prefix.size())) {
      if (c < '0' || c > '9') return std::nullopt;
      n = n * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (n > counter_ || n < history_floor_) return std::nullopt;
    return n;
  }

  static std::string parent(const std::string& path) {
    std::string p = path;
    if (!p.empty() && p.back() == '/') p.pop_back();
    return p.substr(0, p.rfind('/') + 1);
  }
  Collection* collection_of(const std::string& path) {
    auto it = collections_.find(parent(path));
    return it == collections_.end() ? nullptr : &it->second;
  }
  const Collection* collection_of(const std::string& path) const {
    auto it = collections_.find(parent(path));
    return it == collections_.end() ? nullptr : &it->second;
  }
  std::string store(const std::string& path, const std::string& body) {
    Collection* c = collection_of(path);
    if (c == nullptr) return "";
    ++counter_;
    Member& m = c->members[path];
    if (m.created == 0) m.created = counter_;
    m.body = body;
    m.etag = "\"" + std::to_string(counter_) + "\"";
    m.changed = counter_;
    c->deleted.erase(path);
    return m.etag;
  }
  bool erase(const std::string& path) {
    Collection* c = collection_of(path);
    if (c == nullptr) return false;
    auto it = c->members.find(path);
    if (it == c->members.end()) return false;
    const std::uint64_t created = it->second.created;
    c->members.erase(it);
    ++counter_;
    c->deleted[path] = {counter_, created};
    return true;
  }

  static std::string xml_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
      if (c == '&')
        out += "&amp;";
      else if (c == '<')
        out += "&lt;";
      else if (c == '>')
        out += "&gt;";
      else
        out += c;
    }
    return out;
  }
  std::string href(const std::string& path) const {
    std::string h = encode_path(path);
    return xml_escape(absolute_hrefs_ ? url(h) : h);
  }
  static std::string ok_propstat(const std::string& props) {
    return "<propstat><prop>" + props + "</prop><status>HTTP/1.1 200 OK</status></propstat>";
  }
  static std::string missing_propstat(const std::string& props) {
    return "<propstat><prop>" + props + "</prop><status>HTTP/1.1 404 Not Found</status></propstat>";
  }
  static web::Response multistatus(const std::string& responses) {
    web::Response r;
    r.status = 207;
    r.set_header("Content-Type", "application/xml; charset=utf-8");
    r.body = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<multistatus xmlns=\"DAV:\">" +
             responses + "</multistatus>";
    return r;
  }
  static web::Response dav_error(int status, const std::string& precondition) {
    web::Response r;
    r.status = status;
    r.set_header("Content-Type", "application/xml; charset=utf-8");
    r.body = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<error xmlns=\"DAV:\"><" + precondition +
             "/></error>";
    return r;
  }
  std::string collection_response(const std::string& path) const {
    std::string props = "<resourcetype><collection/></resourcetype>";
    if (sync_support_) props += "<sync-token>" + xml_escape(token(counter_)) + "</sync-token>";
    return "<response><href>" + href(path) + "</href>" + ok_propstat(props) +
           missing_propstat(sync_support_ ? "<getetag/>" : "<getetag/><sync-token/>") +
           "</response>";
  }
  std::string member_response(const std::string& path, const Member& m) const {
    return "<response><href>" + href(path) + "</href>" +
           ok_propstat("<resourcetype/><getetag>" + xml_escape(m.etag) + "</getetag>") +
           "</response>";
  }

  // The text of the DAV:sync-token and DAV:sync-level elements of a
  // sync-collection body; nullopt when the body is not one.
  struct SyncAsk {
    std::string token;
    std::string level;
  };
  static std::optional<SyncAsk> read_sync_ask(const std::string& body) {
    struct State {
      std::vector<std::string> stack;
      std::string text;
      SyncAsk ask;
      bool root_ok = false;
    } st;
    XML_Parser p = XML_ParserCreateNS(nullptr, '|');
    XML_SetUserData(p, &st);
    XML_SetElementHandler(
        p,
        [](void* d, const XML_Char* name, const XML_Char**) {
          auto* s = static_cast<State*>(d);
          if (s->stack.empty()) s->root_ok = std::string(name) == "DAV:|sync-collection";
          s->stack.emplace_back(name);
          s->text.clear();
        },
        [](void* d, const XML_Char* name) {
          auto* s = static_cast<State*>(d);
          if (s->stack.size() == 2 && std::string(name) == "DAV:|sync-token")
            s->ask.token = s->text;
          if (s->stack.size() == 2 && std::string(name) == "DAV:|sync-level")
            s->ask.level = s->text;
          s->stack.pop_back();
        });
    XML_SetCharacterDataHandler(p, [](void* d, const XML_Char* t, int len) {
      static_cast<State*>(d)->text.append(t, static_cast<std::size_t>(len));
    });
    bool ok = XML_Parse(p, body.data(), static_cast<int>(body.size()), XML_TRUE) == XML_STATUS_OK;
    XML_ParserFree(p);
    if (!ok || !st.root_ok) return std::nullopt;
    return st.ask;
  }

  web::Response answer(web::Request& r) {
    DavRequest got{r.method, r.path, r.target, {}, r.body};
    for (const auto& [name, value] : r.headers) {
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      got.headers[lower] = value;
    }
    std::function<void(const DavRequest&)> arrival;
    {
      std::lock_guard lock(mutex_);
      arrival = arrival_;
    }
    if (arrival) arrival(got);
    std::unique_lock lock(mutex_);
    received_.push_back(got);
    if (hook_) hook_(got);
    if (held_) {
      ++waiting_;
      gate_.notify_all();
      gate_.wait(lock, [&] { return !held_; });
      --waiting_;
    }
    if (!authorization_.empty() && got.headers["authorization"] != authorization_) {
      auto refused = web::Response::text(401, "who are you");
      refused.set_header("WWW-Authenticate", "Basic realm=\"peto test\"");
      return refused;
    }
    if (status_) {
      auto forced = web::Response::text(status_, status_body_);
      if (status_body_.starts_with("<"))
        forced.set_header("Content-Type", "application/xml; charset=utf-8");
      return forced;
    }
    const std::string& path = r.path;
    const std::string m = r.method;
    if (m == "PROPFIND") return propfind(path, got.headers["depth"]);
    if (m == "REPORT") return report(path, got.headers, r.body);
    Collection* c = collection_of(path);
    if (m == "GET") {
      if (c == nullptr || !c->members.count(path)) return web::Response::text(404, "not here");
      const Member& item = c->members.at(path);
      auto ok = web::Response::text(200, item.body);
      ok.set_header("Content-Type", path.ends_with(".vcf") ? "text/vcard; charset=utf-8"
                                                           : "text/calendar; charset=utf-8");
      ok.set_header("ETag", item.etag);
      return ok;
    }
    if (c == nullptr) return web::Response::text(409, "no collection");
    auto it = c->members.find(path);
    bool exists = it != c->members.end();
    if (auto match = got.headers.find("if-match"); match != got.headers.end()) {
      if (!exists || (match->second != "*" && match->second != it->second.etag))
        return web::Response::text(412, "changed");
    }
    if (auto none = got.headers.find("if-none-match"); none != got.headers.end()) {
      if (exists && (none->second == "*" || none->second == it->second.etag))
        return web::Response::text(412, "exists");
    }
    if (m == "PUT") {
      std::string etag = store(path, r.body);
      auto done = web::Response::text(exists ? 204 : 201, "");
      done.set_header("ETag", etag);
      return done;
    }
    // DELETE
    if (!exists) return web::Response::text(404, "not here");
    erase(path);
    return web::Response::text(204, "");
  }

  web::Response propfind(const std::string& path, const std::string& depth) {
    if (depth != "0" && depth != "1") return dav_error(403, "propfind-finite-depth");
    auto coll = collections_.find(path.ends_with("/") ? path : path + "/");
    if (coll != collections_.end()) {
      std::string out = collection_response(coll->first);
      if (depth == "1")
        for (const auto& [p, item] : coll->second.members) out += member_response(p, item);
      return multistatus(out);
    }
    const Collection* c = collection_of(path);
    if (c == nullptr || !c->members.count(path)) return web::Response::text(404, "not here");
    return multistatus(member_response(path, c->members.at(path)));
  }

  web::Response report(const std::string& path, const std::map<std::string, std::string>& headers,
                       const std::string& body) {
    auto coll = collections_.find(path.ends_with("/") ? path : path + "/");
    if (coll == collections_.end()) return web::Response::text(404, "not here");
    auto ask = read_sync_ask(body);
    if (!ask || !sync_support_) return web::Response::text(501, "no such report");
    if (auto d = headers.find("depth"); d != headers.end() && d->second != "0")
      return web::Response::text(400, "sync-collection is Depth: 0");
    if (ask->level != "1") return web::Response::text(400, "sync-level 1 only");
    std::uint64_t since = 0;
    if (!ask->token.empty()) {
      auto n = token_value(ask->token);
      if (!n) return dav_error(403, "valid-sync-token");
      since = *n;
    }
    // The changes since the token in the order they were made; at most
    // sync_page_ of them, the rest announced with a 507 on the collection.
    struct Change {
      std::uint64_t when;
      const std::string* path;
      const Member* item;  // nullptr: deleted
    };
    std::vector<Change> changes;
    for (const auto& [p, item] : coll->second.members)
      if (item.changed > since) changes.push_back({item.changed, &p, &item});
    for (const auto& [p, gone] : coll->second.deleted)
      if (gone.when > since && since != 0 && !(elide_short_lived_ && gone.created > since))
        changes.push_back({gone.when, &p, nullptr});
    std::sort(changes.begin(), changes.end(),
              [](const Change& a, const Change& b) { return a.when < b.when; });
    std::uint64_t upto = counter_;
    std::string out;
    if (sync_page_ > 0 && changes.size() > sync_page_) {
      changes.resize(sync_page_);
      upto = changes.back().when;
      out += "<response><href>" + href(coll->first) +
             "</href><status>HTTP/1.1 507 Insufficient Storage</status></response>";
    }
    for (const auto& c : changes) {
      if (c.item != nullptr) {
        out += member_response(*c.path, *c.item);
      } else {
        out += "<response><href>" + href(*c.path) +
               "</href><status>HTTP/1.1 404 Not Found</status></response>";
      }
    }
    out += "<sync-token>" + xml_escape(token(upto)) + "</sync-token>";
    return multistatus(out);
  }

  web::Router router_;
  std::unique_ptr<WebServer> server_;
  mutable std::mutex mutex_;
  std::condition_variable gate_;
  std::map<std::string, Collection> collections_;
  std::uint64_t counter_ = 0;
  std::uint64_t history_floor_ = 0;
  std::string authorization_;
  int status_ = 0;
  std::string status_body_;
  bool sync_support_ = true;
  bool absolute_hrefs_ = false;
  std::size_t sync_page_ = 0;
  bool elide_short_lived_ = false;
  bool held_ = false;
  std::size_t waiting_ = 0;
  std::function<void(const DavRequest&)> hook_;
  std::function<void(const DavRequest&)> arrival_;
  std::vector<DavRequest> received_;
};

}  // namespace peto::testing
