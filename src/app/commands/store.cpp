#include "app/commands/store.hpp"

#include <chrono>
#include <ostream>

#include "env/store.hpp"
#include "util/fs.hpp"

namespace envbisect {

ExitCode run_store_gc(const StoreGcOptions& options, std::ostream& out) {
  // NaN fails every comparison, so the test is written to let only finite, sane ages through; the
  // ceiling keeps the age in seconds, and later in nanoseconds, far from int64 overflow.
  const double days = options.older_than_days;
  if (!(days >= 0 && days <= k_max_gc_age_days)) {
    throw Error("--older-than: expected a number of days from 0 to " + std::to_string(k_max_gc_age_days) +
                    " (100 years)",
                ExitCode::bad_input);
  }
  const std::string root = options.store_dir.empty() ? default_store_dir() : options.store_dir;
  if (!path_exists(root)) {
    throw Error(root + ": no store here", ExitCode::bad_input);
  }
  Store store(root);
  const auto age = std::chrono::seconds(static_cast<long long>(days * 86400.0));
  const GcReport report = store.gc(age);
  for (const std::string& id : report.removed) {
    out << "removed " << id << "\n";
  }
  out << "store " << store.root() << ": removed " << report.removed.size() << " entries, kept " << report.kept
      << "; removed " << report.skeletons_removed << " venv skeletons, " << report.envs_removed
      << " shared environments and " << report.stale_temps_removed << " unfinished unpacks\n";
  if (report.envs_kept_in_use > 0) {
    out << "kept " << report.envs_kept_in_use << " shared environments: a running envbisect run holds the store\n";
  }
  return ExitCode::ok;
}

ExitCode run_store_verify(const StoreVerifyOptions& options, std::ostream& out) {
  const std::string root = options.store_dir.empty() ? default_store_dir() : options.store_dir;
  if (!path_exists(root)) {
    throw Error(root + ": no store here", ExitCode::bad_input);
  }
  Store store(root);
  const std::vector<Damage> damage = store.verify();
  for (const Damage& d : damage) {
    out << "damaged " << d.what << ":";
    for (const std::string& file : d.files) {
      out << " " << file;
    }
    out << "\n";
  }
  out << "store " << store.root() << ": " << (damage.empty() ? "intact" : std::to_string(damage.size()) + " damaged")
      << "\n";
  return damage.empty() ? ExitCode::ok : ExitCode::inconclusive;
}

}  // namespace envbisect
