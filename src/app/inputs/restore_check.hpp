#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/state.hpp"
#include "env/index_source.hpp"
#include "env/wheel_source.hpp"

namespace envbisect {

// Where one pinned package of one state can be restored from.
struct RestoreSource {
  std::string state_path;   // the state file that pins it
  std::string name;
  std::string version;      // as pinned, local label included
  std::string where;        // "wheel PATH", "uv cache archive PATH (...)", "index URL (sha256 HEX)"; "" when missing
  bool from_index = false;  // the build is to be downloaded
  IndexFile file;           // when from_index: the file chosen
  std::string sha256;       // when from_index: the sha256 the download must have ("" when none is known)
  std::string missing;      // why it cannot be restored; "" when it can
  std::vector<std::string> others{};  // other builds of this version with other content, not taken (no sha256 pinned)
};

// The sources of every package of both states, in state then name order.
struct RestorePlan {
  std::vector<RestoreSource> sources;
  std::vector<RestoreSource> inner;        // builds an index lists between a package's two ends (for refinement)
  std::vector<std::string> download_dirs;  // store download folders already holding a build of the states'
};

// Return the store's download area for wheels fetched from indexes (STORE/v1/downloads).
std::string downloads_dir_of(const std::string& store_root);

// Return, for each package pinned by `good` and `bad` (unless it runs its interpreter as is), where
// its exact build (version and local label; file name and sha256 when pinned) comes from: the wheel
// folders, the wheels already downloaded into `downloads_dir`, the uv caches, then `index` (may be
// null: offline). With an index, also the builds it lists strictly between each package's good and
// bad versions that no local source has (one per public version, as the versions axis takes them),
// so that refinement can install them. Throw one Error (bad_input) listing every package that cannot be restored, naming
// each state file and /packages/NAME, what exists instead and every place looked in; throw what the
// index throws when a page cannot be read.
RestorePlan check_restore(const EnvState& good, const std::string& good_path, const EnvState& bad,
                          const std::string& bad_path, const WheelSources& local, const std::string& downloads_dir,
                          PackageIndex* index);

// Print one line per package and state: "restore: STATE /packages/NAME VERSION <- WHERE" (naming
// the other builds of that version when there are: the state's sha256 would choose), then one
// per inner build: "refine: /packages/NAME VERSION <- WHERE".
void print_restore_plan(const RestorePlan& plan, std::ostream& out);

// Download every build the plan takes from an index (ends and inner builds) into `downloads_dir` (once: present files are
// kept), verifying its sha256, and return the folders holding them and plan.download_dirs, each once.
// Throw what download_index_file throws (a mismatch names the file, expected and got), having
// removed what this call downloaded: a run that cannot start leaves the store as it found it.
std::vector<std::string> fetch_restore_downloads(const RestorePlan& plan, const std::string& downloads_dir,
                                                 const HttpLimits& limits, std::ostream& out);

// Where a run's packages may come from: the run options that restore_packages reads.
struct RestoreRequest {
  std::string good_path;                // the state files, named in messages
  std::string bad_path;
  std::vector<std::string> wheel_dirs;  // --wheels
  std::vector<std::string> uv_caches;   // --uv-cache
  std::string store_dir;                // --store; "" means the default
  std::vector<std::string> index_urls;  // --index-url
  std::vector<std::string> find_links;  // --find-links: folders or URLs of pages of wheel links
  bool offline = false;                 // --offline: no index is asked
  long index_timeout_s = 60;            // connect and stall limit of every index request, whole page transfer
  long download_timeout_s = 3600;       // --download-timeout: the whole transfer of one downloaded file
  long max_download_gib = 8;            // --max-download-gib: the largest file downloaded from an index
  bool dry_run = false;                 // --dry-run: plan the downloads, fetch nothing
};

// What a run learned of its package sources before it started.
struct RestoreInputs {
  RestorePlan plan;
  std::vector<std::string> shown_index_urls;  // --index-url and --find-links URLs, credentials redacted
  // The wheel folders to build from: the request's, then the --find-links folders and the download
  // folders, each once.
  std::vector<std::string> wheel_dirs;
};

// Check that every package of both states can be restored from the request's sources (--wheels,
// --find-links folders and pages, the store's downloads, --uv-cache, --index-url unless --offline)
// and, unless --dry-run, download what comes from an index; the wheel folders to build from (the
// download folders and the --find-links folders added) are returned. Throw one Error (bad_input)
// listing every problem (a --find-links folder that is not one, every missing build), or what the
// index throws.
RestoreInputs restore_packages(const RestoreRequest& request, const EnvState& good, const EnvState& bad);

}  // namespace envbisect
