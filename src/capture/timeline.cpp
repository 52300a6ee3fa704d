#include "capture/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <regex>

#include "core/version.hpp"
#include "core/wheel_name.hpp"
#include "util/error.hpp"

namespace envbisect {

namespace {

using nlohmann::json;

std::optional<double> number_or_none(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) {
    return std::nullopt;
  }
  return object[key].get<double>();
}

// Return "+11 min" / "+2 h 5 min" / "+3 d 4 h" for a positive duration in seconds.
std::string format_delay(double seconds) {
  const long long minutes = std::llround(seconds / 60.0);
  if (minutes < 60) {
    return "+" + std::to_string(minutes) + " min";
  }
  if (minutes < 24 * 60) {
    return "+" + std::to_string(minutes / 60) + " h " + std::to_string(minutes % 60) + " min";
  }
  return "+" + std::to_string(minutes / (24 * 60)) + " d " + std::to_string((minutes / 60) % 24) + " h";
}

void add_install_events(const json& probe, Timeline& timeline) {
  const json packages_section = probe.value("packages", json::object());
  for (const auto& [key, entry] : packages_section.items()) {
    const std::optional<double> time = number_or_none(entry, "mtime");
    if (!time || !entry.is_object()) {
      continue;
    }
    const std::string installer = entry.contains("installer") && entry["installer"].is_string()
                                      ? entry["installer"].get<std::string>()
                                      : "unknown installer";
    timeline.events.push_back({*time, "install", key + " " + entry.value("version", std::string("?")),
                               installer + ", " + entry.value("dist_info", std::string()), false});
  }
}

void add_cache_events(const json& probe, Timeline& timeline) {
  const json caches_section = probe.value("caches", json::object());
  for (const auto& [name, entry] : caches_section.items()) {
    const std::optional<double> oldest = number_or_none(entry, "oldest");
    const std::optional<double> newest = number_or_none(entry, "newest");
    if (!oldest || !newest) {
      continue;
    }
    const std::string where = entry.value("path", std::string()) + ", " +
                              std::to_string(entry.value("entries", 0)) + " entries, " +
                              std::to_string(entry.value("bytes", 0LL)) + " bytes";
    timeline.events.push_back({*oldest, "cache", name + " oldest entry", where, false});
    timeline.events.push_back({*newest, "cache", name + " newest entry", where, false});
  }
}

void add_checkpoint_events(const json& probe, Timeline& timeline) {
  const json checkpoints = probe.value("checkpoints", json::object());
  for (const json& entry : checkpoints.value("entries", json::array())) {
    const std::optional<double> time = number_or_none(entry, "mtime");
    if (!time) {
      continue;
    }
    TimelineEvent event{*time, "checkpoint", entry.value("name", std::string()),
                        checkpoints.value("path", std::string()), false};
    if (!timeline.newest_checkpoint || event.time > timeline.newest_checkpoint->time) {
      timeline.newest_checkpoint = event;
    }
    timeline.events.push_back(event);
  }
}

// Return the installed version of each package of the probe report, by PEP 503 name.
std::map<std::string, std::string> installed_versions(const json& probe) {
  std::map<std::string, std::string> out;
  const json packages_section = probe.value("packages", json::object());
  for (const auto& [key, entry] : packages_section.items()) {
    if (entry.is_object()) {
      out[key] = entry.value("version", std::string());
    }
  }
  return out;
}

// Return true when `version` differs from `installed` in PEP 440 terms (or either does not parse).
bool other_build(const std::string& version, const std::string& installed) {
  const std::optional<Version> a = Version::parse(version);
  const std::optional<Version> b = Version::parse(installed);
  return !a || !b || a->to_string() != b->to_string();
}

void add_restorable(const json& probe, Timeline& timeline) {
  const std::map<std::string, std::string> installed = installed_versions(probe);
  const json uv = probe.value("uv_cache", json());
  if (uv.is_object()) {
    for (const json& entry : uv.value("dist_infos", json::array())) {
      // archive-v0/<key>/<name>-<version>.dist-info; names have '_' for '-', versions no '-'.
      std::string stem = entry.value("name", std::string());
      stem = stem.substr(0, stem.size() - std::string(".dist-info").size());
      const std::size_t dash = stem.rfind('-');
      if (dash == std::string::npos) {
        continue;
      }
      const std::string package = normalize_package_name(stem.substr(0, dash));
      const std::string version = stem.substr(dash + 1);
      auto it = installed.find(package);
      if (it != installed.end() && Version::parse(version) && other_build(version, it->second)) {
        timeline.restorable.push_back({package, version, "uv-cache", entry.value("path", std::string()),
                                       number_or_none(entry, "mtime")});
      }
    }
  }
  for (const json& folder : probe.value("wheel_dirs", json::array())) {
    for (const json& entry : folder.value("entries", json::array())) {
      const std::optional<WheelName> wheel = parse_wheel_name(entry.value("name", std::string()));
      if (!wheel) {
        continue;
      }
      auto it = installed.find(wheel->name);
      if (it != installed.end() && other_build(wheel->version_text, it->second)) {
        timeline.restorable.push_back({wheel->name, wheel->version_text, "wheel",
                                       folder.value("path", std::string()) + "/" + entry.value("name", std::string()),
                                       number_or_none(entry, "mtime")});
      }
    }
  }
  std::sort(timeline.restorable.begin(), timeline.restorable.end(), [](const RestorableBuild& a, const RestorableBuild& b) {
    if (a.package != b.package) {
      return a.package < b.package;
    }
    const std::optional<Version> va = Version::parse(a.version);
    const std::optional<Version> vb = Version::parse(b.version);
    if (va && vb && !(*va == *vb)) {
      return *va < *vb;
    }
    return std::tie(a.source, a.path) < std::tie(b.source, b.path);
  });
}

// Return the epoch seconds of a broken-down time read as local time, or as UTC minus `offset_seconds`.
double to_epoch(std::tm parts, std::optional<long> offset_seconds) {
  if (!offset_seconds) {
    parts.tm_isdst = -1;
    return static_cast<double>(std::mktime(&parts));
  }
  return static_cast<double>(timegm(&parts) - *offset_seconds);
}

}  // namespace

Timeline build_timeline(const nlohmann::json& probe) {
  Timeline timeline;
  add_install_events(probe, timeline);
  add_cache_events(probe, timeline);
  add_checkpoint_events(probe, timeline);
  std::sort(timeline.events.begin(), timeline.events.end(), [](const TimelineEvent& a, const TimelineEvent& b) {
    return std::tie(a.time, a.kind, a.subject) < std::tie(b.time, b.kind, b.subject);
  });
  // Installs after the last checkpoint are what the known-good run did not have.
  if (timeline.newest_checkpoint) {
    for (TimelineEvent& event : timeline.events) {
      if (event.kind == "install" && event.time > timeline.newest_checkpoint->time) {
        event.after_newest_checkpoint = true;
        event.detail += "; " + format_delay(event.time - timeline.newest_checkpoint->time) +
                        " after the newest checkpoint " + timeline.newest_checkpoint->subject;
      }
    }
  }
  add_restorable(probe, timeline);
  return timeline;
}

std::string format_local_time(double epoch_seconds) {
  const std::time_t seconds = static_cast<std::time_t>(std::floor(epoch_seconds));
  std::tm parts{};
  localtime_r(&seconds, &parts);
  char text[32] = {};
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &parts);
  return text;
}

double parse_as_of(const std::string& text, const Timeline& timeline) {
  static const std::regex k_epoch(R"(@(\d+(\.\d+)?))");
  static const std::regex k_iso(R"((\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(:(\d{2}))?(Z|([+-])(\d{2}):?(\d{2}))?)");
  std::smatch match;
  if (std::regex_match(text, match, k_epoch)) {
    return std::stod(match[1].str());
  }
  if (std::regex_match(text, match, k_iso)) {
    std::tm parts{};
    parts.tm_year = std::stoi(match[1].str()) - 1900;
    parts.tm_mon = std::stoi(match[2].str()) - 1;
    parts.tm_mday = std::stoi(match[3].str());
    parts.tm_hour = std::stoi(match[4].str());
    parts.tm_min = std::stoi(match[5].str());
    parts.tm_sec = match[7].matched ? std::stoi(match[7].str()) : 0;
    std::optional<long> offset;
    if (match[8].matched) {
      offset = 0;
      if (match[9].matched) {
        offset = (std::stol(match[10].str()) * 3600 + std::stol(match[11].str()) * 60) * (match[9].str() == "-" ? -1 : 1);
      }
    }
    return to_epoch(parts, offset);
  }
  for (const TimelineEvent& event : timeline.events) {
    if (event.kind == "checkpoint" && event.subject == text) {
      return event.time;
    }
  }
  throw Error("--as-of '" + text + "': expected @EPOCH, YYYY-MM-DD HH:MM[:SS][Z|+HH:MM] (local time without a "
              "zone) or the name of a checkpoint");
}

Reconstruction reconstruct_as_of(const Capture& current, const Timeline& timeline, double as_of,
                                 const std::map<std::string, std::optional<std::string>>& repo_heads) {
  Reconstruction out;
  out.state = current.state;
  out.state.name = "as-of-" + format_utc_time(as_of);
  out.state.description = "reconstructed by envbisect timeline as of " + format_utc_time(as_of) + " from " +
                          current.state.description;
  json& provenance = out.provenance;
  const auto note = [&](const std::string& field, const json& value, const std::string& source, const char* confidence) {
    provenance[field] = {{"value", value}, {"source", source}, {"confidence", confidence}};
  };
  const json packages = current.facts["captured"].value("packages", json::object());

  // Packages: keep what was installed by then, replace or drop what came later.
  for (const auto& [name, pin] : current.state.packages) {
    const std::optional<double> installed = number_or_none(packages.value(name, json::object()), "mtime");
    if (!installed) {
      note("packages/" + name, pin.version, "installed now; its install time is unknown", "guessed");
      continue;
    }
    if (*installed <= as_of) {
      note("packages/" + name, pin.version, "installed " + format_utc_time(*installed) + " (dist-info mtime), before as-of",
           "observed");
      continue;
    }
    // The build that was there before: one that reached the uv cache or a wheelhouse by then, else
    // another build of the same release.
    const std::optional<Version> now = Version::parse(pin.version);
    const RestorableBuild* choice = nullptr;
    for (const RestorableBuild& build : timeline.restorable) {
      if (build.package == name && build.time && *build.time <= as_of && (choice == nullptr || *build.time > *choice->time)) {
        choice = &build;
      }
    }
    std::string why = "by then in the " + std::string(choice ? choice->source : "") + " at ";
    if (choice == nullptr) {
      for (const RestorableBuild& build : timeline.restorable) {
        const std::optional<Version> other = Version::parse(build.version);
        if (build.package == name && now && other && other->public_version() == now->public_version()) {
          choice = &build;
          break;
        }
      }
      why = "the same release, another build, found in the " + std::string(choice ? choice->source : "") + " at ";
    }
    const std::string replaced = pin.version + " was installed " + format_utc_time(*installed) + ", after as-of; ";
    if (choice == nullptr) {
      out.state.packages.erase(name);
      note("packages/" + name, nullptr, replaced + "no other build of it is restorable offline: assumed absent",
           "guessed");
      continue;
    }
    PackagePin guess;
    guess.version = choice->version;
    if (choice->source == "wheel") {
      guess.wheel = choice->path.substr(choice->path.rfind('/') + 1);
    }
    out.state.packages[name] = guess;
    note("packages/" + name, guess.version, replaced + why + choice->path, "guessed");
  }

  // Repositories: HEAD's reflog says where HEAD was; without it, today's HEAD.
  for (auto& [name, pin] : out.state.repos) {
    auto it = repo_heads.find(name);
    if (it != repo_heads.end() && it->second) {
      pin.commit = *it->second;
      note("repos/" + name, pin.commit, "HEAD's reflog at " + format_utc_time(as_of), "observed");
    } else {
      note("repos/" + name, pin.commit, "HEAD now (no reflog entry by then)", "guessed");
    }
  }

  // Caches: warm when entries older than as-of survive, or when a checkpoint shows a run had filled it.
  const json caches = current.facts["captured"].value("caches", json::object());
  const bool checkpoint_by_then = timeline.newest_checkpoint.has_value() &&
                                  std::any_of(timeline.events.begin(), timeline.events.end(), [&](const TimelineEvent& e) {
                                    return e.kind == "checkpoint" && e.time <= as_of;
                                  });
  for (auto& [name, cache] : out.state.caches) {
    const std::optional<double> oldest = number_or_none(caches.value(name, json::object()), "oldest");
    if (oldest && *oldest <= as_of) {
      cache.state = "warm";
      note("caches/" + name, "warm", "entries dated " + format_utc_time(*oldest) + " and later exist", "observed");
    } else if (checkpoint_by_then) {
      cache.state = "warm";
      note("caches/" + name, "warm",
           std::string(oldest ? "the cache was recreated after as-of" : "the cache is empty or gone now") +
               "; a checkpoint saved by then shows a run had compiled into it",
           "guessed");
    } else {
      cache.state = "cold";
      note("caches/" + name, "cold", "no entry and no checkpoint dated by then", "guessed");
    }
  }

  // Everything else has no history on the machine: today's value.
  for (const auto& [name, value] : out.state.env) {
    note("env/" + name, value, "value now (variables keep no history)", "guessed");
  }
  note("python/version", out.state.python.version, "interpreter now", "guessed");
  return out;
}

}  // namespace envbisect
