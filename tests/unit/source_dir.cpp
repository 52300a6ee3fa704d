#include "source_dir.hpp"

namespace envbisect {

const char* test_source_dir() {
  return ENVBISECT_SOURCE_DIR_PATH;
}

}  // namespace envbisect
