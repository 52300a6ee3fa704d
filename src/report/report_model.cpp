#include "report/report_model.hpp"

#include <algorithm>

#include "util/redact.hpp"

namespace envbisect::report {

using nlohmann::json;

namespace {

// Journals are written by several versions of envbisect: read every field defensively.
std::string text_of(const json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> number_of(const json& doc, const char* key) {
  auto it = doc.find(key);
  if (it != doc.end() && it->is_number()) {
    return it->get<double>();
  }
  return std::nullopt;
}

long long integer_of(const json& doc, const char* key, long long fallback) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_number() ? static_cast<long long>(it->get<double>()) : fallback;
}

bool flag_of(const json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_boolean() && it->get<bool>();
}

std::vector<std::size_t> indices_of(const json& doc, const char* key) {
  std::vector<std::size_t> out;
  auto it = doc.find(key);
  if (it != doc.end() && it->is_array()) {
    for (const json& item : *it) {
      if (item.is_number_unsigned() || (item.is_number_integer() && item.get<long long>() >= 0)) {
        out.push_back(item.get<std::size_t>());
      }
    }
  }
  return out;
}

std::vector<std::string> strings_of(const json& doc, const char* key) {
  std::vector<std::string> out;
  auto it = doc.find(key);
  if (it != doc.end() && it->is_array()) {
    for (const json& item : *it) {
      out.push_back(item.is_string() ? item.get<std::string>() : item.dump());
    }
  }
  return out;
}

std::optional<std::string> optional_text(const json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) {
    return std::nullopt;
  }
  return it->is_string() ? it->get<std::string>() : it->dump();
}

Change change_of(const json& doc) {
  Change change;
  if (doc.is_object()) {
    change.dimension = text_of(doc, "dimension");
    change.name = text_of(doc, "name");
    change.good = optional_text(doc, "good");
    change.bad = optional_text(doc, "bad");
    change.good_ref = optional_text(doc, "good_ref").value_or("");
    change.bad_ref = optional_text(doc, "bad_ref").value_or("");
  }
  return change;
}

Attempt attempt_of(const json& record, int session) {
  Attempt attempt;
  attempt.candidate = text_of(record, "candidate");
  attempt.applied = indices_of(record, "applied");
  attempt.env_hash = text_of(record, "env_hash");
  attempt.index = static_cast<int>(integer_of(record, "attempt", -1));
  attempt.status = text_of(record, "status");
  attempt.exit_code = static_cast<int>(integer_of(record, "exit_code", 0));
  attempt.signal = static_cast<int>(integer_of(record, "signal", 0));
  attempt.metric = number_of(record, "metric");
  attempt.checksum = optional_text(record, "checksum");
  attempt.error_class = text_of(record, "error_class");
  attempt.cause = text_of(record, "cause");
  attempt.diagnosis = text_of(record, "diagnosis");
  attempt.wall_s = number_of(record, "wall_s").value_or(0);
  attempt.t = number_of(record, "t").value_or(0);
  attempt.load1 = number_of(record, "load1");
  attempt.stdout_path = text_of(record, "stdout");
  attempt.stderr_path = text_of(record, "stderr");
  attempt.argv = strings_of(record, "argv");
  attempt.cwd = text_of(record, "cwd");
  if (auto env = record.find("env"); env != record.end() && env->is_object()) {
    for (const auto& [name, value] : env->items()) {
      if (value.is_string()) {
        attempt.env[name] = value.get<std::string>();
      }
    }
  }
  attempt.session = session;
  return attempt;
}

Build build_of(const json& record) {
  Build build;
  build.env_hash = text_of(record, "env_hash");
  build.ok = flag_of(record, "ok");
  build.reason = text_of(record, "reason");
  build.builder = text_of(record, "builder");
  build.python = text_of(record, "python");
  if (auto it = record.find("installed"); it != record.end() && it->is_object()) {
    for (const auto& [name, version] : it->items()) {
      build.installed[name] = version.is_string() ? version.get<std::string>() : version.dump();
    }
  }
  build.logs = strings_of(record, "logs");
  build.seconds = number_of(record, "seconds").value_or(0);
  build.t = number_of(record, "t").value_or(0);
  if (auto it = record.find("damaged"); it != record.end() && it->is_object()) {
    build.damaged = true;
    build.damaged_files = strings_of(*it, "files");
    if (auto after = it->find("after_attempt"); after != it->end() && after->is_object()) {
      build.damaged_after_candidate = text_of(*after, "candidate");
      build.damaged_after_attempt = static_cast<int>(integer_of(*after, "attempt", 0));
    }
    if (auto latest = it->find("latest_attempt"); latest != it->end() && latest->is_object()) {
      build.damaged_latest_candidate = text_of(*latest, "candidate");
      build.damaged_latest_attempt = static_cast<int>(integer_of(*latest, "attempt", 0));
    }
  }
  return build;
}

Preflight preflight_of(const json& record) {
  Preflight preflight;
  preflight.anchor_runs = static_cast<int>(integer_of(record, "anchor_runs", 0));
  preflight.good_runs = static_cast<int>(integer_of(record, "good_runs", preflight.anchor_runs));
  preflight.bad_runs = static_cast<int>(integer_of(record, "bad_runs", preflight.anchor_runs));
  json doc = record.contains("preflight") && record["preflight"].is_object() ? record["preflight"] : json::object();
  preflight.distinguishable = flag_of(doc, "distinguishable");
  preflight.good_median = number_of(doc, "good_median");
  preflight.bad_median = number_of(doc, "bad_median");
  preflight.good_cv = number_of(doc, "good_cv");
  preflight.bad_cv = number_of(doc, "bad_cv");
  preflight.effect = number_of(doc, "effect");
  preflight.metric_p = number_of(doc, "metric_p");
  preflight.failure_p = number_of(doc, "failure_p");
  preflight.message = text_of(doc, "message");
  return preflight;
}

Decision decision_of(const json& record) {
  Decision decision;
  decision.n = static_cast<int>(integer_of(record, "n", 0));
  decision.stage = text_of(record, "stage");
  decision.label = text_of(record, "label");
  decision.applied = indices_of(record, "applied");
  decision.candidate = text_of(record, "candidate");
  decision.verdict = text_of(record, "verdict");
  decision.runs = static_cast<int>(integer_of(record, "runs", 0));
  decision.median = number_of(record, "median");
  decision.reason = text_of(record, "reason");
  decision.p_vs_good = number_of(record, "p_vs_good");
  decision.p_vs_bad = number_of(record, "p_vs_bad");
  decision.position = number_of(record, "position");
  decision.different_failure = flag_of(record, "different_failure");
  decision.checksum_mismatch = flag_of(record, "checksum_mismatch");
  decision.cv = number_of(record, "cv");
  decision.noisy = flag_of(record, "noisy");
  return decision;
}

Refinement refinement_of(const json& record) {
  json doc = record.contains("refine") && record["refine"].is_object() ? record["refine"] : json::object();
  Refinement refinement;
  refinement.delta = change_of(doc.value("delta", json::object()));
  refinement.kind = text_of(doc, "kind");
  refinement.points = strings_of(doc, "points");
  refinement.found = flag_of(doc, "found");
  refinement.last_good = text_of(doc, "last_good");
  refinement.first_bad = text_of(doc, "first_bad");
  refinement.evaluations = static_cast<int>(integer_of(doc, "evaluations", 0));
  refinement.note = text_of(doc, "note");
  return refinement;
}

// The result's steps begin with the two anchors, which are measured without a decision.
bool starts_with_anchor(const std::string& why) {
  return why.find("anchor, measured by the caller") != std::string::npos;
}

std::string applied_label(const ReportModel& model, const std::vector<std::size_t>& applied) {
  std::string out = "{";
  for (std::size_t i = 0; i < applied.size(); ++i) {
    out += (i ? ", " : "") + delta_name(model, applied[i]);
  }
  return out + "}";
}

// Attach the search's reason to each isolate decision: the result's steps in order, matched by set.
void attach_reasons(ReportModel& model) {
  if (!model.result || !model.result->contains("steps") || !(*model.result)["steps"].is_array()) {
    return;
  }
  std::vector<bool> used((*model.result)["steps"].size(), false);
  for (Decision& decision : model.decisions) {
    if (!decision.stage.empty() && decision.stage != "isolate") {
      continue;
    }
    const json& steps = (*model.result)["steps"];
    for (std::size_t i = 0; i < steps.size(); ++i) {
      if (!used[i] && steps[i].is_object() && indices_of(steps[i], "applied") == decision.applied &&
          !starts_with_anchor(text_of(steps[i], "why"))) {
        decision.why = text_of(steps[i], "why");
        used[i] = true;
        break;
      }
    }
  }
}

void build_candidates(ReportModel& model) {
  std::map<std::string, std::size_t> position;
  auto view_for = [&](const std::string& hash) -> CandidateView& {
    auto it = position.find(hash);
    if (it == position.end()) {
      it = position.emplace(hash, model.candidates.size()).first;
      model.candidates.push_back(CandidateView{});
      model.candidates.back().hash = hash;
    }
    return model.candidates[it->second];
  };
  // The anchors are measured first: the first candidate with nothing applied is good, the first with
  // every difference applied is bad.
  std::vector<std::size_t> all(model.deltas.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    all[i] = i;
  }
  for (const Attempt& attempt : model.attempts) {
    bool good = attempt.applied.empty();
    bool bad = !model.deltas.empty() && attempt.applied == all;
    if ((good || bad) && position.find(attempt.candidate) == position.end()) {
      bool taken = std::any_of(model.candidates.begin(), model.candidates.end(), [&](const CandidateView& view) {
        return view.role == (good ? "good-anchor" : "bad-anchor");
      });
      if (!taken) {
        CandidateView& view = view_for(attempt.candidate);
        view.role = good ? "good-anchor" : "bad-anchor";
        view.label = good ? "good anchor" : "bad anchor";
        view.applied = attempt.applied;
        view.env_hash = attempt.env_hash;
      }
    }
  }
  for (std::size_t i = 0; i < model.decisions.size(); ++i) {
    const Decision& decision = model.decisions[i];
    CandidateView& view = view_for(decision.candidate);
    if (view.role.empty()) {
      view.role = "decision";
      view.label = decision.label.empty() ? applied_label(model, decision.applied) : decision.label;
      view.applied = decision.applied;
    }
    view.decisions.push_back(static_cast<int>(i));
  }
  // Attempts of candidates no decision of the last session names (an earlier session's) still count.
  for (std::size_t i = 0; i < model.attempts.size(); ++i) {
    const Attempt& attempt = model.attempts[i];
    CandidateView& view = view_for(attempt.candidate);
    if (view.role.empty()) {
      view.role = "undecided";
      view.label = applied_label(model, attempt.applied) + " (no decision in the last session)";
      view.applied = attempt.applied;
    }
    if (view.env_hash.empty()) {
      view.env_hash = attempt.env_hash;
    }
    view.attempts.push_back(static_cast<int>(i));
  }
}

}  // namespace

ReportModel model_from_journal(const std::vector<json>& journal_records, const json& run_doc, const std::string& run_dir) {
  // Journals written before redaction existed, or edited by hand, may hold secrets: reports never show them.
  std::vector<json> records;
  records.reserve(journal_records.size());
  for (const json& record : journal_records) {
    records.push_back(redact_json(record));
  }
  ReportModel model;
  model.run_dir = run_dir;

  // The inputs as run.json recorded them; every "start" record repeats them, for a lost run.json.
  json run = run_doc;
  if (!run.is_object() || run.empty()) {
    for (const json& record : records) {
      if (record.is_object() && record.value("type", "") == "start" && record.contains("run") && record["run"].is_object()) {
        run = record["run"];
        break;
      }
    }
  }
  if (run.is_object()) {
    for (const char* role : {"good", "bad", "recipe"}) {
      model.inputs.push_back({role, text_of(run, role), text_of(run, (std::string(role) + "_sha256").c_str()), ""});
    }
    model.wheel_dirs = strings_of(run, "wheels");
    for (const auto& [key, value] : run.items()) {
      bool known = key == "good" || key == "bad" || key == "recipe" || key == "wheels" || key == "good_sha256" ||
                   key == "bad_sha256" || key == "recipe_sha256";
      if (!known) {
        model.run_options[key] = value;
      }
    }
  }

  // Decisions, probes and the result of the last session; attempts and builds of every session.
  int session = 0;
  double t_first = 0;
  double t_last = 0;
  auto note_time = [&](double t) {
    if (t > 0) {
      t_first = t_first == 0 ? t : std::min(t_first, t);
      t_last = std::max(t_last, t);
    }
  };
  double t_latest_attempt = 0;
  for (const json& record : records) {
    if (!record.is_object()) {
      continue;
    }
    std::string type = text_of(record, "type");
    if (type == "start") {
      ++session;
      model.versions.push_back(text_of(record, "version"));
      model.deltas.clear();
      if (auto it = record.find("deltas"); it != record.end() && it->is_array()) {
        for (const json& delta : *it) {
          model.deltas.push_back(change_of(delta));
        }
      }
      model.preflight.reset();
      model.decisions.clear();
      model.probes.clear();
      model.refinements.clear();
      model.result.reset();
      model.stopped.reset();
      model.host = record.contains("host") && record["host"].is_object() ? record["host"] : json::object();
    } else if (type == "attempt") {
      model.attempts.push_back(attempt_of(record, std::max(session, 1)));
      note_time(model.attempts.back().t);
      t_latest_attempt = std::max(t_latest_attempt, model.attempts.back().t);
    } else if (type == "warmup") {
      model.warmups.push_back(attempt_of(record, std::max(session, 1)));
      note_time(model.warmups.back().t);
    } else if (type == "build") {
      model.builds.push_back(build_of(record));
      note_time(model.builds.back().t);
    } else if (type == "preflight") {
      model.preflight = preflight_of(record);
    } else if (type == "decision") {
      Decision decision = decision_of(record);
      decision.t = t_latest_attempt;
      decision.runs_before = static_cast<int>(model.attempts.size());
      model.decisions.push_back(decision);
    } else if (type == "probe") {
      model.probes.push_back({text_of(record, "knob"), integer_of(record, "value", 0), text_of(record, "cache"),
                              text_of(record, "verdict"), number_of(record, "median")});
    } else if (type == "refine") {
      model.refinements.push_back(refinement_of(record));
    } else if (type == "stopped") {
      model.stopped = text_of(record, "message");
    } else if (type == "result") {
      model.result = record.contains("result") ? record["result"] : json::object();
    } else {
      model.others.push_back({type.empty() ? "(no type)" : type, record});
    }
  }
  model.sessions = session;
  model.t_first = t_first;
  model.t_last = t_last;
  attach_reasons(model);
  build_candidates(model);
  return model;
}

std::string excerpt_key(const Attempt& attempt) {
  return attempt.candidate.substr(0, 16) + "/" + std::to_string(attempt.index);
}

const CandidateView* find_candidate(const ReportModel& model, const std::string& hash) {
  for (const CandidateView& view : model.candidates) {
    if (view.hash == hash) {
      return &view;
    }
  }
  return nullptr;
}

std::string delta_name(const ReportModel& model, std::size_t index) {
  if (index >= model.deltas.size()) {
    return "#" + std::to_string(index);
  }
  return model.deltas[index].dimension + "/" + model.deltas[index].name;
}

const Decision* find_isolate_decision(const ReportModel& model, const std::vector<std::size_t>& applied) {
  const Decision* first = nullptr;
  for (const Decision& decision : model.decisions) {
    if ((decision.stage.empty() || decision.stage == "isolate") && decision.applied == applied) {
      first = &decision;
      break;
    }
  }
  // The latest of the same candidate: one first judged on one run and later re-measured (the run left
  // one-run mode, a recheck replicated it, the boundary re-run held it to the anchor's count) rests on
  // its later decision, made on every run it had by then.
  const Decision* latest = first;
  for (const Decision& decision : model.decisions) {
    if (first != nullptr && decision.candidate == first->candidate && decision.n > latest->n &&
        (decision.stage.empty() || decision.stage == "isolate" || decision.stage == "recheck" ||
         decision.stage == "verify")) {
      latest = &decision;
    }
  }
  return latest;
}

std::vector<std::size_t> cause_indices(const ReportModel& model) {
  std::vector<std::size_t> out;
  if (!model.result || !model.result->contains("cause") || !(*model.result)["cause"].is_array()) {
    return out;
  }
  for (const json& item : (*model.result)["cause"]) {
    Change change = change_of(item);
    for (std::size_t i = 0; i < model.deltas.size(); ++i) {
      if (model.deltas[i].dimension == change.dimension && model.deltas[i].name == change.name) {
        out.push_back(i);
        break;
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string shown_side(const std::optional<std::string>& value, const std::string& ref) {
  if (!value) {
    return "(absent)";
  }
  return ref.empty() ? *value : ref + " (" + value->substr(0, 12) + ")";
}

std::string anchor_runs_words(int good_runs, int bad_runs) {
  if (good_runs == bad_runs) {
    return std::to_string(good_runs) + " interleaved runs each";
  }
  return "good " + std::to_string(good_runs) + (good_runs == 1 ? " run" : " runs") + ", bad " +
         std::to_string(bad_runs) + ", each next run where it told most per second";
}

std::string anchor_runs_words(const Preflight& preflight) {
  return anchor_runs_words(preflight.good_runs, preflight.bad_runs);
}

}  // namespace envbisect::report
