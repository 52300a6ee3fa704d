#pragma once

#include <string>

#include "env/store.hpp"

namespace envbisect {

// Return the path of the lock that every running `run` holds shared on the store at `root`, and that
// `store gc` tries exclusively: while any run holds it, gc keeps every shared environment.
std::string store_runs_lock_path(const std::string& root);

// A running run's shared hold on the store at `root` (created when missing), for as long as it lives;
// the kernel drops it when the process dies.
class StoreInUse {
public:
  // Take the shared hold, waiting while `store gc` runs. Throw Error (environment) when the store's
  // folder or lock file cannot be created.
  explicit StoreInUse(const std::string& root);

private:
  static const std::string& prepared(const std::string& path);
  FileLock m_lock;
};

}  // namespace envbisect
