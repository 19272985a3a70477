// Connects the layers that must not know each other, once per program: the
// domain's events (domain/events.h) go to the announcer (notify/), which sits
// above the domain. Compiled into every program that links peto_lib (the
// peto binary, the tests, the benchmarks), so none can forget it.
#include "notify/domain_events.h"

namespace {

const bool installed = [] {
  peto::notify::install_event_sink();
  return true;
}();

}  // namespace
