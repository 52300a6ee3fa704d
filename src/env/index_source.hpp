#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "env/index_http.hpp"
#include "env/index_page.hpp"
#include "env/wheel_source.hpp"

namespace envbisect {

// Where wheels may be fetched from: simple repository API indexes and find-links pages, in the order given.
struct IndexSettings {
  std::vector<std::string> index_urls;      // --index-url, repeatable (e.g. one per CUDA flavour)
  std::vector<std::string> find_links_urls; // --find-links URL: pages of anchors to wheels
  HttpLimits limits;
  bool empty() const { return index_urls.empty() && find_links_urls.empty(); }
};

// The file chosen for an exact build, or why there is none.
struct IndexChoice {
  bool found = false;
  IndexFile file;      // when found
  std::string reason;  // when not found: what the indexes offered and why none fits
  std::vector<std::string> others{};  // when found: URLs of files that tie with it, not known to hold the same bytes
};

// Return the wheel among `files` that is `name`==`version` exactly (PEP 440 normalised, local label
// included), matches the pin (file name, sha256 when the index gives one) and fits CPython
// `python_version` on Linux x86_64 best (wheel_tag_score; "" accepts every interpreter); the first
// listed wins ties, and the tied files at other URLs whose sha256 is not known to be the same are
// named in `others` (two indexes listing one version with different bytes). Otherwise say why: no
// such version (naming the versions offered), only sdists, or each wheel's misfit.
IndexChoice choose_index_file(const std::vector<IndexFile>& files, std::string_view name, std::string_view version,
                              std::string_view python_version, const WheelPin& pin);

// One build an index lists between the two ends of a package's change.
struct IndexVersion {
  std::string version;  // normalised, local label included
  IndexFile file;       // the wheel that fits best
};

// Return, in PEP 440 order from `good` towards `bad`, one build of each public version that `files`
// list strictly between the two (none when only the local label changes: a variant, not an order):
// the bad end's local label, else the good end's, else none, else the first; with the wheel that
// fits CPython `python_version` best. Versions without a fitting wheel are left out.
std::vector<IndexVersion> index_versions_between(const std::vector<IndexFile>& files, std::string_view name,
                                                 std::string_view good, std::string_view bad,
                                                 std::string_view python_version);

// Fetch a page given its URL; the real one is http_get_page, tests give a scripted one.
using PageFetcher = std::function<HttpPage(const std::string& url)>;

// The indexes and find-links pages of a run, each page fetched at most once.
class PackageIndex {
public:
  // Use `settings`; pages come through `fetch` (default: http_get_page with the settings' limits).
  explicit PackageIndex(IndexSettings settings, PageFetcher fetch = nullptr);

  // Return the settings given.
  const IndexSettings& settings() const { return m_settings; }

  // Return every file of project `name` listed by the indexes (their project page; a 404 there means
  // the index lacks it) and the find-links pages, in the order of the settings. Throw Error
  // (bad_input) naming the page (credentials redacted) when one cannot be fetched, answers another
  // error status, or is not an index page.
  const std::vector<IndexFile>& files(const std::string& name);

  // Return the pages looked in for `name`, credentials redacted, for messages.
  std::vector<std::string> pages_for(const std::string& name) const;

private:
  std::optional<std::vector<IndexFile>> page_files(const std::string& url);  // nullopt on 404
  IndexSettings m_settings;
  PageFetcher m_fetch;
  std::map<std::string, std::vector<IndexFile>> m_by_name;
  std::map<std::string, std::vector<IndexFile>> m_find_links;  // by page URL
};

// Remove the partial downloads (".NAME.tmpPID-N" files one folder below `downloads_dir`) whose writer
// no longer runs: what a killed envbisect left. Return how many were removed.
std::size_t sweep_partial_downloads(const std::string& downloads_dir);

// Return the path of `file` in `downloads_dir`, downloading it first when it is not there (into a
// temp file renamed into place, so a present file is complete), under a folder named by
// `expected_sha256` (the pin's or the index's; by the URL when neither gives one). Throw Error
// (bad_input) naming the file, the expected and the received sha256 when they differ (nothing is
// kept), or naming the URL (credentials redacted) when the download fails. The partial file is
// removed on every way out; the first call of a process sweeps what killed ones left
// (sweep_partial_downloads).
std::string download_index_file(const IndexFile& file, const std::string& expected_sha256,
                                const std::string& downloads_dir, const HttpLimits& limits);

}  // namespace envbisect
