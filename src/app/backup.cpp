#include <iostream>

#include "app/app.h"

namespace peto::app {

int cmd_backup(App&, const std::string&) {
  std::cerr << "peto: not built yet\n";
  return 1;
}

int cmd_restore(App&, const std::string&, bool, bool) {
  std::cerr << "peto: not built yet\n";
  return 1;
}

}  // namespace peto::app
