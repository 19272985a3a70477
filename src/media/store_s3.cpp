// The S3-compatible store (AWS S3, MinIO, Garage, Ceph, Scaleway …): one
// signed PUT of the object <prefix><name> into the bucket.
//
// Addressing: path style "https://endpoint/bucket/key" (MinIO and most
// self-hosted servers), or virtual-host style "https://bucket.endpoint/key"
// (AWS). The request is signed with AWS Signature Version 4 (media/sigv4.h)
// over host, x-amz-content-sha256 (the hex SHA-256 of the file, so the
// server checks the bytes it received) and x-amz-date; the body is streamed
// from disk. Answers: 200 → sent; 401/403 → unusable (the keys are refused or
// lack the right); 408, 429, 5xx → failed; other 4xx (400 EntityTooLarge,
// 404 NoSuchBucket …) → declined, with the server's <Code> in the message.
#include <boost/url.hpp>

#include "media/sigv4.h"
#include "media/stores.h"

namespace peto::media {

namespace {

using nlohmann::json;

// A bucket name as S3 allows it (3-63 of a-z, 0-9, '.', '-').
bool good_bucket(const std::string& b) {
  if (b.size() < 3 || b.size() > 63) return false;
  for (char c : b)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) return false;
  return true;
}

bool good_region(const std::string& r) {
  if (r.empty() || r.size() > 40) return false;
  for (char c : r)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

// "<Code>NoSuchBucket</Code>" → "NoSuchBucket".
std::string error_code(const std::string& body) {
  auto start = body.find("<Code>");
  auto end = body.find("</Code>");
  if (start == std::string::npos || end == std::string::npos || end < start) return "";
  return body.substr(start + 6, std::min<std::size_t>(end - start - 6, 100));
}

// The object's URL and the Host header's value (the port only when not the
// scheme's default, as curl sends it).
struct Address {
  std::string url;
  std::string host;
  std::string path;  // encoded, starting with '/'
};

// A boolean field: true, or "true" when the field was left to its default.
bool flag(const json& config, const char* name, bool fallback) {
  auto it = config.find(name);
  if (it == config.end()) return fallback;
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_string()) return it->get<std::string>() == "true";
  return fallback;
}

Address address(const json& config, const std::string& key) {
  boost::urls::url endpoint(config.value("endpoint", ""));
  bool path_style = flag(config, "path_style", true);
  std::string bucket = config.value("bucket", "");
  std::string host(endpoint.encoded_host_address());
  if (!path_style) host = bucket + "." + host;
  std::string authority = host;
  if (endpoint.has_port()) authority += ":" + std::string(endpoint.port());
  std::string base_path(endpoint.encoded_path());
  while (!base_path.empty() && base_path.back() == '/') base_path.pop_back();
  std::string path = base_path + (path_style ? "/" + sigv4::uri_encode(bucket, false) : "") + "/" +
                     sigv4::uri_encode(key, true);
  return {std::string(endpoint.scheme()) + "://" + authority + path, authority, path};
}

class S3Store final : public Store {
 public:
  std::string_view name() const override { return "s3"; }
  std::string_view label_key() const override { return "store_s3"; }
  std::vector<FieldSpec> fields() const override {
    FieldSpec endpoint = store_field("endpoint", "store_field_s3_endpoint",
                                     "store_s3_endpoint_help", FieldSpec::Type::url);
    FieldSpec region = store_field("region", "store_field_s3_region", "store_s3_region_help");
    region.default_value = "us-east-1";
    FieldSpec bucket = store_field("bucket", "store_field_s3_bucket", "");
    FieldSpec prefix = store_field("prefix", "store_field_s3_prefix", "store_s3_prefix_help");
    prefix.required = false;
    prefix.default_value = "peto/";
    FieldSpec path_style = store_field("path_style", "store_field_s3_path_style",
                                       "store_s3_path_style_help", FieldSpec::Type::boolean);
    path_style.required = false;
    path_style.default_value = "true";
    FieldSpec key_id = store_field("access_key_id", "store_field_s3_access_key_id", "");
    FieldSpec secret = store_field("secret_access_key", "store_field_s3_secret_access_key", "",
                                   FieldSpec::Type::password);
    secret.secret = true;
    return {endpoint, region, bucket, prefix, path_style, key_id, secret};
  }

  ConfigErrors validate(const json& config, const Config&) const override {
    ConfigErrors errors;
    const std::string text = config.value("endpoint", "");  // the view below points into it
    auto url = boost::urls::parse_uri(text);
    if (!url || url->has_userinfo() || url->has_query() || url->has_fragment() ||
        url->host().empty())
      errors["endpoint"] = "store_error_url";
    if (!good_bucket(config.value("bucket", ""))) errors["bucket"] = "store_error_bucket";
    if (!good_region(config.value("region", ""))) errors["region"] = "store_error_region";
    std::string prefix = config.value("prefix", "");
    if (prefix.size() > 200 || prefix.starts_with("/") || prefix.find("..") != std::string::npos)
      errors["prefix"] = "store_error_folder";
    return errors;
  }

  std::string summary(const json& config) const override {
    return config.value("endpoint", "") + " · " + config.value("bucket", "") + "/" +
           config.value("prefix", "");
  }

  std::string refusal(const json& config, const Config& instance, std::int64_t) const override {
    return url_refusal(config.value("endpoint", ""), instance);
  }

  PutResult put(const PutFile& file, const json& config, const PutContext& ctx) const override {
    const std::string key = config.value("prefix", "") + safe_name(file.remote_name);
    Address to = address(config, key);
    const std::string when = sigv4::amz_date(ctx.clock.now_ms());
    const std::string type =
        file.content_type.empty() ? "application/octet-stream" : file.content_type;
    sigv4::Request signed_part{"PUT",
                               to.path,
                               "",
                               {{"content-type", type},
                                {"host", to.host},
                                {"x-amz-content-sha256", file.sha256},
                                {"x-amz-date", when}},
                               file.sha256};
    sigv4::Credentials who{config.value("access_key_id", ""), config.value("secret_access_key", ""),
                           config.value("region", ""), "s3"};
    net::HttpRequest req;
    req.method = "PUT";
    req.url = to.url;
    req.headers = {{"Authorization", sigv4::authorization(signed_part, who, when)},
                   {"Content-Type", type},
                   {"x-amz-content-sha256", file.sha256},
                   {"x-amz-date", when}};
    req.body_file = file.path;
    req.timeout = ctx.timeout;
    req.max_bytes = 64 * 1024;
    req.allow_private = ctx.config.allow_private_destinations;
    auto answer = ctx.http.send(req);
    PutResult result = read_put_answer(answer, "S3 server");
    if (auto* r = std::get_if<net::HttpResponse>(&answer); r != nullptr && !result.stored()) {
      if (std::string code = error_code(r->body); !code.empty())
        result.outcome.message += " " + code + ".";
    }
    if (result.stored()) {
      result.external_id = key;
      result.external_url = to.url;
    }
    return result;
  }
};

}  // namespace

const Store& s3_store() {
  static const S3Store store;
  return store;
}

}  // namespace peto::media
