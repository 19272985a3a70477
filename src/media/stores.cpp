#include "media/stores.h"

#include <boost/url.hpp>

#include "net/destination.h"

namespace peto::media {

std::string Store::refusal(const nlohmann::json&, const Config&, std::int64_t) const { return ""; }

const std::vector<const Store*>& stores() {
  static const std::vector<const Store*> all = {&local_store(), &webdav_store(), &s3_store()};
  return all;
}

const Store* find_store(std::string_view name) {
  for (const Store* s : stores())
    if (s->name() == name) return s;
  return nullptr;
}

std::string safe_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '-' || c == '_';
    out += plain ? c : '_';
  }
  while (!out.empty() && out.front() == '.') out.erase(0, 1);
  if (out.size() > 120) out.erase(0, out.size() - 120);  // keep the extension
  while (!out.empty() && out.front() == '.') out.erase(0, 1);
  return out.empty() ? "file" : out;
}

PutResult read_put_answer(const std::variant<net::HttpResponse, net::HttpError>& answer,
                          std::string_view what) {
  if (const auto* e = std::get_if<net::HttpError>(&answer)) return PutResult::failed(e->message);
  const auto& r = std::get<net::HttpResponse>(answer);
  const std::string status = std::to_string(r.status);
  if (r.status >= 200 && r.status < 300) return PutResult::sent("", "");
  if (r.status == 401 || r.status == 403)
    return PutResult::unusable("The " + std::string(what) + " refused the credentials (" + status +
                               "); check them and switch the connection on again.");
  if (r.status >= 300 && r.status < 400) {
    const std::string* to = r.header("location");
    return PutResult::failed("The " + std::string(what) + " answered " + status +
                             (to ? " (moved to " + to->substr(0, 200) + ")" : std::string()) +
                             "; peto does not follow redirects: use the new address.");
  }
  if (r.status == 408 || r.status == 429 || r.status >= 500)
    return PutResult::failed("The " + std::string(what) + " answered " + status +
                             "; peto will try again.");
  return PutResult::declined("The " + std::string(what) + " did not accept the file (" + status +
                             ").");
}

std::string url_refusal(const std::string& url, const Config& instance) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed) return "";  // validate() names a bad URL
  std::string host(parsed->encoded_host_address());
  if (!host.empty() && host.front() == '[') host = host.substr(1, host.size() - 2);
  net::DestinationPolicy policy{instance.allow_private_destinations};
  auto type = parsed->host_type();
  if (type == boost::urls::host_type::ipv4 || type == boost::urls::host_type::ipv6) {
    if (Status s = policy.check(host); !s) return s.message();
    return "";
  }
  if (!instance.allow_private_destinations && (host == "localhost" || host.ends_with(".localhost")))
    return host +
           " is this machine; peto does not send there unless"
           " PETO_ALLOW_PRIVATE_DESTINATIONS is set.";
  return "";
}

}  // namespace peto::media
