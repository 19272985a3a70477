// AWS Signature Version 4 against the values AWS publishes: the "get-vanilla"
// case of the SigV4 test suite and the S3 documentation's GET example
// ("Signature Calculations for the Authorization Header: Transferring
// Payload in a Single Chunk").
#include <gtest/gtest.h>

#include "media/sigv4.h"

namespace peto::media::sigv4 {
namespace {

constexpr const char* kEmptyHash =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

TEST(Sigv4, GetVanillaFromTheTestSuite) {
  Request r{"GET",
            "/",
            "",
            {{"host", "example.amazonaws.com"}, {"x-amz-date", "20150830T123600Z"}},
            kEmptyHash};
  Credentials c{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "us-east-1", "service"};
  EXPECT_EQ(canonical_request(r),
            "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
            "host;x-amz-date\n" +
                std::string(kEmptyHash));
  EXPECT_EQ(signature(r, c, "20150830T123600Z"),
            "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  EXPECT_EQ(authorization(r, c, "20150830T123600Z"),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(Sigv4, TheS3DocumentationsGetObjectExample) {
  Request r{"GET",
            "/test.txt",
            "",
            {{"host", "examplebucket.s3.amazonaws.com"},
             {"range", "bytes=0-9"},
             {"x-amz-content-sha256", kEmptyHash},
             {"x-amz-date", "20130524T000000Z"}},
            kEmptyHash};
  Credentials c{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "us-east-1",
                "s3"};
  EXPECT_EQ(string_to_sign(r, c, "20130524T000000Z"),
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(signature(r, c, "20130524T000000Z"),
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(Sigv4, HeaderValuesAreTrimmedAndKeysEncodedOnce) {
  Request r{"PUT", "/", "", {{"host", "  a.example  "}, {"x-amz-meta-x", "a   b"}}, kEmptyHash};
  EXPECT_NE(canonical_request(r).find("host:a.example\nx-amz-meta-x:a b\n"), std::string::npos);
  EXPECT_EQ(uri_encode("peto/My CV (1).pdf", true), "peto/My%20CV%20%281%29.pdf");
  EXPECT_EQ(uri_encode("a/b", false), "a%2Fb");
  EXPECT_EQ(uri_encode("~-._", false), "~-._");
  EXPECT_EQ(amz_date(1'369'353'600'000), "20130524T000000Z");
}

}  // namespace
}  // namespace peto::media::sigv4
