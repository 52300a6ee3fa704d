#pragma once

namespace envbisect {

// The git commit envbisect was built from (`git describe --always --dirty`), or "unknown" outside git.
extern const char* const k_build_commit;

}  // namespace envbisect
