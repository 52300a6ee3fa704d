#include "app/commands/timeline.hpp"

#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "app/commands/capture.hpp"
#include "capture/git_facts.hpp"
#include "capture/live_capture.hpp"
#include "capture/timeline.hpp"
#include "core/state.hpp"
#include "exec/runner.hpp"
#include "util/fs.hpp"

namespace envbisect {

namespace {

using nlohmann::json;

json timeline_to_json(const Timeline& timeline) {
  json doc = {{"events", json::array()}, {"restorable", json::array()}, {"newest_checkpoint", nullptr}};
  for (const TimelineEvent& event : timeline.events) {
    doc["events"].push_back({{"time", event.time}, {"time_utc", format_utc_time(event.time)}, {"kind", event.kind},
                             {"subject", event.subject}, {"detail", event.detail},
                             {"after_newest_checkpoint", event.after_newest_checkpoint}});
  }
  if (timeline.newest_checkpoint) {
    doc["newest_checkpoint"] = {{"name", timeline.newest_checkpoint->subject}, {"time", timeline.newest_checkpoint->time}};
  }
  for (const RestorableBuild& build : timeline.restorable) {
    doc["restorable"].push_back({{"package", build.package}, {"version", build.version}, {"source", build.source},
                                 {"path", build.path}, {"time", build.time ? json(*build.time) : json()}});
  }
  return doc;
}

void print_timeline(const Timeline& timeline, std::ostream& out) {
  for (const TimelineEvent& event : timeline.events) {
    out << format_local_time(event.time) << "  " << std::left << std::setw(10) << event.kind << " " << event.subject
        << (event.after_newest_checkpoint ? "  <- AFTER THE NEWEST CHECKPOINT" : "") << "\n    " << event.detail << "\n";
  }
  if (timeline.newest_checkpoint) {
    out << "\nInstalled after the newest checkpoint (" << timeline.newest_checkpoint->subject << ", "
        << format_local_time(timeline.newest_checkpoint->time) << "):\n";
    bool any = false;
    for (const TimelineEvent& event : timeline.events) {
      if (event.after_newest_checkpoint) {
        out << "  " << event.subject << " at " << format_local_time(event.time) << "\n";
        any = true;
      }
    }
    if (!any) {
      out << "  nothing\n";
    }
  }
  out << "\nOther builds restorable offline:\n";
  if (timeline.restorable.empty()) {
    out << "  none found\n";
  }
  for (const RestorableBuild& build : timeline.restorable) {
    out << "  " << build.package << " " << build.version << "  (" << build.source << ": " << build.path << ")\n";
  }
}

}  // namespace

ExitCode run_timeline(const TimelineOptions& options, std::ostream& out) {
  // -o is where the --as-of proposal goes; one without the other is a mistake worth stopping for.
  if (options.as_of.empty() != options.out_path.empty()) {
    throw Error(options.as_of.empty() ? "-o " + options.out_path + " needs --as-of TIME (the state is proposed as of it)"
                                      : "--as-of " + options.as_of + " needs -o FILE (where the proposed state goes)");
  }
  LiveCaptureRequest request;
  request.python = options.python;
  request.venv = options.venv;
  request.via = options.via;
  request.repos = options.repos;
  request.state_path = options.out_path.empty() ? "timeline.json" : options.out_path;
  request.timeline = true;
  request.checkpoints_dir = options.checkpoints_dir;
  request.uv_cache_dir = options.uv_cache_dir;
  request.wheel_dirs = options.wheel_dirs;

  // Read the machine once; the timeline and the proposal are both made from this one report.
  LocalRunner runner;
  const LiveCapture live = capture_live(runner, request);
  const Timeline timeline = build_timeline(live.probe);
  // Check --as-of before printing, so bad input writes nothing.
  const double as_of = options.as_of.empty() ? 0.0 : parse_as_of(options.as_of, timeline);

  if (options.json) {
    out << timeline_to_json(timeline).dump(2) << "\n";
  } else {
    print_timeline(timeline, out);
  }
  if (options.as_of.empty()) {
    return ExitCode::ok;
  }

  // Propose the state as of that time; the reflog knows where each local repository's HEAD was.
  std::map<std::string, std::optional<std::string>> heads;
  for (const auto& [name, path] : live.repo_paths) {
    heads[name] = live.local ? head_at_time(path, static_cast<std::int64_t>(as_of)) : std::nullopt;
  }
  const Reconstruction proposal = reconstruct_as_of(live.capture, timeline, as_of, heads);
  const json state = state_to_json(proposal.state);
  parse_state(state.dump(), options.out_path);
  make_dirs(parent_dir(options.out_path));
  write_file_atomic(options.out_path, state.dump(2) + "\n");
  json facts = live.capture.facts;
  facts["state"] = options.out_path;
  facts["reconstructed"] = {{"as_of", as_of}, {"as_of_utc", format_utc_time(as_of)}, {"as_of_text", options.as_of},
                            {"provenance", proposal.provenance}};
  write_file_atomic(facts_path_for(options.out_path), facts.dump(2) + "\n");
  (options.json ? std::cerr : out) << "\nproposed state as of " << format_local_time(as_of) << " written to "
                                   << options.out_path << " (where each field came from: "
                                   << facts_path_for(options.out_path) << ")\n";
  return ExitCode::ok;
}

}  // namespace envbisect
