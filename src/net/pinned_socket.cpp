#include "net/pinned_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdint>
#include <cstring>

namespace peto::net {

namespace {

bool same_endpoint(const sockaddr_storage& want, const sockaddr* got) {
  if (got->sa_family != want.ss_family) return false;
  if (got->sa_family == AF_INET) {
    auto* w = reinterpret_cast<const sockaddr_in*>(&want);
    auto* g = reinterpret_cast<const sockaddr_in*>(got);
    return w->sin_port == g->sin_port && w->sin_addr.s_addr == g->sin_addr.s_addr;
  }
  if (got->sa_family == AF_INET6) {
    auto* w = reinterpret_cast<const sockaddr_in6*>(&want);
    auto* g = reinterpret_cast<const sockaddr_in6*>(got);
    return w->sin6_port == g->sin6_port &&
           std::memcmp(&w->sin6_addr, &g->sin6_addr, sizeof(in6_addr)) == 0;
  }
  return false;
}

curl_socket_t open_socket(void* clientp, curlsocktype, curl_sockaddr* address) {
  auto* pin = static_cast<PinnedSocket*>(clientp);
  if (!same_endpoint(pin->addr, &address->addr)) {
    pin->refused = true;
    return CURL_SOCKET_BAD;
  }
  return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

}  // namespace

bool PinnedSocket::set(const std::string& ip, int port) {
  std::memset(&addr, 0, sizeof(addr));
  auto* a4 = reinterpret_cast<sockaddr_in*>(&addr);
  if (inet_pton(AF_INET, ip.c_str(), &a4->sin_addr) == 1) {
    a4->sin_family = AF_INET;
    a4->sin_port = htons(static_cast<std::uint16_t>(port));
    return true;
  }
  auto* a6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (inet_pton(AF_INET6, ip.c_str(), &a6->sin6_addr) == 1) {
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons(static_cast<std::uint16_t>(port));
    return true;
  }
  return false;
}

void PinnedSocket::install(CURL* curl) {
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, &open_socket);
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, this);
}

}  // namespace peto::net
