#include <algorithm>

#include "report/answer.hpp"
#include "report/render.hpp"
#include "report/report_flags.hpp"
#include "report/report_text.hpp"
#include "stats/quantity.hpp"
#include "report/svg_plot.hpp"
#include "util/strings.hpp"

namespace envbisect::report {

namespace {

// Light by default, dark when the reader's system prefers it, plain black on white on paper.
constexpr const char* k_style = R"(:root{color-scheme:light dark;--bg:#ffffff;--fg:#1b1f24;--muted:#5a636e;--line:#d0d7de;
--panel:#f6f8fa;--good:#1a7f37;--bad:#cf222e;--skip:#8c959f;--unknown:#bf8700;--band-good:rgba(26,127,55,.14);
--band-bad:rgba(207,34,46,.14);--link:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#30363d;--panel:#161b22;
--good:#3fb950;--bad:#f85149;--skip:#8b949e;--unknown:#d29922;--band-good:rgba(63,185,80,.18);
--band-bad:rgba(248,81,73,.18);--link:#4493f8}}
body{background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;
max-width:1120px;padding:24px}
a{color:var(--link)}h1{font-size:1.6em;margin:.2em 0}h2{border-bottom:1px solid var(--line);padding-bottom:.2em;margin-top:1.8em}
code,pre{font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow-x:auto;white-space:pre-wrap;
word-break:break-all}
table{border-collapse:collapse;margin:.6em 0;width:100%}th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;
vertical-align:top}th{background:var(--panel)}td.num{text-align:right;font-variant-numeric:tabular-nums}
.verdict{border:2px solid var(--line);border-radius:8px;padding:12px 16px;background:var(--panel)}
.verdict.found{border-color:var(--bad)}.headline{font-size:1.25em;font-weight:600}
.v-good{color:var(--good);font-weight:600}.v-bad{color:var(--bad);font-weight:600}.v-skip{color:var(--skip);font-weight:600}
.v-unknown{color:var(--unknown);font-weight:600}.muted{color:var(--muted)}
.plots{display:flex;flex-wrap:wrap;gap:16px}figure{margin:0;max-width:100%;overflow-x:auto}
figcaption{color:var(--muted);font-size:.9em}
svg.plot{background:var(--bg);max-width:100%;height:auto}svg .label{fill:var(--fg);font:12px system-ui,sans-serif}
svg .axis-title{fill:var(--muted)}svg .grid{stroke:var(--line);stroke-width:1}svg .axis{stroke:var(--muted);stroke-width:1}
svg circle.good,svg .cell-good{fill:var(--good)}svg circle.bad,svg .cell-bad{fill:var(--bad)}
svg circle.skip,svg .cell-skip{fill:var(--skip)}svg circle.unknown,svg .cell-unknown{fill:var(--unknown)}
svg .cell-empty{fill:none;stroke:var(--line)}svg .cell-text{fill:#ffffff;font:600 12px system-ui,sans-serif}
svg path.fail{fill:none;stroke-width:2}svg path.good{stroke:var(--good)}svg path.bad{stroke:var(--bad)}
svg path.skip{stroke:var(--skip)}svg path.unknown{stroke:var(--unknown)}
svg .band-good{fill:var(--band-good)}svg .band-bad{fill:var(--band-bad)}
svg .median-good{stroke:var(--good);stroke-dasharray:6 4}svg .median-bad{stroke:var(--bad);stroke-dasharray:6 4}
svg .good-text{fill:var(--good)}svg .bad-text{fill:var(--bad)}
svg line.median-tick,svg line.median-bar{stroke-width:2.5}svg line.good{stroke:var(--good)}svg line.bad{stroke:var(--bad)}
svg line.skip{stroke:var(--skip)}svg line.unknown{stroke:var(--unknown)}
svg .progress{fill:none;stroke:var(--fg);stroke-width:1.5}
details{margin:.4em 0}summary{cursor:pointer;color:var(--muted)}
details.candidate{border-top:1px solid var(--line);padding-top:.2em;margin:.2em 0}ul.answer{font-size:1.05em}
ul.answer li{margin:.15em 0}
@media print{:root{--bg:#ffffff;--fg:#000000;--panel:#ffffff;--line:#999999;--muted:#333333}body{max-width:none;padding:0;
font-size:11pt}summary{color:var(--fg)}a{color:inherit;text-decoration:none}
h2{break-after:avoid}figure,tr{break-inside:avoid}pre{white-space:pre-wrap}})";

std::string h(const std::string& text) { return html_escape(text); }

std::string code(const std::string& text) { return "<code>" + h(text) + "</code>"; }

std::string verdict_span(const std::string& verdict) {
  std::string cls = verdict == "good" || verdict == "bad" || verdict == "skip" ? verdict : "unknown";
  return "<span class=\"v-" + cls + "\">" + h(verdict.empty() ? "?" : verdict) + "</span>";
}

std::string anchor_id(const std::string& hash) { return candidate_anchor(hash); }

std::string link_to(const std::string& hash, const std::string& label_html) {
  return "<a href=\"#" + anchor_id(hash) + "\">" + label_html + "</a>";
}

std::string base_name(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') {
    trimmed.pop_back();
  }
  std::size_t slash = trimmed.rfind('/');
  return slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
}

std::string decision_sentence(const Decision& decision, const std::string& unit) {
  std::string out = "decision #" + std::to_string(decision.n) + " " + code(decision.label) + ": " +
                    verdict_span(decision.verdict) + " after " + std::to_string(decision.runs) + " runs";
  if (decision.median) {
    out += ", median " + stats::with_unit(*decision.median, unit);
  }
  if (decision.p_vs_good && decision.p_vs_bad) {
    out += " (rank test p vs good " + format_p(*decision.p_vs_good) + ", p vs bad " + format_p(*decision.p_vs_bad) + ")";
  }
  return out + "; " + link_to(decision.candidate, "evidence");
}

// The answer box: headline, cause, verification, effect with its interval, when it bites, then the
// caveats one line each; every line behind them folded below it.
std::string verdict_section(const ReportModel& model) {
  const Answer answer = answer_of(model);
  VerdictSummary summary = summarize(model);
  std::string out = "<section class=\"verdict" + std::string(summary.found ? " found" : "") + "\" id=\"verdict\">\n";
  out += "<div class=\"headline\">" + h(answer.headline) + "</div>\n";
  if (!summary.cause.empty()) {
    out += "<table><tr><th>difference</th><th>good</th><th>bad</th></tr>\n";
    for (std::size_t index : summary.cause) {
      const Change& change = model.deltas[index];
      out += "<tr><td>" + code(change.dimension + "/" + change.name) + "</td><td>" + code(shown_side(change.good, change.good_ref)) +
             "</td><td>" + code(shown_side(change.bad, change.bad_ref)) + "</td></tr>\n";
    }
    out += "</table>\n";
  }
  out += "<ul class=\"answer\">\n";
  if (!answer.verification.empty()) {
    out += "<li><b>verification</b>: " + h(answer.verification) + "</li>\n";
  }
  if (!answer.effect.empty()) {
    out += "<li><b>effect</b>: <b>" + h(answer.effect) + "</b></li>\n";
  }
  for (const std::string& bite : answer.bites) {
    out += "<li><b>when it bites</b>: " + h(bite) + "</li>\n";
  }
  for (const std::string& set : answer.could_be) {
    out += "<li>could be: " + code(set) + "</li>\n";
  }
  if (!answer.settle.empty()) {
    out += "<li>to settle it: " + h(answer.settle) + "</li>\n";
  }
  if (!answer.noise.empty()) {
    out += "<li>noise: " + h(answer.noise) + "</li>\n";
  }
  if (!answer.load.empty()) {
    out += "<li>load: " + h(answer.load) + "</li>\n";
  }
  if (!answer.effort.empty()) {
    out += "<li>effort: " + h(answer.effort) + "</li>\n";
  }
  if (!answer.note.empty()) {
    out += "<li>note: " + h(answer.note) + "</li>\n";
  }
  out += "</ul>\n<details class=\"fold\" id=\"verdict-details\"><summary>details: the deciding decisions, the anchors, "
         "the host, each noisy or loaded decision</summary>\n<ul>\n";
  if (summary.have_result && summary.found && summary.rereads_anchors) {
    out += "<li>good + cause &rarr; bad: <b>the bad anchor itself</b>, re-read (not a separate check)</li>\n";
    out += "<li>bad &minus; cause &rarr; good: <b>the good anchor itself</b>, re-read (not a separate check)</li>\n";
  } else if (summary.have_result && summary.found) {
    out += "<li>good + cause &rarr; bad: " + std::string(summary.forward ? "<b>verified</b>" : "<b>not verified</b>") +
           (summary.forward_decision ? "; " + decision_sentence(*summary.forward_decision, model.recipe.unit) : "") + "</li>\n";
    out += "<li>bad &minus; cause &rarr; good: " + std::string(summary.reverse ? "<b>verified</b>" : "<b>not verified</b>") +
           (summary.reverse_decision ? "; " + decision_sentence(*summary.reverse_decision, model.recipe.unit) : "") + "</li>\n";
  }
  if (!summary.effect.empty()) {
    out += "<li>effect, as the statistics state it: " + h(summary.effect) + "</li>\n";
  }
  if (model.preflight) {
    out += "<li>confidence, anchors (" + anchor_runs_words(*model.preflight) + " before the search): " + h(model.preflight->message) + "</li>\n";
  }
  const std::string host = host_sentence(model);
  if (!host.empty()) {
    out += "<li>host: " + h(host) + "</li>\n";
  }
  for (const std::string& flag : load_flags(model)) {
    out += "<li>higher load than the anchors: " + h(flag) + "</li>\n";
  }
  for (const std::string& flag : noise_flags(model)) {
    out += "<li>noisy: " + h(flag) + "</li>\n";
  }
  for (const std::string& flag : damage_flags(model)) {
    out += "<li>changed by a benchmark: " + h(flag) + "</li>\n";
  }
  out += "<li>journal: " + count_noun(model.sessions, "session") + ", " +
         count_noun(static_cast<long long>(model.attempts.size()), "attempt") + ", from " + h(format_utc(model.t_first)) + " to " + h(format_utc(model.t_last)) + "</li>\n";
  for (const std::string& note : model.notes) {
    out += "<li>loader: " + h(note) + "</li>\n";
  }
  return out + "</ul>\n</details>\n</section>\n";
}

std::string figure(const std::string& svg, const std::string& caption) {
  return svg.empty() ? "" : "<figure>\n" + svg + "<figcaption>" + h(caption) + "</figcaption>\n</figure>\n";
}

std::string plots_section(const ReportModel& model) {
  const std::string strip = svg_metric_per_candidate(model);
  // A chart left out is said, never silently: with no metric in any run (pass/fail, or every run
  // failed) there is no axis to draw the decisions' runs on.
  const std::string not_drawn =
      strip.empty() && !model.decisions.empty()
          ? "<p class=\"muted\" id=\"plot-metric-not-drawn\">Runs per candidate: not drawn, since no run produced a "
            "metric (exit statuses decided); the " + count_noun(static_cast<long long>(model.decisions.size()), "decision") +
                " are in the timeline.</p>\n"
          : "";
  std::string body = not_drawn +
                     figure(strip, "Every run per candidate against the anchors' ranges (shaded) and medians (dashed); "
                                   "under each column its decisions' numbers; crosses are runs without a metric.") +
                     figure(svg_anchor_distributions(model), "The anchors' samples.") +
                     figure(svg_search_progress(model), "Benchmark runs over time; dots are decisions.") +
                     figure(svg_probe_grid(model), "Where the cause bites: verdict and median per probed value.");
  return body.empty() ? "" : "<h2 id=\"plots\">Plots</h2>\n<div class=\"plots\">\n" + body + "</div>\n";
}

std::string differences_section(const ReportModel& model) {
  std::vector<std::size_t> cause = cause_indices(model);
  std::string out = "<h2 id=\"differences\">Differences between good and bad (" + std::to_string(model.deltas.size()) +
                    ")</h2>\n<table><tr><th>#</th><th>difference</th><th>good</th><th>bad</th><th>in the cause</th></tr>\n";
  for (std::size_t i = 0; i < model.deltas.size(); ++i) {
    const Change& change = model.deltas[i];
    bool culprit = std::find(cause.begin(), cause.end(), i) != cause.end();
    out += "<tr><td class=\"num\">" + std::to_string(i) + "</td><td>" + code(change.dimension + "/" + change.name) +
           "</td><td>" + code(shown_side(change.good, change.good_ref)) + "</td><td>" + code(shown_side(change.bad, change.bad_ref)) +
           "</td><td>" + (culprit ? "<b>yes</b>" : "") + "</td></tr>\n";
  }
  return out + "</table>\n";
}

std::string timeline_section(const ReportModel& model) {
  const stats::Better better = better_of(model);
  const std::string unit = metric_unit(model);
  // The good anchor's median, 0 when unknown (a plain double: GCC misreads an optional here).
  const double good = model.preflight ? model.preflight->good_median.value_or(0.0) : 0.0;
  std::string out = "<h2 id=\"timeline\">Search timeline</h2>\n<p class=\"muted\">Each row is one decided candidate, "
                    "in the order the search asked; why it asked and how the verdict was reached are in its "
                    "evidence.</p>\n<table><tr><th>#</th><th>stage</th><th>candidate</th><th>runs</th><th>median" +
                    h(unit_suffix(model)) + "</th><th>against good</th><th>verdict</th></tr>\n";
  for (const Decision& decision : model.decisions) {
    out += "<tr><td class=\"num\">" + std::to_string(decision.n) + "</td><td>" + h(decision.stage) + "</td><td>" +
           link_to(decision.candidate, h(decision.label)) + "</td><td class=\"num\">" + std::to_string(decision.runs) +
           "</td><td class=\"num\">" + (decision.median ? format_number(*decision.median) : "-") + "</td><td>" +
           h(decision.median && good > 0 ? factor_of(good, *decision.median, better, unit) : "-") + "</td><td>" +
           verdict_span(decision.verdict) + "</td></tr>\n";
  }
  return out + "</table>\n";
}

std::string probes_section(const ReportModel& model) {
  std::string out;
  if (!model.probes.empty()) {
    out += "<h2 id=\"probes\">When it bites: probes with the cause applied</h2>\n<table><tr><th>knob</th><th>value</th>"
           "<th>cache</th><th>verdict</th><th>median</th></tr>\n";
    for (const Probe& probe : model.probes) {
      out += "<tr><td>" + code(probe.knob) + "</td><td class=\"num\">" + std::to_string(probe.value) + "</td><td>" +
             h(probe.cache) + "</td><td>" + verdict_span(probe.verdict) + "</td><td class=\"num\">" +
             (probe.median ? format_number(*probe.median) : "-") + "</td></tr>\n";
    }
    out += "</table>\n";
  }
  if (!model.refinements.empty()) {
    out += "<h2 id=\"refinements\">Inside the culprits: refinement along ordered axes</h2>\n<table><tr><th>difference</th>"
           "<th>kind</th><th>last good</th><th>first bad</th><th>evaluations</th><th>note</th></tr>\n";
    for (const Refinement& refinement : model.refinements) {
      out += "<tr><td>" + code(refinement.delta.dimension + "/" + refinement.delta.name) + "</td><td>" +
             h(refinement.kind) + "</td><td>" + code(refinement.last_good) + "</td><td>" + code(refinement.first_bad) +
             "</td><td class=\"num\">" + std::to_string(refinement.evaluations) + "</td><td>" + h(refinement.note) +
             "</td></tr>\n";
    }
    out += "</table>\n";
  }
  return out;
}

std::string excerpt_html(const ReportModel& model, const Attempt& attempt) {
  auto it = model.excerpts.find(excerpt_key(attempt));
  std::string title = "run " + std::to_string(attempt.index) + " (" + attempt_status(attempt) + ")";
  if (it == model.excerpts.end() || (!it->second.stdout_found && !it->second.stderr_found)) {
    return "<p class=\"muted\">Log excerpt of " + h(title) + ": the log files are no longer in the run directory.</p>\n";
  }
  std::string out = "<details open><summary>log excerpt of " + h(title) + "</summary>\n";
  if (it->second.stdout_found) {
    out += "<div class=\"muted\">stdout, last lines (" + code(display_path(model, attempt.stdout_path)) + ")</div><pre>" +
           h(tail_lines(it->second.stdout_tail, 4, 1200)) + "</pre>\n";
  }
  if (it->second.stderr_found && !trim(it->second.stderr_tail).empty()) {
    out += "<div class=\"muted\">stderr, last lines (" + code(display_path(model, attempt.stderr_path)) + ")</div><pre>" +
           h(tail_lines(it->second.stderr_tail, 6, 1600)) + "</pre>\n";
  }
  return out + "</details>\n";
}

std::string candidates_section(const ReportModel& model) {
  std::string out = "<h2 id=\"candidates\">Evidence per candidate</h2>\n<p class=\"muted\">Each folded: its runs, "
                    "command, decisions and log excerpts.</p>\n";
  for (const CandidateView& view : model.candidates) {
    out += "<details class=\"fold candidate\" id=\"" + anchor_id(view.hash) + "\"><summary><b>" + h(view.label) + "</b> " +
           code(short_id(view.hash)) + "</summary>\n<ul>\n";
    std::vector<std::string> changes;
    for (const std::string& change : candidate_changes(model, view)) {
      changes.push_back(code(change));
    }
    out += "<li>state: good" + (changes.empty() ? std::string(" as it is") : " with " + join(changes, ", ")) + "</li>\n";
    out += "<li>candidate hash " + code(view.hash) + "; environment hash " + code(view.env_hash) + "</li>\n";
    for (const Build& build : model.builds) {
      if (build.env_hash == view.env_hash) {
        out += "<li>environment built by " + code(build.builder) + " in " + h(format_duration(build.seconds)) + ": " +
               (build.ok ? "ok" : "<b>failed</b>: " + h(build.reason)) + "</li>\n";
      }
    }
    for (int index : view.decisions) {
      const Decision& decision = model.decisions[index];
      out += "<li>decision #" + std::to_string(decision.n) + " (" + h(decision.stage) + "): " +
             verdict_span(decision.verdict) + "; " + (decision.why.empty() ? "" : "asked: " + h(decision.why) + "; ") +
             h(decision.reason) +
             (decision.checksum_mismatch ? "; <b>checksum differs from the anchors</b>" : "") +
             (decision.different_failure ? "; <b>fails differently from the anchors</b>" : "") + "</li>\n";
    }
    out += "</ul>\n";
    if (!view.attempts.empty()) {
      const Attempt& first = model.attempts[view.attempts.front()];
      std::string command = attempt_command(model, first);
      if (!command.empty()) {
        out += "<div class=\"muted\">command (" +
               std::string(first.argv.empty() ? "recipe template, placeholders the journal fixes filled in" : "exact argv") +
               ")</div><pre>" + h(command) + "</pre>\n";
      }
      out += "<table><tr><th>run</th><th>session</th><th>status</th><th>exit</th><th>signal</th><th>metric</th>"
             "<th>checksum</th><th>wall</th><th>journaled</th></tr>\n";
      for (int index : view.attempts) {
        const Attempt& attempt = model.attempts[index];
        out += "<tr><td class=\"num\">" + std::to_string(attempt.index) + "</td><td class=\"num\">" +
               std::to_string(attempt.session) + "</td><td>" + h(attempt_status(attempt)) + "</td><td class=\"num\">" +
               std::to_string(attempt.exit_code) + "</td><td class=\"num\">" + std::to_string(attempt.signal) +
               "</td><td class=\"num\">" + (attempt.metric ? format_number(*attempt.metric) : "-") + "</td><td>" +
               code(attempt.checksum.value_or("-")) + "</td><td class=\"num\">" + h(format_duration(attempt.wall_s)) +
               "</td><td>" + h(format_utc(attempt.t)) + "</td></tr>\n";
      }
      out += "</table>\n";
      for (int index : excerpt_attempts(model, view)) {
        out += excerpt_html(model, model.attempts[index]);
      }
    }
    out += "</details>\n";
  }
  return out;
}

std::string builds_section(const ReportModel& model) {
  if (model.builds.empty()) {
    return "";
  }
  std::string out = "<h2 id=\"builds\">Environment builds</h2>\n<table><tr><th>environment</th><th>builder</th>"
                    "<th>result</th><th>time</th><th>interpreter</th><th>installed</th></tr>\n";
  for (const Build& build : model.builds) {
    std::vector<std::string> installed;
    for (const auto& [name, version] : build.installed) {
      installed.push_back(name + " " + version);
    }
    out += "<tr><td>" + code(short_id(build.env_hash)) + "</td><td>" + h(build.builder) + "</td><td>" +
           (build.ok ? "ok" : "failed: " + h(build.reason)) + "</td><td class=\"num\">" +
           h(format_duration(build.seconds)) + "</td><td>" + code(build.python) + "</td><td>" + h(join(installed, ", ")) +
           "</td></tr>\n";
  }
  return out + "</table>\n";
}

std::string inputs_section(const ReportModel& model) {
  std::string out = "<h2 id=\"inputs\">Inputs and their hashes</h2>\n<table><tr><th>input</th><th>path</th>"
                    "<th>sha256 when the run started</th><th>now</th></tr>\n";
  for (const InputFile& input : model.inputs) {
    out += "<tr><td>" + h(input.role) + "</td><td>" + code(input.path) + "</td><td>" + code(input.sha256) + "</td><td>" +
           h(input.now.empty() ? "not checked" : input.now) + "</td></tr>\n";
  }
  for (const std::string& dir : model.wheel_dirs) {
    out += "<tr><td>wheels</td><td>" + code(dir) + "</td><td></td><td></td></tr>\n";
  }
  out += "</table>\n";
  if (model.recipe.available) {
    out += "<p>Recipe: metric " + code(model.recipe.metric) + " (" + h((model.recipe.unit.empty() ? "" : model.recipe.unit + ", ") + model.recipe.direction) + " is better), seed " +
           std::to_string(model.recipe.seed) + ", timeout " + h(format_duration(model.recipe.timeout_s)) + ".</p>\n";
  } else if (!model.recipe.note.empty()) {
    out += "<p>Recipe: " + h(model.recipe.note) + "</p>\n";
  }
  return out;
}

std::string reproduce_section(const ReportModel& model) {
  std::string body;
  for (const Command& command : reproduction_commands(model)) {
    body += "# " + command.purpose + "\n" + command.line + "\n";
  }
  return "<h2 id=\"reproduce\">Reproduce</h2>\n<pre>" + h(body) + "</pre>\n";
}

std::string harness_section(const ReportModel& model) {
  std::string out = "<h2 id=\"harness\">Harness</h2>\n<ul>\n<li>envbisect version per session: " +
                    h(join(model.versions, ", ")) + "</li>\n<li>rendered from " + code("journal.jsonl") +
                    " with sha256 " + code(model.journal_sha256) + "</li>\n<li>run directory: " + code(model.run_dir) +
                    "</li>\n</ul>\n";
  if (!model.others.empty()) {
    out += "<h3>Other journal records</h3>\n<table><tr><th>type</th><th>record</th></tr>\n";
    for (const OtherRecord& other : model.others) {
      std::string dump = other.record.dump();
      out += "<tr><td>" + code(other.type) + "</td><td>" + code(dump.size() > 300 ? dump.substr(0, 300) + "..." : dump) +
             "</td></tr>\n";
    }
    out += "</table>\n";
  }
  return out;
}

}  // namespace

std::string render_html(const ReportModel& model) {
  std::string title = "envbisect report: " + base_name(model.run_dir);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<meta name=\"color-scheme\" content=\"light dark\">\n<title>" +
                    h(title) + "</title>\n<style>\n" + k_style + "\n</style>\n</head>\n<body>\n<header><h1>" + h(title) +
                    "</h1>\n<p class=\"muted\">Every statement below is what the run's journal recorded, with the "
                    "evidence next to it. Sections: <a href=\"#verdict\">verdict</a> &middot; <a href=\"#plots\">plots</a>"
                    " &middot; <a href=\"#differences\">differences</a> &middot; <a href=\"#timeline\">timeline</a> "
                    "&middot; <a href=\"#candidates\">evidence</a> &middot; <a href=\"#inputs\">inputs</a> &middot; "
                    "<a href=\"#reproduce\">reproduce</a> &middot; <a href=\"#harness\">harness</a></p></header>\n<main>\n";
  out += verdict_section(model);
  out += plots_section(model);
  out += differences_section(model);
  out += timeline_section(model);
  out += probes_section(model);
  out += candidates_section(model);
  out += builds_section(model);
  out += inputs_section(model);
  out += reproduce_section(model);
  out += harness_section(model);
  return out + "</main>\n</body>\n</html>\n";
}

}  // namespace envbisect::report
