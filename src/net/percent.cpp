#include "net/percent.h"

#include <boost/url/encode.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>

namespace peto::net {

std::string percent_encode(std::string_view text, bool keep_slash) {
  static constexpr auto with_slash = boost::urls::unreserved_chars + '/';
  return keep_slash ? boost::urls::encode(text, with_slash)
                    : boost::urls::encode(text, boost::urls::unreserved_chars);
}

}  // namespace peto::net
