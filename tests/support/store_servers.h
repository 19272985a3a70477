// StoreServer: a WebDAV and S3-compatible server on 127.0.0.1 for the copy
// tests, written as such a server in the wild behaves. It keeps collections
// and files in memory and records every request in arrival order.
//
//   StoreServer dav;                                   // a free port
//   dav.url("/dav/")                                   // "http://127.0.0.1:<port>/dav/"
//   dav.set_status(500);                               // every PUT answered 500
//   dav.on_put([&](const StoreRequest&) { clock.advance(25s); });
//
// WebDAV: MKCOL makes a collection (201; 405 when it is there; 409 when its
// parent is not); PUT stores a file in an existing collection (201 new, 204
// replaced; 409 when its collection is not there). Every request must carry
// the Authorization header the test expects, else 401. "/dav/" exists from
// the start. Paths are at most five segments deep.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "http/router.h"
#include "tests/support/web_server.h"

namespace peto::testing {

struct StoreRequest {
  std::string method;
  std::string path;                            // decoded
  std::string target;                          // as sent
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

class StoreServer {
 public:
  StoreServer() {
    collections_.insert("/dav/");
    auto handle = [this](web::Request& r) { return answer(r); };
    std::string pattern;
    for (int depth = 1; depth <= 5; ++depth) {
      pattern += "/{p" + std::to_string(depth) + "}";
      for (const char* m : {"PUT", "MKCOL"}) {
        router_.add(m, pattern, handle);
        router_.add(m, pattern + "/", handle);  // a collection's URL ends in '/'
      }
    }
    web::Server::Options o;
    o.threads = 4;
    o.stop_grace = std::chrono::seconds(0);
    server_ = std::make_unique<WebServer>(router_, o);
  }

  std::uint16_t port() const { return server_->port(); }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port()) + path;
  }
  void expect_authorization(std::string value) {
    std::lock_guard lock(mutex_);
    authorization_ = std::move(value);
  }
  // 0: answer as a WebDAV server would; else every PUT gets this status.
  void set_status(int status) {
    std::lock_guard lock(mutex_);
    status_ = status;
  }
  // Called (outside the server's lock) for every PUT before it is answered;
  // a non-zero result is the status it is answered with.
  void on_put(std::function<int(const StoreRequest&)> fn) {
    std::lock_guard lock(mutex_);
    on_put_ = std::move(fn);
  }
  // A collection that is there from the start ("/dav/peto/").
  void make_collection(const std::string& path) {
    std::lock_guard lock(mutex_);
    collections_.insert(path);
  }
  std::vector<StoreRequest> received() const {
    std::lock_guard lock(mutex_);
    return received_;
  }
  std::vector<StoreRequest> puts() const {
    std::vector<StoreRequest> out;
    for (auto& r : received())
      if (r.method == "PUT") out.push_back(r);
    return out;
  }
  std::map<std::string, std::string> files() const {
    std::lock_guard lock(mutex_);
    return files_;
  }

 private:
  static std::string parent(const std::string& path) {
    std::string p = path;
    if (!p.empty() && p.back() == '/') p.pop_back();
    return p.substr(0, p.rfind('/') + 1);
  }

  web::Response answer(web::Request& r) {
    StoreRequest got{r.method, r.path, r.target, {}, r.body};
    for (const auto& [name, value] : r.headers) {
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      got.headers[lower] = value;
    }
    std::function<int(const StoreRequest&)> hook;
    {
      std::lock_guard lock(mutex_);
      received_.push_back(got);
      hook = on_put_;
    }
    int forced = (r.method == "PUT" && hook) ? hook(got) : 0;
    std::lock_guard lock(mutex_);
    if (!authorization_.empty() && got.headers["authorization"] != authorization_)
      return web::Response::text(401, "who are you");
    if (r.method == "MKCOL") {
      std::string path = r.path.back() == '/' ? r.path : r.path + "/";
      if (collections_.count(path)) return web::Response::text(405, "there");
      if (!collections_.count(parent(path))) return web::Response::text(409, "no parent");
      collections_.insert(path);
      return web::Response::text(201, "made");
    }
    if (forced) return web::Response::text(forced, "forced");
    if (status_) return web::Response::text(status_, "status");
    if (path_style_s3(r.path)) {
      files_[r.path] = r.body;
      return web::Response::text(200, "");
    }
    if (!collections_.count(parent(r.path))) return web::Response::text(409, "no collection");
    bool replaced = files_.count(r.path) > 0;
    files_[r.path] = r.body;
    return web::Response::text(replaced ? 204 : 201, "");
  }

  // S3 paths ("/bucket/…") need no collections.
  static bool path_style_s3(const std::string& path) { return path.rfind("/bucket/", 0) == 0; }

  web::Router router_;
  std::unique_ptr<WebServer> server_;
  mutable std::mutex mutex_;
  std::set<std::string> collections_;
  std::map<std::string, std::string> files_;
  std::string authorization_;
  int status_ = 0;
  std::function<int(const StoreRequest&)> on_put_;
  std::vector<StoreRequest> received_;
};

}  // namespace peto::testing
