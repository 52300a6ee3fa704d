#include "env/store_lock.hpp"

#include "util/fs.hpp"

namespace envbisect {

std::string store_runs_lock_path(const std::string& root) {
  return root + "/runs.lock";
}

const std::string& StoreInUse::prepared(const std::string& path) {
  make_dirs(parent_dir(path));
  return path;
}

StoreInUse::StoreInUse(const std::string& root)
    : m_lock(prepared(store_runs_lock_path(root)), LockMode::shared, LockWait::yes) {}

}  // namespace envbisect
