// /profile/tokens: a person's API tokens. They make one (the secret is shown
// on the answer to the POST, once), see the live ones by name and hint, and
// revoke them. See domain/api_tokens.h for what a token is.
#include <algorithm>
#include <string>
#include <vector>

#include "core/log.h"
#include "domain/api_tokens.h"
#include "http/form.h"
#include "pages/record_view.h"
#include "pages/site.h"

namespace peto::web {

namespace {

using nlohmann::json;

// A checkbox of the scope form. Its id avoids ':' so it reads well in CSS and
// fragment links.
json scope_option(const json& t, const std::string& scope, const std::string& label_key,
                  const std::vector<std::string>& checked) {
  std::string id = "scope-" + scope;
  std::replace(id.begin(), id.end(), ':', '-');
  return {{"value", scope},
          {"id", id},
          {"label", t.value(label_key, label_key)},
          {"checked", std::find(checked.begin(), checked.end(), scope) != checked.end()}};
}

// The scope checkboxes: "read" and "write" of everything first, then one
// group per area (its name from `scope_area_<area>`).
json scope_groups(const json& t, const std::vector<std::string>& checked) {
  json groups = json::array();
  groups.push_back({{"legend", t.value("tokens_scope_everything", "")},
                    {"options",
                     {scope_option(t, "read", "tokens_scope_read_all", checked),
                      scope_option(t, "write", "tokens_scope_write_all", checked)}}});
  for (const auto& area : domain::scope_areas()) {
    std::string key = "scope_area_" + area;
    groups.push_back({{"legend", t.value(key, area)},
                      {"options",
                       {scope_option(t, area + ":read", "tokens_scope_read", checked),
                        scope_option(t, area + ":write", "tokens_scope_write", checked)}}});
  }
  return groups;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// The page: the live tokens, then the form with `name` and `checked` as typed.
// `secret` is non-empty only on the answer that created it.
Response tokens_page(Site& site, const Request& r, const Visitor& v, int status,
                     const std::string& name, const std::vector<std::string>& checked,
                     const domain::FieldErrors& errors, const std::string& secret) {
  const json& t = site.catalogue().messages(v.language);
  json tokens = json::array();
  for (const auto& token : domain::ApiTokens(site.db(), site.clock()).list(v.account.id)) {
    tokens.push_back({{"id", token.id},
                      {"name", token.name},
                      {"scopes", joined(token.scopes)},
                      {"hint", token.hint},
                      {"created", site.format_time(v, token.created_at)},
                      {"last_used", token.last_used_at ? site.format_time(v, *token.last_used_at)
                                                       : t.value("tokens_never_used", "")}});
  }
  json data = {{"values", {{"name", name}}},
               {"errors", site.error_texts(&v, r, errors)},
               {"scope_groups", scope_groups(t, checked)},
               {"tokens", tokens},
               {"has_tokens", !tokens.empty()}};
  if (auto it = errors.by_field.find("form"); it != errors.by_field.end()) {
    data["form_error"] = site.catalogue().text(v.language, it->second);
  }
  if (!secret.empty()) data["secret"] = secret;
  return site.render(r, v, status, "tokens", std::move(data));
}

Response get_tokens(Site& site, Request& r, const Visitor& v) {
  return tokens_page(site, r, v, 200, "", {}, {}, "");
}

Response post_tokens(Site& site, Request& r, const Visitor& v) {
  Form f = Form::parse(r);
  std::string name = f.get("name");
  std::vector<std::string> scopes = f.all("scope");
  auto made = domain::ApiTokens(site.db(), site.clock()).create(v.account.id, name, scopes);
  if (auto* errors = std::get_if<domain::FieldErrors>(&made)) {
    return tokens_page(site, r, v, 422, name, scopes, *errors, "");
  }
  const auto& created = std::get<domain::NewToken>(made);
  log::info("web", "api token created", {{"user", v.account.id}, {"token", created.token.id}});
  // Answered here rather than by a redirect: the secret must not outlive this
  // response (signed_in marks it no-store).
  return tokens_page(site, r, v, 200, "", {}, {}, created.secret);
}

Response post_revoke(Site& site, Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id || !domain::ApiTokens(site.db(), site.clock()).revoke(v.account.id, *id)) {
    return site.not_found(r, v);
  }
  log::info("web", "api token revoked", {{"user", v.account.id}, {"token", *id}});
  return Site::redirect("/profile/tokens");
}

}  // namespace

void add_token_routes(Router& router, Site& site) {
  Site* s = &site;
  router.add("GET", "/profile/tokens",
             site.signed_in([s](Request& r, const Visitor& v) { return get_tokens(*s, r, v); }),
             "API tokens");
  router.add("POST", "/profile/tokens",
             site.signed_in([s](Request& r, const Visitor& v) { return post_tokens(*s, r, v); }),
             "Create an API token");
  router.add("POST", "/profile/tokens/{id}/revoke",
             site.signed_in([s](Request& r, const Visitor& v) { return post_revoke(*s, r, v); }),
             "Revoke an API token");
}

}  // namespace peto::web
