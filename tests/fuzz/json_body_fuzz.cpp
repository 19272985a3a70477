// Fuzzes the JSON bodies of the API's POST and PATCH routes the way the API
// reads them (api/api.cpp, Api::run): the nesting guard (core/json_depth.h),
// then nlohmann's parser, then, for one JSON object, the fields a record
// takes, validated by domain::Records as the API's create and update
// handlers call it (typed JSON, strict types), on a real SQLite file in a
// transaction that is rolled back. The first byte picks the kind of record
// and create or update; the rest is the body.
//
// Promises checked: the guard never counts less than the nesting the parser
// builds (else a deep body would reach code that recurses on it), and bad
// values are FieldErrors, never a database error (a 500).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/json_depth.h"
#include "domain/kinds.h"
#include "domain/records.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace peto;
constexpr int kMaxJsonDepth = 32;  // as api/api.cpp

int depth_of(const nlohmann::json& j) {
  if (!j.is_structured()) return 0;
  int deepest = 0;
  for (const auto& v : j) deepest = std::max(deepest, depth_of(v));
  return deepest + 1;
}

struct Rollback {};

struct State {
  State() : w(fuzz::world()), records(*w.db, w.clock) {
    owner = w.new_account();
    // One record of each kind that needs no other, for the updates.
    for (const auto& kind : domain::kinds()) {
      domain::Input input;
      input.from_form = false;
      input.strict_types = true;
      for (const auto& name : {"name", "title", "role", "body"}) input.values[name] = "Fuzz";
      auto made = records.create(owner, kind, input);
      if (const auto* r = std::get_if<domain::Record>(&made))
        ids[kind.name] = r->at("id").get<std::int64_t>();
    }
  }
  fuzz::World& w;
  domain::Records records;
  std::int64_t owner = 0;
  std::map<std::string, std::int64_t> ids;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static State s;
  if (size < 1) return 0;
  const auto& kinds = domain::kinds();
  const domain::Kind& kind = kinds[data[0] % kinds.size()];
  const bool update = (data[0] / kinds.size()) % 2 == 1;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);

  const int guard = json_nesting_depth(body, kMaxJsonDepth);
  if (guard > kMaxJsonDepth) return 0;  // 400 "Nested too deeply"
  nlohmann::json values = nlohmann::json::parse(body, nullptr, false);
  if (values.is_discarded()) return 0;  // 400 "Malformed JSON"
  if (depth_of(values) > guard)
    fuzz::broken("the nesting guard counted less than the parser built");
  if (!values.is_object()) return 0;  // 400 "Not an object"

  domain::Input input;
  input.values = std::move(values);
  input.from_form = false;
  input.strict_types = true;
  input.actor = "API token fuzz";
  // A PATCH needs a record to change: kinds without one (they need others
  // first) are created instead, as a POST.
  auto id = s.ids.find(kind.name);
  const bool patch = update && id != s.ids.end();
  input.partial = patch;  // as the API's PATCH handler; a POST checks every required field
  try {
    s.w.db->write([&](store::Conn& tx) {
      if (patch)
        s.records.update_in(tx, s.owner, kind, id->second, input);
      else
        s.records.create_in(tx, s.owner, kind, input);
      throw Rollback{};
    });
  } catch (const Rollback&) {
  } catch (const nlohmann::json::exception& e) {
    // The API would answer 500: a body must be refused with FieldErrors.
    std::fprintf(stderr, "%s %s threw: %s\n", patch ? "update" : "create", kind.name.c_str(),
                 e.what());
    fuzz::broken("a body made the record code throw");
  } catch (const store::Error& e) {
    // Two writers racing on a unique name is the only database error the
    // API answers (409); there is one writer here.
    std::fprintf(stderr, "database error: %s\n", e.what());
    fuzz::broken("a body's values reached the database unchecked");
  }
  return 0;
}
