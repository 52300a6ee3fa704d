#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace envbisect {

// Whether a RecordSeal may create its run's key when there is none yet.
enum class CreateKey { yes, no };

// Binds records to one run folder: an HMAC-SHA256 of each record and the folder's real path, under a
// per-run key kept outside the folder ($XDG_STATE_HOME/envbisect/run-keys/, else
// ~/.local/state/envbisect/run-keys/, mode 0600 in a 0700 folder). Whoever can write the run folder
// but not the key cannot forge a record that verifies, nor move one from another run.
class RecordSeal {
public:
  // Load the key of the run in `run_dir` (created when missing and `create` is yes). Throw Error
  // (environment) when a key must be created and cannot be; with CreateKey::no a missing or
  // unreadable key leaves the seal keyless (nothing verifies).
  RecordSeal(const std::string& run_dir, CreateKey create);

  // Return `record` with its "mac" field set. Throw Error (environment) when keyless.
  nlohmann::json seal(nlohmann::json record) const;

  // Return true when `record` carries a "mac" that matches it under this run's key.
  bool verify(const nlohmann::json& record) const;

  // Return true when this run has a key.
  bool has_key() const { return !m_key.empty(); }

  // Return the path of this run's key file.
  const std::string& key_path() const { return m_key_path; }

private:
  std::string mac_of(const nlohmann::json& record) const;

  std::string m_run_id;  // the folder's real path: part of every MAC
  std::string m_key_path;
  std::string m_key;
};

}  // namespace envbisect
