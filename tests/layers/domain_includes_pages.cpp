// Must not compile: a domain file that includes a module above it. The test
// layers_upward_include_fails (tests/CMakeLists.txt) builds this against
// peto_domain alone and expects the compiler to find no pages/ header.
#include "pages/site.h"
