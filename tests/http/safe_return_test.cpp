// safe_return: the one check every `return_to` and the sign-in form's `next`
// pass through before peto sends a browser there.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "http/http.h"

namespace peto::web {
namespace {

TEST(SafeReturnTest, PathsOnThisSiteAreFollowed) {
  for (const char* local : {"/", "/applications", "/applications/7?tab=notes&q=a%2Fb",
                            "/reminders?done=1", "/a//b", "/companies/%E2%9C%93"})
    EXPECT_EQ(safe_return(local, "/fallback"), local) << local;
}

TEST(SafeReturnTest, AnythingABrowserCouldReadAsAnotherSiteFallsBack) {
  // A browser strips TAB, CR and LF from a URL and reads "\" as "/", so each
  // of these would be "//evil.example": another site.
  for (const std::string& evil : std::vector<std::string>{
           "//evil.example/", "/\t/evil.example", "/\n/evil.example", "/\r/evil.example",
           "/\\evil.example", "\\/evil.example", "https://evil.example/", "http:evil.example",
           "javascript:alert(1)", " /x", "/x y", "/x#frag", "", "x", std::string("/\0/x", 4),
           "/" + std::string(2048, 'a')})
    EXPECT_EQ(safe_return(evil, "/fallback"), "/fallback") << evil;
  EXPECT_EQ(safe_return("/" + std::string(2047, 'a'), "/fallback").size(), 2048u);
}

}  // namespace
}  // namespace peto::web
