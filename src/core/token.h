// Random tokens: lease owners, claim tokens, scope ids. libsodium's generator,
// so a token is never guessable and two processes never share one.
#pragma once

#include <string>

namespace peto {

// `bytes` random bytes as lower-case hex (2 × bytes characters).
std::string random_token(int bytes = 16);

}  // namespace peto
