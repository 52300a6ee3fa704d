#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "env/wheel_source.hpp"
#include "util/fd.hpp"

namespace envbisect {

// Whether a lock is shared (many materializations) or exclusive (one unpack, or gc).
enum class LockMode { shared, exclusive };

// Whether taking a lock waits for it or gives up at once.
enum class LockWait { yes, no };

// An flock(2) on a file, released on destruction (and by the kernel when the process dies).
class FileLock {
public:
  // Open (creating) `path` and lock it. Throw Error (environment) when the file cannot be opened.
  FileLock(const std::string& path, LockMode mode, LockWait wait);
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  // Return true when the lock is held (always after a waiting lock).
  bool held() const { return m_held; }

private:
  UniqueFd m_fd;  // closing it releases the flock
  bool m_held = false;
};

// One distribution unpacked in the store: ROOT/v1/dists/ID/{site,scripts,data}/, manifest, entry.json.
struct StoreEntry {
  std::string dir;         // the entry folder
  std::string id;          // "NAME-VERSION-HASH24": content-addressed by the wheel's sha256 or the uv archive's RECORD
  std::string name;        // PEP 503 normalised
  std::string version;     // as the source wrote it
  std::string dist_info;   // the dist-info folder name inside site/
  bool unpacked_now = false;  // true when this call unpacked it (a cold store)
  std::vector<std::string> repaired;  // files found changed since the unpack (then unpacked anew)
};

// What `Store::verify` found wrong with one entry or shared environment.
struct Damage {
  std::string what;                 // "dists/ID" or "envs/KEY"
  std::vector<std::string> files;   // relative paths changed, added or removed (at most 20)
};

// What `Store::gc` removed and kept.
struct GcReport {
  std::vector<std::string> removed;   // entry ids
  std::size_t kept = 0;
  std::size_t stale_temps_removed = 0;
  std::size_t skeletons_removed = 0;
  std::size_t envs_removed = 0;        // shared environments (STORE/envs) not used for the period
  std::size_t envs_kept_in_use = 0;    // shared environments kept because a running run holds the store
};

// Called with an unpacking distribution's site folder before the store writes its manifest and seals
// it: what it adds there (compiled bytecode) becomes part of the entry, linked, hashed and checked.
using BeforeSeal = std::function<void(const std::string& site_dir)>;

// The content-addressed store of unpacked distributions shared by every run on the machine. Each
// distribution is unpacked once, into a temp folder renamed into place under a per-entry lock, so a
// visible entry is always complete; materializations hold the store's shared lock, gc the exclusive one.
class Store {
public:
  // Open the store at `root`, creating its folders. Throw Error (environment) when it cannot.
  explicit Store(std::string root);

  // Return the store's root folder.
  const std::string& root() const { return m_root; }

  // Return the folder remembering wheel files' sha256 by their identity (wheel_sha256's index).
  std::string index_dir() const;

  // Return the path of the lock that materializations share and gc takes exclusively.
  std::string gc_lock_path() const;

  // Return the sha256 of what `dist` holds: a wheel's bytes (remembered by the file's identity in
  // index_dir()), or for a uv archive the hash of its RECORD, which lists every file's sha256.
  // Throw Error (bad_input) naming the source when it cannot be read.
  std::string content_hash(const Distribution& dist) const;

  // Return the entry for `dist`, unpacking it first when the store lacks it (removing what an
  // interrupted unpack of the same entry left behind) or when a file of it changed since the unpack
  // (a stat check against ENTRY/identity; the changed files are named in `repaired`), and mark it
  // used now. Unpacked wheel files are made read-only (a benchmark appending to one fails) and their
  // sha256 kept in ENTRY/hashes for `verify`; `before_seal`, when given, runs on the new entry's
  // site folder first. The entry's files are flushed with one fdatasync, of its identity record, not
  // one per file. Safe to call from several threads for different distributions. Throw Error
  // (bad_input) naming the source when it is not a valid wheel or archive (then nothing is left in
  // the store), Error (environment) when the store cannot be written, and what `before_seal` throws.
  StoreEntry ensure(const Distribution& dist, const BeforeSeal& before_seal = nullptr);

  // Return the folder holding a bare venv made by `interpreter` (its real path) of Python `version`,
  // making it once with `make(temp_dir)`; the file "origin" in it holds the path it was made at.
  // Throw what `make` throws (then nothing is kept).
  std::string skeleton(const std::string& interpreter, const std::string& version,
                       const std::function<void(const std::string&)>& make);

  // Hash every file of every entry against ENTRY/hashes and compare every shared environment
  // (STORE/envs) with the identity recorded when it was built; return what differs (empty: intact).
  std::vector<Damage> verify();

  // Remove entries, venv skeletons and shared environments (STORE/envs, by the time of their
  // envbisect-built.json, touched at each use) not used for `older_than`, and temp folders of
  // interrupted unpacks; waits for running materializations to finish first, skips an environment
  // another run is building (its lock is held), and keeps every environment while a run holds the
  // store (store_lock.hpp). Return what was done.
  GcReport gc(std::chrono::seconds older_than);

private:
  std::string temp_dir_for(const std::string& id) const;
  std::string m_root;
};

// Record the identity (file_identity) of the environment at `env_dir` in ENV/envbisect-identity.
// Throw Error (environment) when it cannot be written.
void record_environment_identity(const std::string& env_dir);

// Return the files of the environment at `env_dir` changed, added or removed since
// record_environment_identity (at most 20), bytecode included except .pyc files Python added;
// {"envbisect-identity"} when none was recorded, or one by an older envbisect that left bytecode out.
std::vector<std::string> environment_changes(const std::string& env_dir);

// Return the default store root: $XDG_CACHE_HOME/envbisect/store, else ~/.cache/envbisect/store.
std::string default_store_dir();

// Return true when `path` is an existing regular file.
bool path_is_file(const std::string& path);

}  // namespace envbisect
