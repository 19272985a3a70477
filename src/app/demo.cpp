// `peto demo`: an account filled with a believable job search, for trying
// peto out and for screenshots.
//
// Everything goes through the domain API (Records, Applications), so the data
// obeys the same rules as typed-in data and the timelines are the ones the
// status machine writes. The story is told on a private clock that starts two
// months before `clock`'s now and is moved forward event by event; dates the
// dashboard looks at (reminders, closing dates, the next interview) are set
// relative to the real now. The same now gives the same data: there is one
// fixed seed and no other source of chance.
#include <algorithm>
#include <iostream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/app.h"
#include "core/timezone.h"
#include "core/token.h"
#include "domain/accounts.h"
#include "domain/applications.h"
#include "domain/dashboard.h"
#include "domain/records.h"

namespace peto::app {

namespace {

using nlohmann::json;

constexpr std::int64_t kHour = 3600LL * 1000;
constexpr std::int64_t kDay = 24 * kHour;
constexpr std::uint32_t kSeed = 20260115;

struct DemoCompany {
  const char* name;
  const char* website;
  const char* location;
};

const DemoCompany kCompanies[] = {
    {"Ståhl & Berg AB", "https://stahlberg.example", "Stockholm"},
    {"Müller Logistik GmbH", "https://mueller-logistik.example", "Hamburg"},
    {"Nordvik Systems AS", "https://nordvik.example", "Oslo"},
    {"Lumière Analytique SAS", "https://lumiere-analytique.example", "Lyon"},
    {"Côrte & Sá Lda", "https://corte-sa.example", "Porto"},
    {"Brouwer Digital BV", "https://brouwer.example", "Utrecht"},
};

struct DemoContact {
  int company;
  const char* name;
  const char* role;
  const char* email;
};

const DemoContact kContacts[] = {
    {0, "Ingrid Ståhl", "Head of Engineering", "ingrid@stahlberg.example"},
    {0, "Oskar Lindqvist", "Recruiter", "oskar.lindqvist@stahlberg.example"},
    {1, "Katrin Müller", "Talent Acquisition", "k.mueller@mueller-logistik.example"},
    {2, "Sigrid Haugen", "Engineering Manager", "sigrid@nordvik.example"},
    {3, "Élodie Marchand", "CTO", "elodie.marchand@lumiere-analytique.example"},
    {4, "João Côrte", "Founder", "joao@corte-sa.example"},
    {4, "Inês Sá", "People Partner", "ines@corte-sa.example"},
    {5, "Daan de Vries", "Team Lead Platform", "daan@brouwer.example"},
};

// A listing; `status` is where its application ends up ("" = not applied).
struct DemoListing {
  int company;
  const char* role;
  const char* location;
  const char* remote;
  int salary_min;  // thousands per year, 0 = not given
  int salary_max;
  const char* currency;
  const char* state;   // new, shortlisted, discarded
  int closes_in_days;  // relative to today; 999 = no closing date
  const char* status;
};

constexpr int kNoDate = 999;

const DemoListing kListings[] = {
    // Applied to: the first twenty.
    {0, "Senior Backend Engineer", "Stockholm", "hybrid", 650, 780, "SEK", "shortlisted", kNoDate,
     "offer"},
    {0, "Platform Engineer", "Stockholm", "remote", 600, 720, "SEK", "shortlisted", kNoDate,
     "interviewing"},
    {1, "Software Engineer, Routing", "Hamburg", "hybrid", 70, 85, "EUR", "new", kNoDate,
     "screening"},
    {1, "Data Engineer", "Hamburg", "onsite", 68, 80, "EUR", "new", 20, "applied"},
    {2, "Site Reliability Engineer", "Oslo", "hybrid", 850, 980, "NOK", "shortlisted", kNoDate,
     "interviewing"},
    {2, "Backend Developer (Go)", "Bergen", "remote", 800, 900, "NOK", "new", kNoDate,
     "acknowledged"},
    {3, "Ingénieur logiciel C++", "Lyon", "onsite", 55, 65, "EUR", "new", kNoDate, "assessment"},
    {3, "Data Platform Lead", "Paris", "hybrid", 80, 95, "EUR", "shortlisted", kNoDate, "rejected"},
    {4, "Full-stack Developer", "Porto", "remote", 38, 48, "EUR", "new", kNoDate, "applied"},
    {4, "DevOps Engineer", "Lisbon", "hybrid", 40, 52, "EUR", "new", kNoDate, "ghosted"},
    {5, "Backend Engineer, Payments", "Utrecht", "hybrid", 65, 78, "EUR", "shortlisted", 9,
     "applied"},
    {5, "Staff Engineer", "Amsterdam", "hybrid", 95, 115, "EUR", "new", kNoDate, "withdrawn"},
    {0, "Engineering Manager", "Göteborg", "onsite", 0, 0, "SEK", "new", kNoDate, "rejected"},
    {1, "Cloud Engineer", "Berlin", "remote", 72, 88, "EUR", "new", kNoDate, "acknowledged"},
    {2, "Security Engineer", "Oslo", "onsite", 0, 0, "NOK", "new", kNoDate, "rejected"},
    {3, "Développeur Rust", "Grenoble", "remote", 50, 62, "EUR", "shortlisted", 6, "draft"},
    {4, "Software Architect", "Porto", "hybrid", 55, 70, "EUR", "new", kNoDate, "applied"},
    {5, "Data Scientist", "Utrecht", "hybrid", 60, 72, "EUR", "new", kNoDate, "screening"},
    {2, "API Engineer", "Trondheim", "remote", 780, 880, "NOK", "new", kNoDate, "interviewing"},
    {1, "Embedded Developer", "Bremen", "onsite", 62, 74, "EUR", "shortlisted", 12, "draft"},
    // Not applied to.
    {0, "Backend Engineer, Search", "Stockholm", "hybrid", 600, 700, "SEK", "shortlisted", 1, ""},
    {3, "Ingénieur DevOps", "Lyon", "hybrid", 48, 58, "EUR", "new", 2, ""},
    {5, "Frontend Engineer", "Rotterdam", "remote", 55, 65, "EUR", "new", 3, ""},
    {1, "Team Lead Logistics IT", "Hamburg", "onsite", 85, 100, "EUR", "new", 18, ""},
    {4, "Mobile Developer", "Braga", "hybrid", 35, 45, "EUR", "new", kNoDate, ""},
    {2, "Database Administrator", "Oslo", "onsite", 0, 0, "NOK", "shortlisted", kNoDate, ""},
    {0, "QA Automation Engineer", "Malmö", "hybrid", 480, 560, "SEK", "new", -4, ""},
    {5, "Machine Learning Engineer", "Eindhoven", "hybrid", 70, 85, "EUR", "new", -11, ""},
    {3, "Chef de projet IT", "Paris", "onsite", 50, 60, "EUR", "discarded", kNoDate, ""},
    {4, "Junior Developer", "Coimbra", "onsite", 24, 28, "EUR", "discarded", 4, ""},
};

// The statuses an application passes through on its way to `target`.
std::vector<std::string> path_to(const std::string& target) {
  static const std::vector<std::string> open = {"applied",      "acknowledged", "screening",
                                                "interviewing", "assessment",   "offer"};
  if (target == "draft") return {};
  if (target == "withdrawn") return {"applied", "acknowledged", "withdrawn"};
  if (target == "ghosted") return {"applied", "ghosted"};
  if (target == "rejected") return {"applied", "acknowledged", "rejected"};
  std::vector<std::string> steps;
  for (const std::string& s : open) {
    if (s == "assessment" && target == "offer") continue;  // not every process has one
    steps.push_back(s);
    if (s == target) break;
  }
  return steps;
}

// What goes wrong here is peto's bug, not the person's: the data is fixed.
[[noreturn]] void broken(const std::string& what, const domain::FieldErrors* errors) {
  std::string text = "demo data refused (" + what + ")";
  if (errors != nullptr)
    for (const auto& [field, key] : errors->by_field) text += " " + field + "=" + key;
  throw std::logic_error(text);
}

domain::Record must(domain::Written w, const std::string& what) {
  if (auto* e = std::get_if<domain::FieldErrors>(&w)) broken(what, e);
  if (std::holds_alternative<domain::NotFound>(w)) broken(what + ": not found", nullptr);
  return std::get<domain::Record>(std::move(w));
}

std::int64_t id_of(const domain::Record& r) { return r["id"].get<std::int64_t>(); }

// Tells the story: one object so the helpers share the clocks and the owner.
class Story {
 public:
  Story(store::Db& db, const Clock& real, std::int64_t owner)
      : now_(real.now_ms()),
        today_(domain::today_utc(real)),
        story_(now_ - 60 * kDay),
        records_(db, story_),
        apps_(records_),
        owner_(owner),
        rng_(kSeed) {}

  void tell() {
    companies();
    contacts();
    listings();
    tags();
    applications();
    interviews_and_offer();
    reminders();
    notes();
  }

 private:
  // Sets the story's clock, never past the real now.
  void at(std::int64_t ms) { story_.set(std::min(ms, now_ - kHour)); }
  // Office hours (08:00–16:59 UTC, from the fixed seed) on the day that lies
  // `days_ago` before today.
  std::int64_t office(std::int64_t days_ago) {
    return (now_ / kDay - days_ago) * kDay + 8 * kHour +
           static_cast<std::int64_t>(rng_() % 9) * kHour +
           static_cast<std::int64_t>(rng_() % 60) * 60 * 1000;
  }

  std::int64_t make(const std::string& kind_name, json values) {
    domain::Input in;
    in.values = std::move(values);
    in.from_form = false;
    return id_of(must(records_.create(owner_, domain::kind(kind_name), in), kind_name));
  }

  void companies() {
    at(office(60));
    for (const DemoCompany& c : kCompanies)
      company_ids_.push_back(
          make("companies", {{"name", c.name}, {"website", c.website}, {"location", c.location}}));
  }

  void contacts() {
    for (const DemoContact& c : kContacts)
      contact_ids_.push_back(make("contacts", {{"name", c.name},
                                               {"company_id", company_ids_[c.company]},
                                               {"role", c.role},
                                               {"email", c.email}}));
  }

  void listings() {
    int n = 0;
    for (const DemoListing& l : kListings) {
      at(office(58 - n));
      json v = {{"role", l.role},
                {"company_id", company_ids_[l.company]},
                {"location", l.location},
                {"remote", l.remote},
                {"currency", l.currency},
                {"state", l.state},
                {"source", n % 3 == 0   ? "Company careers page"
                           : n % 3 == 1 ? "LinkedIn"
                                        : "EURES"},
                {"url", "https://jobs.example/" + std::to_string(1000 + n * 37)},
                {"description", std::string("We are looking for a ") + l.role +
                                    " to join our team in " + l.location +
                                    ".\n\nYou will build and run services used "
                                    "across Europe."}};
      if (l.salary_min > 0) {
        v["salary_min"] = l.salary_min * 1000;
        v["salary_max"] = l.salary_max * 1000;
      }
      if (l.closes_in_days != kNoDate) v["closes_on"] = add_days(today_, l.closes_in_days);
      if (std::string(l.state) == "discarded")
        v["discard_reason"] = n % 2 == 0 ? "location" : "pay";
      listing_ids_.push_back(make("listings", v));
      ++n;
    }
  }

  void tags() {
    tag_ids_.push_back(make("tags", {{"name", "Remote friendly"}, {"colour", "green"}}));
    tag_ids_.push_back(make("tags", {{"name", "Dream job"}, {"colour", "purple"}}));
    tag_ids_.push_back(make("tags", {{"name", "Referral"}, {"colour", "blue"}}));
  }

  // Each application starts on its own day and moves a step every few days;
  // the ones still open finish within the last three weeks or so, the ones
  // meant to look forgotten earlier.
  void applications() {
    const char* channels[] = {"company_site", "job_board", "referral", "recruiter", "email"};
    for (std::size_t i = 0; i < std::size(kListings); ++i) {
      const DemoListing& l = kListings[i];
      if (std::string(l.status).empty()) continue;
      std::int64_t days_ago = 50 - static_cast<std::int64_t>(i) * 2;
      at(office(days_ago));
      std::int64_t id = id_of(must(apps_.apply(owner_, listing_ids_[i]), "apply"));
      domain::Input extra;
      extra.values = {{"channel", channels[i % std::size(channels)]},
                      {"priority", static_cast<int>(i % 3) + 1}};
      extra.from_form = false;
      extra.partial = true;
      must(records_.update(owner_, domain::kind("applications"), id, extra), "channel");
      app_ids_.push_back(id);
      app_status_.emplace_back(l.status);

      // Steps a few days apart, squeezed to end before today for the late ones.
      std::vector<std::string> steps = path_to(l.status);
      std::int64_t room =
          steps.empty() ? 0 : (days_ago - 1) / static_cast<std::int64_t>(steps.size());
      for (const std::string& step : steps) {
        std::int64_t gap = step == "applied" ? 1 : 3 + static_cast<std::int64_t>(rng_() % 4);
        days_ago -= std::max<std::int64_t>(std::min(gap, room), 1);
        at(office(days_ago));
        move(id, step, i);
        if (step == "applied") sent_note(id, i);
      }
    }
    // Tags on a few of them.
    set_tags(app_ids_[0], {tag_ids_[1]});
    set_tags(app_ids_[1], {tag_ids_[0], tag_ids_[1]});
    set_tags(app_ids_[8], {tag_ids_[0]});
    set_tags(app_ids_[2], {tag_ids_[2]});
  }

  void move(std::int64_t id, const std::string& to, std::size_t listing) {
    domain::StatusChange c;
    c.to = to;
    if (to == "rejected") {
      c.end_reason = listing % 2 == 0 ? "filled_internally" : "not_a_match";
      c.note = "Thanks for your time, we went with another candidate.";
    } else if (to == "withdrawn") {
      c.end_reason = "my_choice";
      c.note = "The commute would have been too long.";
    } else if (to == "offer") {
      c.note = "Verbal offer on the phone, written offer to follow.";
    }
    must(apps_.change_status(owner_, id, c), "status " + to);
  }

  void sent_note(std::int64_t id, std::size_t i) {
    domain::NewEvent e;
    e.kind = i % 2 == 0 ? "email_sent" : "note";
    e.summary = i % 2 == 0 ? "Sent CV and cover letter" : "Applied through the careers page";
    add(id, e);
  }

  void add(std::int64_t id, const domain::NewEvent& e) {
    auto r = apps_.add(owner_, id, e);
    if (auto* errors = std::get_if<domain::FieldErrors>(&r)) broken("timeline", errors);
  }

  void set_tags(std::int64_t id, const std::vector<std::int64_t>& tags) {
    auto r = apps_.set_tags(owner_, id, tags);
    if (auto* errors = std::get_if<domain::FieldErrors>(&r)) broken("tags", errors);
  }

  std::int64_t app_in(const std::string& status) const {
    for (std::size_t i = 0; i < app_ids_.size(); ++i)
      if (app_status_[i] == status) return app_ids_[i];
    broken("no application in " + status, nullptr);
  }

  // Two interviews for the Platform Engineer application (interviewing):
  // a video call held last week and an on-site visit in three days. The
  // offer sits on the Senior Backend Engineer application.
  void interviews_and_offer() {
    std::int64_t app = app_ids_[1];
    at(office(12));
    std::int64_t held_at = (now_ / kDay - 7) * kDay + 10 * kHour;
    std::int64_t held = make("interviews", {{"application_id", app},
                                            {"kind", "video"},
                                            {"starts_at", format_time(held_at)},
                                            {"place", "https://meet.example/nordic-platform"},
                                            {"notes", "Talk with the team lead about on-call."}});
    at(held_at + 2 * kHour);
    must(apps_.set_outcome(owner_, held, "done"), "outcome");
    domain::NewEvent e;
    e.kind = "interview";
    e.summary = "Video call with the platform team went well";
    add(app, e);
    at(office(2));
    std::int64_t start = (now_ / kDay + 3) * kDay + 9 * kHour;  // 09:00 UTC in three days
    make("interviews", {{"application_id", app},
                        {"kind", "onsite"},
                        {"starts_at", format_time(start)},
                        {"place", "Sveavägen 44, Stockholm"},
                        {"notes", "Whiteboard session, then lunch with the team.\nBring ID."}});

    at(office(3));
    make("offers", {{"application_id", app_in("offer")},
                    {"base_pay", 740000},
                    {"currency", "SEK"},
                    {"period", "year"},
                    {"start_on", add_days(today_, 45)},
                    {"answer_by", add_days(today_, 6)},
                    {"benefits", "Pension 4.5 %, wellness allowance, 30 days of holiday."}});
  }

  // The person's own reminders; the follow-ups, the eve of the on-site and
  // the offer's answer-by are the ones peto makes itself.
  void reminders() {
    struct R {
      const char* title;
      std::int64_t due;  // from now
      int app;           // index into app_ids_, -1 = none
      bool done;
    };
    const R list[] = {
        {"Send references to Ståhl & Berg", -5 * kHour, 0, false},
        {"Update CV with the Rust project", -1 * kDay, -1, false},
        {"Prepare the on-site: system design", 2 * kDay, 1, false},
        {"Check Brouwer Digital's payments role", 4 * kDay, 10, false},
        {"Thank-you e-mail after the video call", -6 * kDay, 1, true},
        {"Finish the take-home exercise", -9 * kDay, 6, true},
    };
    for (const R& r : list) {
      at(std::min(now_ + r.due, now_) - 3 * kDay);
      std::int64_t due = (now_ + r.due) / kHour * kHour;  // on the hour; past stays past
      json v = {{"title", r.title}, {"due_at", format_time(due)}};
      if (r.app >= 0) v["application_id"] = app_ids_[r.app];
      std::int64_t id = make("reminders", v);
      if (r.done) {
        at(due);
        must(apps_.set_done(owner_, id, true), "reminder done");
      }
    }
  }

  void notes() {
    at(office(20));
    make("notes", {{"body", "Ingrid mentioned they are moving the search stack to Rust next year."},
                   {"company_id", company_ids_[0]}});
    make("notes", {{"body", "Salary band confirmed by the recruiter: 650–780k SEK."},
                   {"application_id", app_ids_[0]}});
    at(office(4));
    make("notes", {{"body", "Ask about the relocation package before deciding."},
                   {"application_id", app_in("offer")}});
    make("notes", {{"body", "Closes soon — tailor the cover letter to search relevance."},
                   {"listing_id", listing_ids_[20]}});
    domain::NewEvent call;
    call.kind = "call";
    call.summary = "Phone call with Katrin about the routing team";
    call.body = "Team of six, on-call one week in eight.";
    at(office(10));
    add(app_in("screening"), call);
  }

  const std::int64_t now_;
  const std::string today_;
  FakeClock story_;
  domain::Records records_;
  domain::Applications apps_;
  const std::int64_t owner_;
  std::mt19937 rng_;  // raw draws only: distributions differ between libraries
  std::vector<std::int64_t> company_ids_, contact_ids_, listing_ids_, tag_ids_, app_ids_;
  std::vector<std::string> app_status_;
};

}  // namespace

void load_demo(store::Db& db, const Clock& clock, std::int64_t owner) {
  Story(db, clock, owner).tell();
}

int cmd_demo(App& app, const std::string& email, bool password_stdin, std::istream& password_in) {
  std::string password;
  if (password_stdin) {
    auto read = read_password(password_in, true, email);
    if (!read) return 2;
    password = std::move(*read);
  } else {
    password = random_token(9);  // 18 hex characters
  }
  if (!domain::normalise_email(email)) {
    std::cerr << "peto: --email: expected an e-mail address such as name@example.com\n";
    return 2;
  }
  if (int rc = app.open_db(App::Reach::create); rc != 0) return rc;
  auto applied = store::Migrator(*app.db, migrations()).apply();
  if (!applied) {
    std::cerr << "peto: " << applied.status().message() << "\n";
    return 1;
  }
  domain::Accounts accounts(*app.db, *app.clock);
  if (accounts.find_by_email(email)) {
    std::cerr << "peto: an account for " << email
              << " exists already; choose another with --email\n";
    return 2;
  }
  auto made = accounts.create(email, password, /*admin=*/false);
  if (auto* errors = std::get_if<domain::FieldErrors>(&made)) {
    const auto& [field, key] = *errors->by_field.begin();
    std::cerr << "peto: " << field << ": "
              << (key == "error_password_short" ? "the password must have at least 12 characters"
                  : key == "error_email_taken"  ? "an account with this address exists already"
                                                : key)
              << "\n";
    return 2;
  }
  const domain::Account& account = std::get<domain::Account>(made);
  load_demo(*app.db, *app.clock, account.id);

  store::Db& db = *app.db;
  app.say_database();
  std::cout << "demo data loaded: " << domain::count_owned(db, "companies", account.id)
            << " companies, " << domain::count_owned(db, "contacts", account.id) << " contacts, "
            << domain::count_owned(db, "listings", account.id) << " listings, "
            << domain::count_owned(db, "applications", account.id) << " applications, "
            << domain::count_owned(db, "reminders", account.id) << " reminders, "
            << domain::count_owned(db, "interviews", account.id) << " interviews, "
            << domain::count_owned(db, "offers", account.id) << " offer(s)\n";
  if (!password_stdin) std::cout << "password: " << password << "\n";
  std::cout << account.email << "\n";
  return 0;
}

}  // namespace peto::app
