#include <iostream>

#include "app/app.h"

namespace peto::app {

int cmd_verify_media(App&) {
  std::cerr << "peto: not built yet\n";
  return 1;
}

int cmd_prune_media(App&, bool) {
  std::cerr << "peto: not built yet\n";
  return 1;
}

}  // namespace peto::app
