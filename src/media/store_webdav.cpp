// The WebDAV store (Nextcloud, ownCloud, any RFC 4918 server): PUTs the file
// into a folder below the connection's URL, with Basic authentication.
//
// The PUT is tried first; when the server says the folder is not there (404
// or 409), the folder's segments are made one by one with MKCOL from the top
// (201 made, 405 already there) and the PUT is tried again. Answers: 200, 201
// or 204 to the PUT → sent; 401/403 → unusable (the credentials are refused);
// 408, 429, 5xx and timeouts → failed; a folder that cannot be made → failed,
// naming it; other 4xx (413 too large, 415) → declined. Redirects are never
// followed.
#include <sodium.h>

#include <boost/url.hpp>
#include <cctype>
#include <optional>

#include "core/token.h"
#include "media/stores.h"
#include "net/percent.h"

namespace peto::media {

namespace {

using nlohmann::json;

// The folder's segments ("a/b/" → {"a", "b"}); nullopt for "..", "." or a
// control character.
std::optional<std::vector<std::string>> segments(const std::string& folder) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < folder.size()) {
    auto end = folder.find('/', start);
    if (end == std::string::npos) end = folder.size();
    std::string seg = folder.substr(start, end - start);
    if (seg == "." || seg == "..") return std::nullopt;
    for (unsigned char c : seg)
      if (c < 0x20 || c == 0x7f) return std::nullopt;
    if (!seg.empty()) out.push_back(seg);
    start = end + 1;
  }
  return out;
}

// The collection URL with a trailing '/'.
std::string collection(std::string url) {
  if (url.empty() || url.back() != '/') url += '/';
  return url;
}

class WebDavStore final : public Store {
 public:
  std::string_view name() const override { return "webdav"; }
  std::string_view label_key() const override { return "store_webdav"; }
  std::vector<FieldSpec> fields() const override {
    FieldSpec url =
        store_field("url", "store_field_webdav_url", "store_webdav_url_help", FieldSpec::Type::url);
    FieldSpec folder = store_field("folder", "store_field_folder", "store_webdav_folder_help");
    folder.required = false;
    folder.default_value = "peto";
    FieldSpec user = store_field("username", "store_field_username", "");
    FieldSpec password =
        store_field("password", "store_field_password", "", FieldSpec::Type::password);
    password.secret = true;
    return {url, folder, user, password};
  }

  ConfigErrors validate(const json& config, const Config&) const override {
    ConfigErrors errors;
    const std::string text = config.value("url", "");  // the view below points into it
    auto url = boost::urls::parse_uri(text);
    if (!url || url->has_userinfo() || url->has_query() || url->has_fragment() ||
        url->host().empty())
      errors["url"] = "store_error_url";
    if (!segments(config.value("folder", ""))) errors["folder"] = "store_error_folder";
    return errors;
  }

  std::string summary(const json& config) const override {
    return collection(config.value("url", "")) + config.value("folder", "");
  }

  std::string refusal(const json& config, const Config& instance, std::int64_t) const override {
    return url_refusal(config.value("url", ""), instance);
  }

  PutResult put(const PutFile& file, const json& config, const PutContext& ctx) const override {
    auto segs = segments(config.value("folder", ""));
    if (!segs) return PutResult::declined("The folder is not a plain path.");
    const std::string base = collection(config.value("url", ""));
    const std::string auth =
        "Basic " + base64(config.value("username", "") + ":" + config.value("password", ""));
    std::string folder_url = base;
    for (const auto& s : *segs) folder_url += net::percent_encode(s) + "/";
    const std::string file_url = folder_url + net::percent_encode(safe_name(file.remote_name));

    auto put_once = [&] {
      net::HttpRequest req;
      req.method = "PUT";
      req.url = file_url;
      req.headers = {{"Authorization", auth},
                     {"Content-Type",
                      file.content_type.empty() ? "application/octet-stream" : file.content_type}};
      req.body_file = file.path;
      req.timeout = ctx.timeout;
      req.max_bytes = 64 * 1024;
      req.allow_private = ctx.config.allow_private_destinations;
      return ctx.http.send(req);
    };
    auto answer = put_once();
    auto* r = std::get_if<net::HttpResponse>(&answer);
    if (r != nullptr && (r->status == 404 || r->status == 409)) {
      if (auto why = make_folders(base, *segs, auth, ctx); !why.stored()) return why;
      answer = put_once();
    }
    PutResult result = read_put_answer(answer, "WebDAV server");
    if (result.stored()) {
      std::string id;
      for (const auto& s : *segs) id += s + "/";
      result.external_id = id + safe_name(file.remote_name);
      result.external_url = file_url;
    }
    return result;
  }

 private:
  // MKCOL each segment from the top; sent when every one is there.
  static PutResult make_folders(const std::string& base, const std::vector<std::string>& segs,
                                const std::string& auth, const PutContext& ctx) {
    std::string url = base;
    for (const auto& s : segs) {
      url += net::percent_encode(s) + "/";
      net::HttpRequest req;
      req.method = "MKCOL";
      req.url = url;
      req.headers = {{"Authorization", auth}};
      req.timeout = std::chrono::milliseconds(30'000);
      req.max_bytes = 64 * 1024;
      req.allow_private = ctx.config.allow_private_destinations;
      auto answer = ctx.http.send(req);
      auto* r = std::get_if<net::HttpResponse>(&answer);
      if (r != nullptr && (r->status == 201 || r->status == 405)) continue;
      if (r != nullptr && (r->status == 404 || r->status == 409))
        return PutResult::failed("The folder " + url +
                                 " could not be made: the address above it does not exist on the "
                                 "WebDAV server (" +
                                 std::to_string(r->status) + "); check the connection's URL.");
      PutResult why = read_put_answer(answer, "WebDAV server");
      if (why.stored()) continue;  // another 2xx: the folder is there
      return why;
    }
    return PutResult::sent("", "");
  }
};

}  // namespace

const Store& webdav_store() {
  static const WebDavStore store;
  return store;
}

}  // namespace peto::media
