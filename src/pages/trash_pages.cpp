// /trash: what a person deleted in the last 30 days, each with what went with
// it and a Restore button (domain/trash.h).
#include <algorithm>

#include "domain/trash.h"
#include "pages/record_view.h"
#include "pages/site.h"

namespace peto::web {

namespace {

using nlohmann::json;

std::string kind_label(const Site& site, const Visitor& v, const std::string& kind) {
  const domain::Kind* k = domain::find_kind(kind);
  return site.say(v, "kind_" + (k != nullptr ? k->singular : kind));
}

std::string entry_title(const domain::TrashEntry& e) {
  return e.title.empty() ? "#" + std::to_string(e.record_id) : e.title;
}

Response trash_page(Site& site, const Request& r, const Visitor& v) {
  json entries = json::array();
  const Millis now = site.clock().now_ms();
  const Millis keep =
      std::chrono::duration_cast<std::chrono::milliseconds>(domain::Trash::kKeep).count();
  for (const auto& e : domain::Trash(site.db(), site.clock()).list(v.account.id)) {
    // Whole days left, rounded up: "1 day left" until the upkeep empties it.
    const std::int64_t days =
        std::max<std::int64_t>(1, (e.deleted_at + keep - now + 86'399'999) / 86'400'000);
    entries.push_back({{"kind_label", kind_label(site, v, e.kind)},
                       {"title", entry_title(e)},
                       {"company", e.company},
                       {"gone", gone_words(site.catalogue(), v.language, e.gone)},
                       {"deleted", site.format_time(v, e.deleted_at)},
                       {"left", site.say(v, days == 1 ? "trash_left_one" : "trash_left_other",
                                         {{"n", std::to_string(days)}})},
                       {"restore_action", "/trash/" + std::to_string(e.id) + "/restore"}});
  }
  return site.render(r, v, 200, "trash", {{"entries", entries}, {"empty", entries.empty()}});
}

Response restore(Site& site, const Request& r, const Visitor& v) {
  auto id = path_id(r);
  if (!id) return site.not_found(r, v);
  domain::Trash trash(site.db(), site.clock());
  auto entry = trash.get(v.account.id, *id);
  if (!entry) return site.not_found(r, v);
  auto result = trash.restore(v.account.id, *id);
  const std::string label = site.say(v, "noun_" + entry->kind);
  if (auto* back = std::get_if<domain::Restored>(&result)) {
    return site.redirect(
        r, "/" + back->kind + "/" + std::to_string(back->id),
        Flash::of("success", site.say(v, "flash_restored",
                                      {{"kind", label}, {"title", entry_title(*entry)}})));
  }
  if (auto* refused = std::get_if<domain::RestoreRefused>(&result)) {
    std::string message;
    if (refused->why == domain::RestoreRefused::Why::name_taken) {
      message = site.say(v, "flash_restore_name_taken", {{"kind", label}});
    } else {
      const std::string parent = site.say(v, "noun_" + refused->parent_kind);
      message = site.say(
          v, refused->parent_entry ? "flash_restore_parent_in_trash" : "flash_restore_parent_gone",
          {{"parent", parent}});
    }
    return site.redirect(r, "/trash", Flash::of("error", message));
  }
  return site.redirect(r, "/trash", Flash::of("info", site.say(v, "flash_restore_missing")));
}

}  // namespace

void add_trash_routes(Router& router, Site& site) {
  router.add("GET", "/trash", site.signed_in([&site](Request& r, const Visitor& v) {
    return trash_page(site, r, v);
  }));
  router.add("POST", "/trash/{id}/restore",
             site.signed_in([&site](Request& r, const Visitor& v) { return restore(site, r, v); }));
}

}  // namespace peto::web
