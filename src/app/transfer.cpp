#include <iostream>

#include "app/app.h"

namespace peto::app {

int cmd_export(App&, const std::string&, const std::string&) {
  std::cerr << "peto: not built yet\n";
  return 1;
}

int cmd_import(App&, const std::string&, const std::string&, bool) {
  std::cerr << "peto: not built yet\n";
  return 1;
}

}  // namespace peto::app
