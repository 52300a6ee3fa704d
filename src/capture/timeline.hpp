#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "capture/snapshot.hpp"

namespace envbisect {

// One dated thing that happened on the machine.
struct TimelineEvent {
  double time = 0;                  // seconds since the epoch (a file's mtime)
  std::string kind;                 // "install", "cache", "checkpoint"
  std::string subject;              // "fauxtorch 2.11.0+cu130", "inductor", "step_690"
  std::string detail;               // where the date comes from
  bool after_newest_checkpoint = false;  // an install dated after the newest checkpoint
};

// A build of an installed package, other than the installed one, that can be reinstalled offline.
struct RestorableBuild {
  std::string package;           // PEP 503 name
  std::string version;           // with its local label
  std::string source;            // "uv-cache" or "wheel"
  std::string path;              // the dist-info folder or the wheel file
  std::optional<double> time;    // when it landed there (mtime)
};

// What a timeline probe shows, in time order.
struct Timeline {
  std::vector<TimelineEvent> events;              // sorted by time, then kind and subject
  std::optional<TimelineEvent> newest_checkpoint;
  std::vector<RestorableBuild> restorable;        // sorted by package, then version
};

// Return the timeline of a probe report run with `timeline` set: package installs (dist-info mtimes),
// each cache's oldest and newest entry, checkpoint saves, installs after the newest checkpoint
// flagged, and the other builds in the uv cache and wheel folders of each installed package.
Timeline build_timeline(const nlohmann::json& probe);

// Return the time `text` names: "@EPOCH", "YYYY-MM-DD[T ]HH:MM[:SS]" (local time) with an optional
// "Z" or "+HH:MM" suffix, or the name of a checkpoint (its save time). Throw Error (bad_input) otherwise.
double parse_as_of(const std::string& text, const Timeline& timeline);

// Return `epoch_seconds` as local time "YYYY-MM-DD HH:MM:SS" (TZ applies).
std::string format_local_time(double epoch_seconds);

// A state proposed as of a past time, and where each of its fields came from.
struct Reconstruction {
  EnvState state;
  nlohmann::json provenance;  // {"packages/NAME": {"value", "source", "confidence"}, ...}
};

// Return the state as of `as_of` proposed from the current capture and the timeline: packages
// installed before then are kept; one installed later is replaced by the build of it restorable
// offline that was there by then (or of the same release), or left out when there is none; caches
// warm when entries older than `as_of` exist or a checkpoint was saved by then; repos at
// `repo_heads` (HEAD per reflog at that time) when known. Every field is named in the provenance.
Reconstruction reconstruct_as_of(const Capture& current, const Timeline& timeline, double as_of,
                                 const std::map<std::string, std::optional<std::string>>& repo_heads);

}  // namespace envbisect
