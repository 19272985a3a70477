// CVs and letters through /api/v1 on both backends: PDF and text renders,
// a letter filled in for an application, "Record as sent" made at once and
// as an errand, and the refusals (bad body, another person's records).
#include <gtest/gtest.h>

#include "domain/api_tokens.h"
#include "tests/support/api_fixture.h"

namespace peto::testing {
namespace {

using nlohmann::json;

class RendersApiTest : public ApiTest {
 protected:
  std::string app_path(const std::map<std::string, std::int64_t>& ids) {
    return std::string(kApi) + "/applications/" + std::to_string(ids.at("applications"));
  }
};

TEST_P(RendersApiTest, CvsAndLettersComeAsPdfAndText) {
  ApiClient ana = client(ana_, domain::all_scopes());
  auto ids = seed(ana);
  const std::string cv = std::string(kApi) + "/cvs/" + std::to_string(ids["cvs"]);
  ApiReply pdf = ana.get(cv + "/pdf");
  ASSERT_EQ(pdf.status, 200) << pdf.text;
  EXPECT_EQ(pdf.media_type(), "application/pdf");
  EXPECT_EQ(pdf.text.rfind("%PDF-", 0), 0u);
  ApiReply text = ana.get(cv + "/text");
  ASSERT_EQ(text.status, 200);
  EXPECT_NE(text.text.find(", Acme — 03/2021 – now\n- Shipped"), std::string::npos) << text.text;

  const std::string letter = std::string(kApi) + "/letters/" + std::to_string(ids["letters"]);
  ApiReply example = ana.get(letter + "/text");
  ASSERT_EQ(example.status, 200);
  EXPECT_NE(example.text.find("I would like to join Example Company."), std::string::npos)
      << example.text;
  ApiReply filled = ana.get(letter + "/text?application_id=" + std::to_string(ids["applications"]));
  ASSERT_EQ(filled.status, 200);
  EXPECT_NE(filled.text.find("I would like to join Acme"), std::string::npos) << filled.text;
  EXPECT_NE(filled.text.find("Application for Engineer"), std::string::npos) << filled.text;
  EXPECT_EQ(
      ana.get(letter + "/pdf?application_id=" + std::to_string(ids["applications"])).media_type(),
      "application/pdf");
  EXPECT_EQ(ana.get(letter + "/pdf?application_id=999999").status, 404);
  EXPECT_EQ(ana.get(letter + "/pdf?application_id=x").status, 404);

  ApiClient ben = client(ben_, domain::all_scopes());
  EXPECT_EQ(ben.get(cv + "/pdf").status, 404);
  EXPECT_EQ(ben.get(letter + "/text").status, 404);
  ApiClient reader = client(ana_, {"applications:read"});
  EXPECT_EQ(reader.get(cv + "/pdf").status, 403);
}

TEST_P(RendersApiTest, RecordAsSentKeepsTheDocumentsAtOnceOrAsAnErrand) {
  ApiClient ana = client(ana_, domain::all_scopes());
  auto ids = seed(ana);
  const std::string sent = app_path(ids) + "/sent";
  config_.background_work = false;
  ApiReply made =
      ana.post(sent, {{"cv_id", ids["cvs"]}, {"letter_id", ids["letters"]}, {"note", "by e-mail"}});
  ASSERT_EQ(made.status, 201) << made.text;
  ASSERT_EQ(made.body["documents"].size(), 2u);
  EXPECT_EQ(made.body["documents"][0]["version"], 1);
  EXPECT_GE(made.body["documents"][0]["pages"].get<int>(), 1);
  EXPECT_EQ(count("uploads"), 2);
  ApiReply timeline = ana.get(app_path(ids) + "/timeline");
  int sent_entries = 0;
  for (const json& e : timeline.body["items"]) sent_entries += e["kind"] == "document_sent";
  EXPECT_EQ(sent_entries, 2);

  // Bad input changes nothing.
  std::string before = snapshot();
  EXPECT_EQ(ana.post(sent, json::object()).status, 422);
  EXPECT_EQ(ana.post(sent, {{"cv_id", "three"}}).status, 422);
  EXPECT_EQ(ana.post(sent, {{"cv_id", ids["cvs"]}, {"colour", "red"}}).status, 422);
  EXPECT_EQ(ana.post(sent, {{"cv_id", 999999}}).status, 422);
  ApiClient ben = client(ben_, domain::all_scopes());
  EXPECT_EQ(ben.post(sent, {{"cv_id", ids["cvs"]}}).status, 404);
  EXPECT_EQ(snapshot(), before);
  EXPECT_EQ(count("uploads"), 2);

  config_.background_work = true;
  ApiReply queued = ana.post(sent, {{"cv_id", ids["cvs"]}});
  ASSERT_EQ(queued.status, 202) << queued.text;
  std::int64_t task = queued.body["task_id"].get<std::int64_t>();
  EXPECT_EQ(queued.header("Location"), sent + "/" + std::to_string(task));
  ApiReply state = ana.get(sent + "/" + std::to_string(task));
  ASSERT_EQ(state.status, 200) << state.text;
  EXPECT_EQ(state.body["state"], "available");
  EXPECT_EQ(state.body["total"], 1);
  EXPECT_EQ(ben.get(sent + "/" + std::to_string(task)).status, 404);
  EXPECT_EQ(ana.get(sent + "/999999").status, 404);
}

PETO_BOTH_BACKENDS(RendersApiTest);

}  // namespace
}  // namespace peto::testing
