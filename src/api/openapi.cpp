#include "api/openapi.h"

#include <cctype>

#include "domain/applications.h"
#include "domain/auto_reminders.h"
#include "domain/kinds.h"

namespace peto::web {

namespace {

using domain::Field;
using domain::FieldType;
using domain::Kind;
using nlohmann::json;

// The JSON schema of one field's value (without null).
json field_schema(const Field& f, bool for_input) {
  switch (f.type) {
    case FieldType::text:
    case FieldType::long_text:
      return {{"type", "string"}, {"maxLength", f.max_length}};
    case FieldType::email:
      return {{"type", "string"}, {"format", "email"}, {"maxLength", f.max_length}};
    case FieldType::url:
      return {{"type", "string"}, {"format", "uri"}, {"maxLength", f.max_length}};
    case FieldType::integer: {
      json s = {{"type", "integer"}};
      if (f.max > f.min) {
        s["minimum"] = f.min;
        s["maximum"] = f.max;
      }
      return s;
    }
    case FieldType::date:
      return {{"type", "string"}, {"format", "date"}};
    case FieldType::datetime:
      return {{"type", "string"}, {"format", "date-time"}};
    case FieldType::choice: {
      json values = json::array();
      for (const auto& c : f.choices)
        if (for_input || !c.empty()) values.push_back(c);
      return {{"type", "string"}, {"enum", values}};
    }
    case FieldType::ref:
      return {{"type", "integer"},
              {"minimum", 1},
              {"description", "The id of one of your " + f.ref_kind}};
  }
  return json::object();
}

json nullable(json schema) {
  schema["type"] = json::array({schema["type"], "null"});
  if (schema.contains("enum")) schema["enum"].push_back(nullptr);
  return schema;
}

// A stored value is never null when the field is required or has a default.
bool always_set(const Field& f) {
  return f.required || (f.type == FieldType::choice && !f.choices.empty() && !f.choices[0].empty());
}

json record_schema(const Kind& kind) {
  json props = {{"id", {{"type", "integer"}}}};
  json required = json::array({"id", "created_at", "updated_at"});
  for (const Field& f : kind.fields) {
    json s = field_schema(f, false);
    props[f.name] = always_set(f) ? s : nullable(s);
    if (!f.writable) props[f.name]["readOnly"] = true;
    required.push_back(f.name);
  }
  props["created_at"] = {{"type", "string"}, {"format", "date-time"}};
  props["updated_at"] = {{"type", "string"}, {"format", "date-time"}};
  for (const auto& e : kind.extras) {
    props[e.name] = {{"type", json::array({e.number ? "integer" : "string", "null"})},
                     {"readOnly", true}};
    required.push_back(e.name);
  }
  return {{"type", "object"}, {"properties", props}, {"required", required}};
}

// What a client may send: the writable fields, nothing else. `create` marks
// the required ones.
json input_schema(const Kind& kind, bool create) {
  json props = json::object();
  json required = json::array();
  for (const Field& f : kind.fields) {
    if (!f.writable) continue;
    props[f.name] = f.required ? field_schema(f, true) : nullable(field_schema(f, true));
    if (create && f.required) required.push_back(f.name);
  }
  json s = {{"type", "object"}, {"properties", props}, {"additionalProperties", false}};
  if (!required.empty()) s["required"] = required;
  return s;
}

json problem_schema() {
  json error = {{"type", "object"},
                {"properties",
                 {{"field", {{"type", "string"}}},
                  {"code", {{"type", "string"}}},
                  {"message", {{"type", "string"}}}}},
                {"required", {"field", "code", "message"}}};
  return {{"type", "object"},
          {"description", "RFC 9457 problem details"},
          {"properties",
           {{"type", {{"type", "string"}}},
            {"title", {{"type", "string"}}},
            {"status", {{"type", "integer"}}},
            {"detail", {{"type", "string"}}},
            {"errors", {{"type", "array"}, {"items", error}}},
            {"dependents",
             {{"type", "object"},
              {"description",
               "409 of a DELETE: what would go with the record, rows per kind "
               "(\"applications\": 1, \"application_events\": 12)"},
              {"additionalProperties", {{"type", "integer"}}}}}}},
          {"required", {"type", "title", "status"}}};
}

json event_schema() {
  json nullable_text = {{"type", json::array({"string", "null"})}};
  json kinds = json::array();
  for (const auto& k : domain::event_kinds()) kinds.push_back(k);
  return {{"type", "object"},
          {"properties",
           {{"id", {{"type", "integer"}}},
            {"application_id", {{"type", "integer"}}},
            {"kind", {{"type", "string"}, {"enum", kinds}}},
            {"occurred_at", {{"type", "string"}, {"format", "date-time"}}},
            {"summary", {{"type", "string"}}},
            {"body", nullable_text},
            {"from_status", nullable_text},
            {"to_status", nullable_text},
            {"end_reason", nullable_text},
            {"interview_id", {{"type", json::array({"integer", "null"})}}},
            {"actor", {{"type", "string"}}},
            {"created_at", {{"type", "string"}, {"format", "date-time"}}}}},
          {"required",
           {"id", "application_id", "kind", "occurred_at", "summary", "body", "from_status",
            "to_status", "end_reason", "interview_id", "actor", "created_at"}}};
}

json me_schema();

}  // namespace

json profile_settings_schema() {
  return {{"language", {{"type", "string"}, {"description", "\"\" = the browser's"}}},
          {"time_zone", {{"type", "string"}, {"description", "An IANA zone"}}},
          {"quiet_after_days", {{"type", "integer"}, {"minimum", 1}, {"maximum", 365}}},
          {"closing_notice_days", {{"type", "integer"}, {"minimum", 1}, {"maximum", 90}}},
          {"follow_up_days",
           {{"type", "integer"},
            {"minimum", 0},
            {"maximum", domain::kMaxFollowUpDays},
            {"description", "A follow-up reminder this many days after applying; 0 = none"}}},
          {"remind_interviews",
           {{"type", "boolean"}, {"description", "A reminder the day before an interview"}}},
          {"remind_answer_by",
           {{"type", "boolean"},
            {"description", "A reminder the day before an offer's answer-by date"}}},
          {"remind_closing",
           {{"type", "boolean"},
            {"description", "A reminder the day before a listing not applied to closes"}}}};
}

namespace {

json me_schema() {
  json properties = profile_settings_schema();
  properties.update(json{{"id", {{"type", "integer"}}},
                         {"email", {{"type", "string"}}},
                         {"is_admin", {{"type", "boolean"}}},
                         {"token",
                          {{"type", "object"},
                           {"properties",
                            {{"id", {{"type", "integer"}}},
                             {"name", {{"type", "string"}}},
                             {"scopes", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
                           {"required", {"id", "name", "scopes"}}}}});
  return {{"type", "object"},
          {"properties", properties},
          // The settings are answered only to a token that may read the profile.
          {"required", {"id", "email", "is_admin", "token"}}};
}

json capture_schema() {
  json text = {{"type", "string"}};
  json nullable_text = {{"type", json::array({"string", "null"})}};
  json nullable_int = {{"type", json::array({"integer", "null"})}};
  json data = {{"type", "object"},
               {"description", "What the parsers read; empty until a fetched page is read"},
               {"properties",
                {{"role", text},
                 {"company", text},
                 {"company_website", text},
                 {"location", text},
                 {"remote", text},
                 {"salary_min", nullable_int},
                 {"salary_max", nullable_int},
                 {"currency", text},
                 {"salary_period", text},
                 {"closes_on", text},
                 {"employment_type", text},
                 {"description", text},
                 {"url", text}}}};
  return {{"type", "object"},
          {"properties",
           {{"id", {{"type", "integer"}}},
            {"url", text},
            {"url_key", text},
            {"origin", {{"type", "string"}, {"enum", {"web", "api"}}}},
            {"status",
             {{"type", "string"},
              {"enum", {"fetching", "pending", "accepted", "discarded", "failed"}}}},
            {"parser", nullable_text},
            {"parser_version", nullable_int},
            {"data", data},
            {"error", nullable_text},
            {"listing_id", nullable_int},
            {"application_id", nullable_int},
            {"seen_before", {{"type", "boolean"}}},
            {"seen_listing_id",
             {{"type", json::array({"integer", "null"})},
              {"description", "The listing an earlier capture of the same page became"}}},
            {"page_sha256",
             {{"type", json::array({"string", "null"})},
              {"description", "SHA-256 of the kept source; null when none is kept"}}},
            {"created_at", {{"type", "string"}, {"format", "date-time"}}},
            {"updated_at", {{"type", "string"}, {"format", "date-time"}}}}},
          {"required",
           {"id", "url", "url_key", "origin", "status", "parser", "parser_version", "data", "error",
            "listing_id", "application_id", "seen_before", "created_at", "updated_at"}}};
}

json components() {
  json tag_ref = {{"type", "object"},
                  {"properties",
                   {{"id", {{"type", "integer"}}},
                    {"name", {{"type", "string"}}},
                    {"colour", {{"type", "string"}}}}},
                  {"required", {"id", "name", "colour"}}};
  json schemas = {{"Problem", problem_schema()},
                  {"Event", event_schema()},
                  {"Me", me_schema()},
                  {"TagRef", tag_ref},
                  {"Capture", capture_schema()}};
  for (const Kind& k : domain::kinds()) {
    std::string name = schema_name(k);
    schemas[name] = record_schema(k);
    schemas[name + "Input"] = input_schema(k, true);
    schemas[name + "Patch"] = input_schema(k, false);
  }
  // Applying (POST /applications) also takes the status to start in.
  json starting_status = nullable(
      {{"type", "string"}, {"enum", domain::kind("applications").field("status")->choices}});
  starting_status["description"] = "The status to start in; draft when left out";
  schemas["ApplicationInput"]["properties"]["status"] = starting_status;
  return {{"schemas", schemas},
          {"securitySchemes",
           {{"bearer",
             {{"type", "http"},
              {"scheme", "bearer"},
              {"description", "A token made in the profile or with `peto token create`."}}}}}};
}

json problem_content() {
  return {{"application/problem+json", {{"schema", schema_ref("Problem")}}}};
}

}  // namespace

std::string schema_name(const Kind& kind) {
  std::string name = kind.singular;
  if (!name.empty()) name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  return name;
}

json schema_ref(const std::string& name) { return {{"$ref", "#/components/schemas/" + name}}; }

json page_schema(const json& item) {
  return {{"type", "object"},
          {"properties",
           {{"items", {{"type", "array"}, {"items", item}}},
            {"next_cursor",
             {{"type", json::array({"string", "null"})},
              {"description", "Pass as ?cursor= for the next page; null on the last one."}}}}},
          {"required", {"items", "next_cursor"}}};
}

json api_operation(const std::string& id, const std::string& summary, const std::string& tag,
                   bool secured) {
  json op = {
      {"operationId", id},
      {"summary", summary},
      {"tags", {tag}},
      {"responses",
       {{"4XX", {{"description", "A problem with the request"}, {"content", problem_content()}}},
        {"5XX", {{"description", "A problem in peto"}, {"content", problem_content()}}}}}};
  // A public route says so: an empty list of requirements.
  op["security"] = secured ? json::array({{{"bearer", json::array()}}}) : json::array();
  return op;
}

void api_id_parameter(json& op) {
  op["parameters"].push_back({{"name", "id"},
                              {"in", "path"},
                              {"required", true},
                              {"schema", {{"type", "integer"}, {"minimum", 1}}}});
}

void api_query_parameter(json& op, const std::string& name, json schema,
                         const std::string& description) {
  op["parameters"].push_back({{"name", name},
                              {"in", "query"},
                              {"required", false},
                              {"description", description},
                              {"schema", std::move(schema)}});
}

void api_body(json& op, json schema, bool required) {
  op["requestBody"] = {{"required", required},
                       {"content", {{"application/json", {{"schema", std::move(schema)}}}}}};
}

void api_answer(json& op, int status, const std::string& description, json schema) {
  json answer = {{"description", description}};
  if (!schema.is_null())
    answer["content"] = {{"application/json", {{"schema", std::move(schema)}}}};
  op["responses"][std::to_string(status)] = std::move(answer);
}

json openapi_document(const Router& router, const std::string& version) {
  json paths = json::object();
  for (const Route& route : router.routes()) {
    if (!route.pattern.starts_with("/api/v1/")) continue;
    std::string method;
    for (char c : route.method) method += static_cast<char>(std::tolower(c));
    json op = route.operation.is_null()
                  ? json{{"summary", route.summary},
                         {"responses", {{"default", {{"description", "An answer"}}}}}}
                  : route.operation;
    paths[route.pattern][method] = std::move(op);
  }
  return {
      {"openapi", "3.1.0"},
      {"info",
       {{"title", "peto API"},
        {"version", version},
        {"description",
         "Your job search in peto, for your own tools. Authenticate with a bearer token; "
         "each route names the scope it needs in x-scope."}}},
      {"servers", {{{"url", "/"}, {"description", "This peto: the paths hold the whole address"}}}},
      {"paths", paths},
      {"components", components()}};
}

}  // namespace peto::web
