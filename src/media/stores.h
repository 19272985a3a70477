// Store: one place a document can be copied to (a local folder, WebDAV, an
// S3-compatible bucket).
//
// A person connects a store as a Connection of kind "store"
// (notify/connections.h): the store declares the fields that connection holds
// (fields(), secrets marked), checks them (validate()), and copies one file
// with them (put()). The copies step (steps/copies.h, media/copies.h) calls
// put() and turns the PutResult's plugin::Outcome into the document copy's
// next state, so a
// store never retries, sleeps or writes to the database itself.
//
// put() may be called from several threads and processes at once; a store
// holds no state between calls. It must not throw for a failure of the other
// side; an exception escaping put() counts as an ordinary failure. Every
// request a store makes goes through the guarded net::HttpClient.
//
// put() writes the same remote name every time it is called for one copy, so
// a copy sent twice (a crash after the upload, before the row was marked)
// replaces itself on the store instead of making a second file.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "net/http.h"
#include "plugin/attempt.h"
#include "plugin/plugin.h"

namespace peto::media {

using plugin::ConfigErrors;
using plugin::FieldSpec;

// A FieldSpec for a store's form.
inline FieldSpec store_field(std::string name, std::string label_key, std::string help_key = "",
                             FieldSpec::Type type = FieldSpec::Type::text) {
  FieldSpec f;
  f.name = std::move(name);
  f.label_key = std::move(label_key);
  f.help_key = std::move(help_key);
  f.type = type;
  return f;
}

// The file to copy: what the copies step read from the upload's row and
// checked against the file on disk.
struct PutFile {
  std::string path;          // absolute path of the file on disk
  std::string remote_name;   // the name to give it on the store ("42-cv.pdf"), [A-Za-z0-9._-]
  std::string content_type;  // "application/pdf"; "" = application/octet-stream
  std::int64_t size = 0;
  std::string sha256;  // hex, of the bytes at `path`
};

struct PutContext {
  const net::HttpClient& http;
  const Config& config;  // allow_private_destinations, local_store_root()
  const Clock& clock;    // the time S3 requests are signed at
  // The account whose copy this is: a local-folder store writes below that
  // account's own folder, <local_store_root>/<owner>, and nowhere else.
  std::int64_t owner = 0;
  std::chrono::milliseconds timeout{120'000};
};

// What a put came to: the outcome of an attempt against the store's
// connection (plugin/attempt.h) — done (the store has the file), final (the
// store will not take it: too large, a refused type; trying again cannot
// help), retry (5xx, timeout, refused connection, missing folder) or unusable
// (credentials refused: retire the connection) — and, when done, the file's
// name there and its address.
struct PutResult {
  plugin::Outcome outcome;
  std::string external_id;
  std::string external_url;

  static PutResult sent(std::string id, std::string url) {
    return {{plugin::Outcome::Kind::done, "", std::nullopt, false}, std::move(id), std::move(url)};
  }
  static PutResult declined(std::string why) {
    return of(plugin::Outcome::Kind::final, std::move(why));
  }
  static PutResult failed(std::string why) {
    return of(plugin::Outcome::Kind::retry, std::move(why));
  }
  static PutResult unusable(std::string why) {
    return of(plugin::Outcome::Kind::unusable, std::move(why));
  }
  bool stored() const { return outcome.kind == plugin::Outcome::Kind::done; }

 private:
  static PutResult of(plugin::Outcome::Kind kind, std::string why) {
    return {{kind, std::move(why), std::nullopt, false}, "", ""};
  }
};

// A store's name is "local", "webdav" or "s3"; its label is in
// locales/*/stores.json.
class Store : public plugin::Plugin {
 public:
  std::string_view kind() const final { return "store"; }
  // Whether the instance's policy refuses this connection as it stands (a
  // private address while PETO_ALLOW_PRIVATE_DESTINATIONS is off, a folder
  // that now leads out of the account's local store folder): the reason, ""
  // when allowed. `owner` is the connection's account. A refusal costs the
  // copy no attempt.
  virtual std::string refusal(const nlohmann::json& config, const Config& instance,
                              std::int64_t owner) const;
  // Copies `file` with `config` (config and secrets merged).
  virtual PutResult put(const PutFile& file, const nlohmann::json& config,
                        const PutContext& ctx) const = 0;
};

// Every built-in store, in the order the "add" menu shows them.
const std::vector<const Store*>& stores();
// The built-ins themselves (store_local.cpp, store_webdav.cpp, store_s3.cpp).
const Store& local_store();
const Store& webdav_store();
const Store& s3_store();
const Store* find_store(std::string_view name);

// A file name every store takes: letters, digits, '.', '-' and '_' (anything
// else becomes '_'), no leading dot, at most 120 characters; "file" when
// nothing is left.
std::string safe_name(std::string_view name);

// The usual reading of an HTTP answer to an upload: 2xx done (the caller
// fills in the id and URL); 401/403 unusable; 408, 429, 5xx and 3xx (redirects
// are never followed) retry; other 4xx final (declined). Transport errors
// retry.
PutResult read_put_answer(const std::variant<net::HttpResponse, net::HttpError>& answer,
                          std::string_view what);

// The policy's view of an http(s) URL's host as written: the reason an IP
// literal or "localhost" is refused, "" otherwise (host names are checked
// again, resolved, when the request is made).
std::string url_refusal(const std::string& url, const Config& instance);

}  // namespace peto::media
