#include "app/inputs/restore_check.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <spdlog/spdlog.h>

#include "core/json_input.hpp"
#include "core/version.hpp"
#include "core/wheel_name.hpp"
#include "env/requirement.hpp"
#include "env/store.hpp"
#include "util/fs.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/words.hpp"

namespace envbisect {

namespace {

// Return the download folders holding a wheel of one of `names` (each folder holds one file).
std::vector<std::string> download_dirs_for(const std::string& downloads_dir, const std::vector<std::string>& names) {
  std::vector<std::string> dirs;
  for (const std::string& key : list_dir(downloads_dir)) {
    for (const std::string& file : list_dir(downloads_dir + "/" + key)) {
      const auto wheel = parse_wheel_name(file);
      if (wheel && std::find(names.begin(), names.end(), wheel->name) != names.end()) {
        dirs.push_back(downloads_dir + "/" + key);
        break;
      }
    }
  }
  return dirs;
}

// Return why the local sources lack a build, worded as the offline check always was.
std::string local_missing(const WheelSources& sources, const std::string& name, const PackagePin& pin,
                          const WheelPin& wheel_pin, const std::string& python_version) {
  if (!wheel_pin.empty()) {
    return describe_missing_pin(sources, name, pin.version, wheel_pin, python_version);
  }
  std::vector<std::string> found;
  for (const Distribution& other : list_distributions(sources, name)) {
    if (std::find(found.begin(), found.end(), other.version) == found.end()) {
      found.push_back(other.version);
    }
  }
  if (const std::vector<std::string> misfits = misfit_builds(sources, name, pin.version, python_version);
      !misfits.empty()) {
    // The version is there, only built for another interpreter or platform: say so and why, not "missing".
    return name + "==" + pin.version + " has no wheel this state's Python " +
           (python_version.empty() ? std::string("(unknown version)") : python_version) +
           " can install; the builds found are for another interpreter or platform: " + join(misfits, "; ");
  }
  std::string text = name + "==" + pin.version + " is in no wheel folder or uv cache" +
                     (found.empty() ? " (no build of " + name + " at all)" : " (found: " + join(found, ", ") + ")");
  if (const std::vector<std::string> unreadable = unreadable_wheel_files(sources, name); !unreadable.empty()) {
    text += "; not read: " + join(unreadable, "; ");
  }
  return text;
}

// Return "NAME: V1, V2" with the versions of NAME the sources hold nearest to `version` (at most
// three, the closest in PEP 440 order first), or "" when they hold none.
std::string nearest_builds(const WheelSources& sources, const std::string& name, const std::string& version) {
  std::vector<std::string> versions;
  for (const Distribution& dist : list_distributions(sources, name)) {
    if (std::find(versions.begin(), versions.end(), dist.version) == versions.end()) {
      versions.push_back(dist.version);
    }
  }
  if (versions.empty()) {
    return "";
  }
  const std::optional<Version> wanted = Version::parse(version);
  std::vector<std::pair<std::size_t, std::string>> ranked;  // position away from the wanted one, version
  std::vector<std::pair<Version, std::string>> parsed;
  for (const std::string& text : versions) {
    if (const auto v = Version::parse(text)) {
      parsed.emplace_back(*v, text);
    }
  }
  std::sort(parsed.begin(), parsed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t at = 0;
  while (wanted && at < parsed.size() && parsed[at].first < *wanted) {
    ++at;
  }
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    ranked.emplace_back(i < at ? at - i - 1 : i - at, parsed[i].second);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < ranked.size() && i < 3; ++i) {
    shown.push_back(ranked[i].second);
  }
  return name + " " + join(shown, ", ");
}

// Return the note naming the builds of one version that were not taken.
std::string other_builds_note(const RestoreSource& source) {
  return "also " + join(source.others, ", ") + ": the same version with other bytes (or not known to be the same), " +
         "not taken; pin a sha256 in " + source.state_path + " /packages/" + source.name + " to choose";
}

}  // namespace

std::string downloads_dir_of(const std::string& store_root) { return store_root + "/v1/downloads"; }

RestorePlan check_restore(const EnvState& good, const std::string& good_path, const EnvState& bad,
                          const std::string& bad_path, const WheelSources& local, const std::string& downloads_dir,
                          PackageIndex* index) {
  RestorePlan plan;
  std::vector<std::string> names;
  for (const EnvState* state : {&good, &bad}) {
    for (const auto& [name, pin] : state->packages) {
      names.push_back(normalize_package_name(name));
    }
  }
  // Hashes of wheel files are remembered where the store keeps them (Store::index_dir).
  const std::string index_dir = downloads_dir.empty() ? std::string() : parent_dir(downloads_dir) + "/index";
  // Wheels an earlier run downloaded are local now: never fetched again, usable offline.
  plan.download_dirs = download_dirs_for(downloads_dir, names);
  WheelSources sources = local;
  sources.wheel_dirs.insert(sources.wheel_dirs.end(), plan.download_dirs.begin(), plan.download_dirs.end());
  // Every folder and cache listed once: each package is then a hash probe (a plan stays linear).
  sources = index_sources(std::move(sources));
  std::vector<std::string> nearest;  // per missing package, the builds of it that are there
  Problems good_problems(good_path);
  Problems bad_problems(bad_path);
  for (auto [state, path, problems] :
       {std::tuple{&good, &good_path, &good_problems}, std::tuple{&bad, &bad_path, &bad_problems}}) {
    if (state->python.use_as_is) {
      continue;  // nothing is installed: the interpreter runs as it is
    }
    for (const auto& [name, pin] : state->packages) {
      RestoreSource source{*path, name, pin.version, "", false, {}, "", "", {}};
      const WheelPin wheel_pin{pin.wheel.value_or(""), pin.sha256.value_or(""), pin.hashes};
      if (const auto dist = find_distribution(sources, name, pin.version, state->python.version, wheel_pin)) {
        source.where = describe(*dist);
        // Two files of one version with other bytes: the state does not say which it meant.
        if (wheel_pin.empty()) {
          source.others = other_builds(sources, *dist, state->python.version, index_dir);
        }
      } else {
        source.missing = local_missing(sources, name, pin, wheel_pin, state->python.version);
        if (index != nullptr) {
          const IndexChoice choice =
              choose_index_file(index->files(name), name, pin.version, state->python.version, wheel_pin);
          if (choice.found) {
            source.from_index = true;
            source.file = choice.file;
            source.sha256 = wheel_pin.sha256.empty() ? choice.file.sha256 : wheel_pin.sha256;
            source.where = "index " + display_url(choice.file.url) +
                           (source.sha256.empty() ? " (the index gives no sha256)" : " (sha256 " + source.sha256 + ")");
            source.missing.clear();
            if (wheel_pin.sha256.empty()) {
              source.others = choice.others;
            }
          } else {
            source.missing += "; " + choice.reason + " (looked in " + join(index->pages_for(name), ", ") + ")";
          }
        }
      }
      if (!source.missing.empty()) {
        problems->add("/packages/" + pointer_token(name), source.missing);
        nearest.push_back(nearest_builds(sources, name, pin.version));
      }
      plan.sources.push_back(std::move(source));
    }
  }
  // Every package that cannot be restored is named at once, before anything runs; the hint says what
  // builds there are of them and where more can come from.
  good_problems.absorb(bad_problems);
  try {
    good_problems.throw_if_any();
  } catch (const Error& error) {
    std::vector<std::string> seen;
    for (const std::string& builds : nearest) {
      if (!builds.empty() && std::find(seen.begin(), seen.end(), builds) == seen.end()) {
        seen.push_back(builds);
      }
    }
    const std::string builds = seen.empty() ? std::string("no build of these packages is in the wheel folders or uv caches")
                                            : "nearest builds found: " + join(seen, "; ");
    throw Error(with_hint(error.what(), builds + "; give the folder holding the wanted wheels with --wheels DIR" +
                                            (index == nullptr ? ", or an index with --index-url URL (not with --offline)"
                                                              : "")),
                error.code());
  }
  if (index != nullptr && !good.python.use_as_is && !bad.python.use_as_is) {
    // The versions axis refines between the ends with the builds it can install: the index's count too.
    for (const auto& [name, good_pin] : good.packages) {
      const auto bad_pin = bad.packages.find(name);
      if (bad_pin == bad.packages.end() || bad_pin->second.version == good_pin.version) {
        continue;
      }
      for (const IndexVersion& build : index_versions_between(index->files(name), name, good_pin.version,
                                                              bad_pin->second.version, bad.python.version)) {
        if (find_distribution(sources, name, build.version, bad.python.version)) {
          continue;
        }
        RestoreSource source{"", name, build.version, "", true, build.file, build.file.sha256, "", {}};
        source.where = "index " + display_url(build.file.url) +
                       (source.sha256.empty() ? " (the index gives no sha256)" : " (sha256 " + source.sha256 + ")");
        plan.inner.push_back(std::move(source));
      }
    }
  }
  return plan;
}

void print_restore_plan(const RestorePlan& plan, std::ostream& out) {
  for (const RestoreSource& source : plan.sources) {
    out << "restore: " << source.state_path << " /packages/" << source.name << " " << source.version << " <- "
        << source.where << "\n";
    if (!source.others.empty()) {
      out << "  (" << other_builds_note(source) << ")\n";
    }
  }
  for (const RestoreSource& source : plan.inner) {
    out << "refine: /packages/" << source.name << " " << source.version << " <- " << source.where << "\n";
  }
}

std::vector<std::string> fetch_restore_downloads(const RestorePlan& plan, const std::string& downloads_dir,
                                                 const HttpLimits& limits, std::ostream& out) {
  std::vector<std::string> dirs = plan.download_dirs;
  std::vector<std::string> fetched_now;
  try {
    std::vector<const RestoreSource*> wanted;
    for (const std::vector<RestoreSource>* list : {&plan.sources, &plan.inner}) {
      for (const RestoreSource& source : *list) {
        wanted.push_back(&source);
      }
    }
    for (const RestoreSource* entry : wanted) {
      const RestoreSource& source = *entry;
      if (!source.from_index) {
        continue;
      }
      const std::string path = download_index_file(source.file, source.sha256, downloads_dir, limits);
      const std::string dir = path.substr(0, path.rfind('/'));
      if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) {
        out << "envbisect: " << source.name << " " << source.version << ": " << source.file.filename << " in " << dir
            << "\n";
        dirs.push_back(dir);
        fetched_now.push_back(dir);
      }
    }
  } catch (const Error&) {
    // All or nothing: a run that cannot start leaves the store as it found it.
    for (const std::string& dir : fetched_now) {
      if (std::find(plan.download_dirs.begin(), plan.download_dirs.end(), dir) == plan.download_dirs.end()) {
        remove_tree(dir);
      }
    }
    throw;
  }
  return dirs;
}

RestoreInputs restore_packages(const RestoreRequest& request, const EnvState& good, const EnvState& bad) {
  RestoreInputs inputs;
  inputs.wheel_dirs = request.wheel_dirs;
  IndexSettings settings;
  settings.index_urls = request.index_urls;
  settings.limits.connect_timeout_s = request.index_timeout_s;
  settings.limits.stall_timeout_s = request.index_timeout_s;
  settings.limits.page_timeout_s = request.index_timeout_s;
  settings.limits.download_timeout_s = request.download_timeout_s;
  settings.limits.max_download_bytes = static_cast<unsigned long long>(request.max_download_gib) << 30;
  std::vector<std::string> problems;
  // A --find-links folder is a wheel folder; a URL is a page of links to wheels.
  for (const std::string& link : request.find_links) {
    if (starts_with(link, "http://") || starts_with(link, "https://")) {
      settings.find_links_urls.push_back(link);
      continue;
    }
    const std::string dir = starts_with(link, "file://") ? link.substr(7) : link;
    std::error_code error;
    if (!std::filesystem::is_directory(dir, error)) {
      problems.push_back("--find-links " + display_url(link) + ": not a readable directory nor an http(s) URL");
      continue;
    }
    inputs.wheel_dirs.push_back(absolute_path(dir, "."));
  }
  if (!problems.empty()) {
    throw Error(join(problems, "\n"), ExitCode::bad_input);
  }
  for (const std::string& url : settings.index_urls) {
    inputs.shown_index_urls.push_back(display_url(url));
  }
  for (const std::string& url : settings.find_links_urls) {
    inputs.shown_index_urls.push_back(display_url(url));
  }
  const std::string store_root = absolute_path(request.store_dir.empty() ? default_store_dir() : request.store_dir, ".");
  const std::string downloads = downloads_dir_of(store_root);
  sweep_partial_downloads(downloads);  // what a killed run left half-downloaded goes at the next start
  std::optional<PackageIndex> index;
  if (!request.offline && !settings.empty()) {
    index.emplace(settings);
  }
  inputs.plan = check_restore(good, request.good_path, bad, request.bad_path,
                              WheelSources{inputs.wheel_dirs, request.uv_caches}, downloads, index ? &*index : nullptr);
  // A choice the states leave open is said on every run, not only with --dry-run.
  for (const RestoreSource& source : inputs.plan.sources) {
    if (!source.others.empty()) {
      spdlog::warn("{} {} <- {} ({})", source.name, source.version, source.where, other_builds_note(source));
    }
  }
  // At this point every pinned build has a source; downloads wait until the plan is wanted.
  std::vector<std::string> dirs = inputs.plan.download_dirs;
  if (!request.dry_run) {
    dirs = fetch_restore_downloads(inputs.plan, downloads, settings.limits, std::cout);
  }
  for (const std::string& dir : dirs) {
    if (std::find(inputs.wheel_dirs.begin(), inputs.wheel_dirs.end(), dir) == inputs.wheel_dirs.end()) {
      inputs.wheel_dirs.push_back(dir);
    }
  }
  return inputs;
}

}  // namespace envbisect
