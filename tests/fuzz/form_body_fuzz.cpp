// Fuzzes the urlencoded form bodies and query strings of the web app
// (http/form.h): any bytes give a Form (empty for a body that is not form
// encoding) without a crash, and the Form keeps its promises: get() is the
// first value of a name, all() every value in order, to_json() the first.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "http/form.h"
#include "http/http.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using peto::fuzz::broken;
using peto::web::Form;

void check(const Form& f) {
  const nlohmann::json j = f.to_json();
  for (const auto& [name, value] : f.fields()) {
    std::string first = f.get(name);
    if (!f.has(name)) broken("has() misses a field");
    auto all = f.all(name);
    if (all.empty() || all.front() != first) broken("all() does not start with get()");
    if (!j.contains(name) || j[name] != first) broken("to_json() is not the first value");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  peto::web::Request r;
  r.method = "POST";
  r.body = std::string(text);
  r.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
  check(Form::parse(r));
  // The same bytes as a query string, as the server decodes a target.
  peto::web::Request q;
  if (q.set_target("/listings?" + std::string(text))) check(Form::from_query(q));
  return 0;
}
