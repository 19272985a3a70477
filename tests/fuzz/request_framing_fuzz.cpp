// Fuzzes what the server decides from a request's header alone, before it
// reads a byte of the body: its framing (a body is read only when framed one
// way: a lone "chunked" on HTTP/1.1 without a Content-Length, or a
// Content-Length), the client's address behind trusted proxies, and what the
// logs show of the path (a {token} segment never).
//
// Promises checked on every input whose header Beast reads whole:
// - a framing the server lets through is one Beast reads as chunked with no
//   Content-Length, or has no Transfer-Encoding at all;
// - the client address is the peer, or an IP address a trusted proxy named;
// - the logged path of /invite/<x> and /feeds/<x>/… never holds <x>.
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/address_set.h"
#include "http/client_address.h"
#include "http/router.h"
#include "http/server_internal.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
using namespace peto;

web::Router log_router() {
  web::Router router;
  auto ok = [](web::Request&) { return web::Response::text(200, "ok"); };
  router.add("GET", "/invite/{token}", ok);
  router.add("GET", "/feeds/{token}/calendar.ics", ok);
  router.add("GET", "/a/{id}", ok);
  return router;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const web::Router router = log_router();
  static const AddressSet trusted = *AddressSet::parse("127.0.0.1, 10.0.0.0/8, ::1");

  http::request_parser<http::empty_body> parser;
  parser.header_limit(16 << 10);
  beast::error_code ec;
  parser.put(boost::asio::buffer(data, size), ec);
  if (!parser.is_header_done()) return 0;
  const auto& h = parser.get();

  const int refusal = web::server_detail::framing_refusal(h);
  if (refusal != 0 && refusal != 400 && refusal != 501) fuzz::broken("a framing status out of set");
  if (refusal == 0 && h.find(http::field::transfer_encoding) != h.end() &&
      (!parser.chunked() || h.find(http::field::content_length) != h.end()))
    fuzz::broken("an ambiguous body framing was let through");

  web::Headers headers;
  for (const auto& field : h)
    headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  for (std::string_view peer : {"127.0.0.1", "192.0.2.9"}) {
    std::string client = web::client_address(peer, headers, trusted);
    if (client != peer && (!trusted.contains(peer) || !is_ip_address(client)))
      fuzz::broken("a client address that no trusted proxy named");
  }

  web::Request request;
  if (!request.set_target(h.target())) return 0;
  const std::string logged = router.path_for_log(request);
  const auto& seg = request.segments;
  if (seg.size() >= 2 && (seg[0] == "invite" || seg[0] == "feeds") && !seg[1].empty() &&
      !logged.starts_with("/" + seg[0] + "/…"))
    fuzz::broken("a token segment reached the logs");
  return 0;
}
