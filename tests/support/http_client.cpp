#include "tests/support/http_client.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <stdexcept>

#include "core/text.h"

namespace peto::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

std::string ClientResponse::header(const std::string& name) const {
  for (const auto& [k, v] : headers) {
    if (beast::iequals(k, name)) return v;
  }
  return "";
}

bool ClientResponse::has_header(const std::string& name) const {
  for (const auto& [k, v] : headers) {
    if (beast::iequals(k, name)) return true;
  }
  return false;
}

struct TestConnection::Impl {
  asio::io_context ioc;
  tcp::socket socket{ioc};
  beast::flat_buffer buffer;
};

TestConnection::TestConnection(std::uint16_t port, const std::string& source)
    : impl_(std::make_unique<Impl>()) {
  beast::error_code ec;
  if (!source.empty()) {
    impl_->socket.open(tcp::v4(), ec);
    if (!ec) impl_->socket.bind(tcp::endpoint(asio::ip::make_address(source), 0), ec);
    if (ec) throw std::runtime_error("cannot bind to " + source + ": " + ec.message());
  }
  impl_->socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
  if (ec) throw std::runtime_error("cannot connect: " + ec.message());
  timeval tv{5, 0};
  ::setsockopt(impl_->socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(impl_->socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

TestConnection::~TestConnection() = default;

void TestConnection::send_raw(const std::string& bytes) {
  beast::error_code ec;
  asio::write(impl_->socket, asio::buffer(bytes), ec);
  if (ec) throw std::runtime_error("send failed: " + ec.message());
}

ClientResponse TestConnection::read_response(bool head) {
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 << 20);
  parser.skip(head);
  beast::error_code ec;
  http::read(impl_->socket, impl_->buffer, parser, ec);
  if (ec) throw std::runtime_error("no response: " + ec.message());
  auto& msg = parser.get();
  ClientResponse out;
  out.status = static_cast<int>(msg.result_int());
  for (const auto& f : msg)
    out.headers.emplace_back(std::string(f.name_string()), std::string(f.value()));
  out.body = std::move(msg.body());
  return out;
}

ClientResponse TestConnection::request(
    const std::string& method, const std::string& target, const std::string& body,
    const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string raw = method + " " + target + " HTTP/1.1\r\n";
  bool host = false;
  for (const auto& [k, v] : headers) {
    raw += k + ": " + v + "\r\n";
    host = host || text::iequals(k, "Host");
  }
  if (!host) raw += "Host: 127.0.0.1\r\n";
  if (!body.empty() || method == "POST" || method == "PUT") {
    raw += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  }
  raw += "\r\n" + body;
  send_raw(raw);
  return read_response(method == "HEAD");
}

bool TestConnection::closed_by_server() {
  if (impl_->buffer.size() > 0) return false;
  char byte;
  beast::error_code ec;
  impl_->socket.read_some(asio::buffer(&byte, 1), ec);
  return ec == asio::error::eof || ec == asio::error::connection_reset;
}

ClientResponse http_request(std::uint16_t port, const std::string& method,
                            const std::string& target, const std::string& body,
                            const std::vector<std::pair<std::string, std::string>>& headers) {
  TestConnection c(port);
  return c.request(method, target, body, headers);
}

bool can_connect(std::uint16_t port) {
  asio::io_context ioc;
  tcp::socket socket(ioc);
  beast::error_code ec;
  socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port), ec);
  return !ec;
}

}  // namespace peto::testing
