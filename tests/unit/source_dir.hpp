#pragma once

// The source tree the unit tests read fixtures and scripts from. It reaches the tests through one
// small file (source_dir.cpp) instead of a definition on every test file's command line, so that a
// copy of the tree in another folder (scripts/mutate) compiles every other test file from the same
// ccache entries.

namespace envbisect {

// Return the absolute path of the source tree this test binary was configured from.
const char* test_source_dir();

}  // namespace envbisect

#define ENVBISECT_SOURCE_DIR ::envbisect::test_source_dir()
