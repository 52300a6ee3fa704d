#include <catch2/catch.hpp>

#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/render.hpp"
#include "report/report_model.hpp"
#include "report/report_text.hpp"
#include "report/svg_plot.hpp"
#include "core/delta.hpp"
#include "report/delta_table.hpp"
#include "util/strings.hpp"

using nlohmann::json;
using namespace envbisect::report;

namespace {

// A small two-session run: two deltas, the anchors, three decisions, a probe, and a record type the
// renderer does not know. The first session's decision must not show (a resumed run recomputes them).
const char* k_journal = R"JSONL(
{"type":"start","version":"0.1.0","resumed":false,"run":{},"deltas":[{"dimension":"env","name":"FLAG_A","good":"old","bad":"new"},{"dimension":"packages","name":"torch","good":null,"bad":"2.11.0+cu130"}]}
{"type":"build","env_hash":"e1e1e1e1e1e1e1e1e1e1","ok":true,"reason":"","builder":"pip","python":"/runs/x/envs/e1/bin/python","installed":{"torch":"2.11.0+cu130"},"logs":[],"seconds":1.5,"t":1000.0}
{"type":"attempt","candidate":"aaaaaaaaaaaaaaaa0000","applied":[],"env_hash":"e0e0e0e0e0e0e0e0e0e0","recipe_hash":"r","attempt":0,"status":"ok","exit_code":0,"signal":0,"metric":100.0,"checksum":"c0ffee","error_class":"","wall_s":0.5,"stdout":"/runs/x/attempts/aaaaaaaaaaaaaaaa/0/stdout.txt","stderr":"/runs/x/attempts/aaaaaaaaaaaaaaaa/0/stderr.txt","t":1001.0}
{"type":"attempt","candidate":"bbbbbbbbbbbbbbbb0000","applied":[0,1],"env_hash":"e1e1e1e1e1e1e1e1e1e1","recipe_hash":"r","attempt":0,"status":"ok","exit_code":0,"signal":0,"metric":20.0,"checksum":"c0ffee","error_class":"","wall_s":0.5,"stdout":"/runs/x/attempts/bbbbbbbbbbbbbbbb/0/stdout.txt","stderr":"","t":1002.0}
{"type":"decision","n":1,"stage":"isolate","label":"stale","applied":[0],"candidate":"dddddddddddddddd0000","verdict":"bad","runs":3,"reason":"stale session"}
{"type":"start","version":"0.2.0","resumed":true,"run":{},"deltas":[{"dimension":"env","name":"FLAG_A","good":"old","bad":"new"},{"dimension":"packages","name":"torch","good":null,"bad":"2.11.0+cu130"}]}
{"type":"attempt","candidate":"aaaaaaaaaaaaaaaa0000","applied":[],"env_hash":"e0e0e0e0e0e0e0e0e0e0","recipe_hash":"r","attempt":1,"status":"ok","exit_code":0,"signal":0,"metric":104.0,"checksum":"c0ffee","error_class":"","wall_s":0.5,"stdout":"","stderr":"","t":1003.0}
{"type":"attempt","candidate":"bbbbbbbbbbbbbbbb0000","applied":[0,1],"env_hash":"e1e1e1e1e1e1e1e1e1e1","recipe_hash":"r","attempt":1,"status":"failed","exit_code":1,"signal":0,"metric":null,"checksum":null,"error_class":"RuntimeError <FX>","wall_s":0.5,"stdout":"","stderr":"","t":1004.0}
{"type":"preflight","anchor_runs":2,"preflight":{"distinguishable":true,"good_median":102.0,"bad_median":20.0,"good_cv":0.02,"bad_cv":0.0,"effect":5.1,"metric_p":0.0079,"failure_p":1.0,"message":"bad is 5.1x worse"}}
{"type":"attempt","candidate":"cccccccccccccccc0000","applied":[1],"env_hash":"e1e1e1e1e1e1e1e1e1e1","recipe_hash":"r","attempt":0,"status":"ok","exit_code":0,"signal":0,"metric":21.0,"checksum":"c0ffee","error_class":"","wall_s":0.5,"stdout":"","stderr":"","t":1005.0}
{"type":"decision","n":1,"stage":"isolate","label":"{packages/torch}","applied":[1],"candidate":"cccccccccccccccc0000","verdict":"bad","runs":1,"median":21.0,"reason":"bad: like the bad anchor","p_vs_good":0.01,"p_vs_bad":0.9,"position":1.0,"different_failure":false,"checksum_mismatch":false}
{"type":"attempt","candidate":"eeeeeeeeeeeeeeee0000","applied":[0],"env_hash":"e0e0e0e0e0e0e0e0e0e0","recipe_hash":"r","attempt":0,"status":"ok","exit_code":0,"signal":0,"metric":99.0,"checksum":"c0ffee","error_class":"","wall_s":0.5,"stdout":"","stderr":"","t":1006.0}
{"type":"decision","n":2,"stage":"isolate","label":"{env/FLAG_A}","applied":[0],"candidate":"eeeeeeeeeeeeeeee0000","verdict":"good","runs":1,"median":99.0,"reason":"good: like the good anchor","p_vs_good":0.8,"p_vs_bad":0.01,"position":0.0,"different_failure":false,"checksum_mismatch":false}
{"type":"attempt","candidate":"ffffffffffffffff0000","applied":[1],"env_hash":"e1e1e1e1e1e1e1e1e1e1","recipe_hash":"r","attempt":0,"status":"ok","exit_code":0,"signal":0,"metric":98.0,"checksum":"c0ffee","error_class":"","wall_s":0.5,"stdout":"","stderr":"","t":1007.0}
{"type":"decision","n":3,"stage":"probe","label":"threads/drafter_threads = 1","applied":[1],"candidate":"ffffffffffffffff0000","verdict":"good","runs":1,"median":98.0,"reason":"good"}
{"type":"probe","knob":"threads/drafter_threads","value":1,"cache":"inductor:cold","verdict":"good","median":98.0}
{"type":"probe","knob":"threads/drafter_threads","value":3,"cache":"inductor:cold","verdict":"bad","median":21.0}
{"type":"telemetry","gpu":"H200","note":"a record type this renderer has never seen"}
{"type":"result","result":{"found":true,"cause":[{"dimension":"packages","name":"torch","good":null,"bad":"2.11.0+cu130"}],"verified":{"forward":true,"reverse":true},"evaluations":2,"attempts_run":5,"attempts_reused":2,"seconds":7.0,"note":"","metric":"tok_per_s","steps":[{"applied":[],"verdict":"good","why":"good anchor, measured by the caller"},{"applied":[1],"verdict":"bad","why":"split {0,1}: test {1} on top of {}"},{"applied":[0],"verdict":"good","why":"verify reverse: bad minus {1} = {0} on top of good"}]}}
)JSONL";

std::vector<json> records() {
  std::vector<json> out;
  std::istringstream lines(k_journal);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty()) {
      out.push_back(json::parse(line));
    }
  }
  return out;
}

ReportModel fixed_model() {
  json run = {{"good", "/in/good state.json"}, {"good_sha256", std::string(64, '1')}, {"bad", "/in/bad.json"},
              {"bad_sha256", std::string(64, '2')}, {"recipe", "/in/recipe.json"}, {"recipe_sha256", std::string(64, '3')},
              {"wheels", {"/in/wheels"}}, {"repeats", 0}, {"max_runs", 10}, {"anchor_runs", 5}};
  ReportModel model = model_from_journal(records(), run, "/runs/x");
  model.journal_sha256 = std::string(64, 'a');
  model.recipe.available = true;
  model.recipe.command = {"{python}", "{recipe_dir}/bench.py", "--seed", "{seed}", "--threads", "{threads.n}"};
  model.recipe.metric = "tok_per_s";
  model.recipe.direction = "higher";
  model.recipe.seed = 7;
  model.excerpts["aaaaaaaaaaaaaaaa/0"] = {"line 1\nline 2\n{\"tok_per_s\": 100.0}\n", "warning: <careful>\n", true, true};
  return model;
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("the model keeps every session's attempts and the last session's decisions", "[report]") {
  ReportModel model = fixed_model();
  CHECK(model.sessions == 2);
  CHECK(model.versions == std::vector<std::string>{"0.1.0", "0.2.0"});
  CHECK(model.attempts.size() == 7);
  REQUIRE(model.decisions.size() == 3);
  CHECK(model.decisions[0].label == "{packages/torch}");
  CHECK(model.decisions[0].why == "split {0,1}: test {1} on top of {}");
  CHECK(model.decisions[1].why == "verify reverse: bad minus {1} = {0} on top of good");
  CHECK(model.decisions[2].why.empty());  // probes are not search steps
  CHECK(model.decisions[0].runs_before == 5);
  CHECK(model.probes.size() == 2);
  REQUIRE(model.others.size() == 1);
  CHECK(model.others[0].type == "telemetry");
  REQUIRE(model.candidates.size() == 5);
  CHECK(model.candidates[0].role == "good-anchor");
  CHECK(model.candidates[0].attempts.size() == 2);
  CHECK(model.candidates[1].role == "bad-anchor");
  CHECK(model.candidates[2].label == "{packages/torch}");
  CHECK(model.t_first == 1000.0);
  CHECK(model.t_last == 1007.0);
  CHECK(cause_indices(model) == std::vector<std::size_t>{1});
}

TEST_CASE("the verdict cites the decisions that verified it both ways", "[report]") {
  ReportModel model = fixed_model();
  VerdictSummary summary = summarize(model);
  CHECK(headline(summary) == "cause found: 1 difference, verified both ways");
  REQUIRE(summary.forward_decision != nullptr);
  CHECK(summary.forward_decision->n == 1);
  REQUIRE(summary.reverse_decision != nullptr);
  CHECK(summary.reverse_decision->n == 2);
  REQUIRE(summary.modifiers.size() == 1);
  CHECK(summary.modifiers[0] == "with the cause applied, threads/drafter_threads (inductor:cold) 1: good, 3: bad");
}

TEST_CASE("the verdict cites the latest decision about the cause, not its first one-run look", "[report]") {
  // run14 on one H200: {threads} was called bad on one run, the run left one-run mode and re-measured
  // it on 15 runs; the Verdict section still cited the one-run decision as the evidence.
  std::vector<json> journal = records();
  const json recheck = json::parse(
      R"({"type":"decision","n":4,"stage":"recheck","label":"{packages/torch}","applied":[1],"candidate":"cccccccccccccccc0000","verdict":"bad","runs":6,"median":21.0,"reason":"bad: on six runs"})");
  const json refine = json::parse(
      R"({"type":"decision","n":5,"stage":"refine","label":"packages/torch = 2.10","applied":[1],"candidate":"9999999999999999","verdict":"good","runs":3,"median":99.0,"reason":"good"})");
  journal.insert(journal.end() - 1, recheck);
  journal.insert(journal.end() - 1, refine);
  json run = {{"good", "/in/good.json"}, {"bad", "/in/bad.json"}, {"recipe", "/in/recipe.json"}};
  ReportModel model = model_from_journal(journal, run, "/runs/x");
  VerdictSummary summary = summarize(model);
  REQUIRE(summary.forward_decision != nullptr);
  CHECK(summary.forward_decision->n == 4);
  CHECK(summary.forward_decision->runs == 6);
  REQUIRE(summary.reverse_decision != nullptr);
  CHECK(summary.reverse_decision->n == 2);
}

TEST_CASE("a cause that is every difference re-read the anchors: no report calls it verified both ways", "[report]") {
  // One difference (a commit range, an env var): good + cause is the bad anchor and bad - cause the good
  // one. The terminal says "not a verification"; the report once said "verified both ways".
  ReportModel model = fixed_model();
  (*model.result)["rereads_anchors"] = true;
  const VerdictSummary summary = summarize(model);
  CHECK(summary.rereads_anchors);
  CHECK(headline(summary) ==
        "cause found: 1 difference, every difference between the anchors (its verification re-read the anchors)");
  const std::string md = render_markdown(model);
  CHECK(md.find("verified both ways") == std::string::npos);
  CHECK(md.find("**verified**") == std::string::npos);
  CHECK(md.find("- good + cause -> bad: **the bad anchor itself**, re-read (not a separate check)") != std::string::npos);
  CHECK(md.find("- bad - cause -> good: **the good anchor itself**, re-read (not a separate check)") != std::string::npos);
  const std::string html = render_html(model);
  CHECK(html.find("verified both ways") == std::string::npos);
  CHECK(html.find("<b>verified</b>") == std::string::npos);
  CHECK(html.find("<b>the bad anchor itself</b>") != std::string::npos);
  const json doc = json::parse(render_json(model));
  CHECK(doc["verdict"]["rereads_anchors"] == true);
  CHECK(doc["verdict"]["headline"] == headline(summary));
  // A cause that is not every difference keeps its two verifications.
  CHECK(render_markdown(fixed_model()).find("- good + cause -> bad: **verified**") != std::string::npos);
}

TEST_CASE("Markdown report: verdict, evidence, reproduction, byte-identical twice", "[report]") {
  ReportModel model = fixed_model();
  std::string md = render_markdown(model);
  CHECK(md == render_markdown(fixed_model()));
  CHECK(md.find("**cause found: 1 difference, verified both ways**") != std::string::npos);
  CHECK(md.find("| `packages/torch` | `(absent)` | `2.11.0+cu130` |") != std::string::npos);
  CHECK(md.find("decision #1 `{packages/torch}`: **bad** after 1 runs, median 21") != std::string::npos);
  CHECK(md.find("(#candidate-cccccccccccc)") != std::string::npos);
  CHECK(md.find("<a id=\"candidate-cccccccccccc\"></a>") != std::string::npos);
  // The recorded command template with what the journal fixes filled in, shell-quoted.
  CHECK(md.find("/runs/x/envs/e1/bin/python /in/bench.py --seed 7 --threads '{threads.n}'") != std::string::npos);
  CHECK(md.find("envbisect run '/in/good state.json' /in/bad.json --recipe /in/recipe.json --wheels /in/wheels "
                "--max-runs 10 --anchor-runs 5 --out /runs/x-again") != std::string::npos);
  CHECK(md.find("envbisect replay /runs/x") != std::string::npos);
  CHECK(md.find("stale session") == std::string::npos);
  CHECK(md.find("failed: exit 1 (RuntimeError &lt;FX&gt;)") != std::string::npos);  // HTML from the journal is text
  CHECK(md.find("{\"tok_per_s\": 100.0}") != std::string::npos);
  CHECK(md.find("| `telemetry` |") != std::string::npos);
  CHECK(md.find("0.1.0, 0.2.0") != std::string::npos);
}

TEST_CASE("HTML report: self-contained, themed, printable, four plots, escaped", "[report]") {
  ReportModel model = fixed_model();
  std::string html = render_html(model);
  CHECK(html == render_html(fixed_model()));
  CHECK(count(html, "<svg ") == 4);
  CHECK(html.find("id=\"plot-probes\"") != std::string::npos);
  CHECK(html.find("prefers-color-scheme:dark") != std::string::npos);
  CHECK(html.find("@media print") != std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("url(") == std::string::npos);
  CHECK(count(html, "http") == count(html, "http://www.w3.org/2000/svg"));
  CHECK(html.find("RuntimeError &lt;FX&gt;") != std::string::npos);
  CHECK(html.find("warning: &lt;careful&gt;") != std::string::npos);
  CHECK(html.find("<FX>") == std::string::npos);
  // Without probes, there is no heat grid.
  model.probes.clear();
  CHECK(count(render_html(model), "<svg ") == 3);
}

TEST_CASE("JSON report: the same facts, parseable, byte-identical twice", "[report]") {
  std::string text = render_json(fixed_model());
  CHECK(text == render_json(fixed_model()));
  json doc = json::parse(text);
  CHECK(doc["format"] == 1);
  CHECK(doc["verdict"]["found"] == true);
  CHECK(doc["verdict"]["cause"][0]["name"] == "torch");
  CHECK(doc["verdict"]["forward_decision"] == 1);
  CHECK(doc["verdict"]["reverse_decision"] == 2);
  CHECK(doc["timeline"].size() == 3);
  CHECK(doc["candidates"].size() == 5);
  CHECK(doc["candidates"][0]["attempts"][0]["stdout"] == "attempts/aaaaaaaaaaaaaaaa/0/stdout.txt");
  CHECK(doc["probes"].size() == 2);
  CHECK(doc["other_records"][0]["type"] == "telemetry");
}

TEST_CASE("an unfinished run renders without a result", "[report]") {
  std::vector<json> partial = records();
  partial.resize(9);  // up to the second session's preflight
  ReportModel model = model_from_journal(partial, json::object(), "/runs/y");
  CHECK(!model.result);
  std::string md = render_markdown(model);
  CHECK(md.find("interrupted: the run did not finish (envbisect resume /runs/y continues it)") != std::string::npos);
  CHECK(render_html(model).find("<svg ") != std::string::npos);
  CHECK(json::parse(render_json(model))["verdict"]["finished"] == false);
}

TEST_CASE("a run stopped by its inputs says so, with the cause of each failed run", "[report]") {
  std::vector<json> partial = records();
  partial.resize(9);
  partial.push_back({{"type", "attempt"}, {"candidate", "aaaaaaaaaaaaaaaa0000"}, {"applied", json::array()},
                     {"attempt", 7}, {"status", "failed"}, {"exit_code", 0}, {"cause", "no_metric_key"},
                     {"diagnosis", "printed JSON without the recipe's metric key \"m\"; its keys: loss"}});
  partial.push_back({{"type", "stopped"}, {"why", "input_error"}, {"message", "every run of both anchors failed"}});
  ReportModel model = model_from_journal(partial, json::object(), "/runs/y");
  std::string md = render_markdown(model);
  CHECK(md.find("stopped by an input error (fix it and start a new run; resuming repeats it): every run of both "
                "anchors failed") != std::string::npos);
  CHECK(md.find("failed: printed JSON without the recipe's metric key") != std::string::npos);
  CHECK(json::parse(render_json(model))["candidates"][0]["attempts"].back()["cause"] == "no_metric_key");
}

TEST_CASE("a run whose anchors could not be told apart is finished, not resumable", "[report]") {
  std::vector<json> partial = records();
  partial.resize(9);
  ReportModel model = model_from_journal(partial, json::object(), "/runs/y");
  REQUIRE(model.preflight);
  model.preflight->distinguishable = false;
  model.preflight->message = "good median 100; bad median 101";
  CHECK(headline(summarize(model)) ==
        "finished without a cause: the anchors could not be told apart (good median 100; bad median 101)");
}

TEST_CASE("text helpers: numbers, code spans, tails", "[report]") {
  CHECK(format_number(20937.8) == "20 938");
  CHECK(format_number(204.565) == "204.6");
  CHECK(format_number(0.0179) == "0.0179");
  CHECK(format_number(0) == "0");
  CHECK(format_p(0.007936507936507936) == "0.00794");
  CHECK(format_duration(158.4) == "2 min 38 s");
  CHECK(format_utc(1795992097.5) == "2026-11-29 22:41:37 UTC");
  CHECK(md_code("a`b") == "``a`b``");
  CHECK(md_code("x|y") == "`x\\|y`");
  CHECK(tail_lines("1\n2\n3\n4\n", 2, 100) == "...\n3\n4");
  CHECK(tail_lines("1\n2\n", 5, 100) == "1\n2");
  CHECK(tail_lines("abcdef", 5, 3) == "...\ndef");
  CHECK(html_escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
}

TEST_CASE("Markdown report: HTML and Markdown from the journal are text, never markup", "[report]") {
  // A journal (tampered, or holding what a benchmark chose to print) carries HTML in error classes,
  // labels, verdicts, reasons, hashes and delta names.
  std::string text = k_journal;
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
      text.replace(at, from.size(), to);
    }
  };
  replace_all("RuntimeError <FX>", "<img src=x onerror=alert(1)>");
  replace_all("\"label\":\"{env/FLAG_A}\"", "\"label\":\"<script>alert(2)</script>\"");
  replace_all("\"reason\":\"good: like the good anchor\"", "\"reason\":\"<b>good</b> [click](http://evil/) \\u001b]0;owned\\u0007\"");
  replace_all("\"verdict\":\"good\",\"runs\":1,\"median\":99.0", "\"verdict\":\"<i>good</i>\",\"runs\":1,\"median\":99.0");
  replace_all("\"candidate\":\"eeeeeeeeeeeeeeee0000\"", "\"candidate\":\"e\\\"><script>x</script>\"");
  replace_all("\"message\":\"bad is 5.1x worse\"", "\"message\":\"<iframe src=//evil>\"");
  std::vector<json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) {
      lines.push_back(json::parse(line));
    }
  }
  ReportModel model = model_from_journal(lines, json::object(), "/runs/x");
  const std::string md = render_markdown(model);
  // Outside code spans and fences no tag survives: every '<' the journal brought is an entity.
  const std::string outside_code =
      std::regex_replace(md.substr(0, md.find("## Reproduce")) + md.substr(md.find("<a id=\"verdict-details\">")),
                         std::regex("`[^`\n]*`"), "");
  for (const char* raw : {"<img", "<script", "<b>", "<i>", "<iframe", "[click](", "\x1b", "\x07"}) {
    CAPTURE(raw);
    CHECK(outside_code.find(raw) == std::string::npos);
  }
  CHECK(md.find("&lt;img src=x onerror=alert(1)&gt;") != std::string::npos);
  CHECK(md.find("&lt;iframe src=//evil&gt;") != std::string::npos);
  CHECK(md.find("\\[click\\](http://evil/)") != std::string::npos);
  CHECK(md.find("\\\\x1b\\]0;owned\\\\x07") != std::string::npos);  // renders as "\x1b]0;owned\x07"
  // The hostile candidate hash stays inside a code span; its anchor keeps letters and digits.
  CHECK(md.find("<a id=\"candidate-escriptx\"></a>\n### &lt;script&gt;alert(2)&lt;/script&gt; (`e\"><script>x`)") !=
        std::string::npos);
  // The only raw HTML left is the renderer's own anchors, with ids made of letters and digits.
  CHECK(md.find("<a id=\"candidate-escriptx\"></a>") != std::string::npos);
  CHECK(md_cell("a<b>&c|d\\e[f]`g") == "a&lt;b&gt;&amp;c\\|d\\\\e\\[f\\]\\`g");
  // The HTML report keeps the same ids: no quote from the journal ends an attribute there either.
  const std::string html = render_html(model);
  CHECK(html.find("id=\"candidate-escriptx\"") != std::string::npos);
  CHECK(html.find("\"><script>") == std::string::npos);
}

TEST_CASE("terminal output shows control characters from states as escapes", "[report]") {
  CHECK(envbisect::escape_control("title\x1b]0;pwned\x07 clear\x1b[2J") == "title\\x1b]0;pwned\\x07 clear\\x1b[2J");
  CHECK(envbisect::escape_control("tab\tnl\nnul") == "tab\\x09nl\\x0anul");
  CHECK(envbisect::escape_control("caf\xc3\xa9 \xe2\x86\x92 ok") == "caf\xc3\xa9 \xe2\x86\x92 ok");  // UTF-8 stays
  CHECK(envbisect::escape_control("csi \xc2\x9b" "31m") == "csi \\u009b31m");                       // C1 control
  CHECK(envbisect::escape_control("raw \x9b\xff del\x7f") == "raw \\x9b\\xff del\\x7f");             // not UTF-8
  envbisect::Delta delta;
  delta.dimension = envbisect::Dimension::env;
  delta.name = "BANNER";
  delta.good = "hi";
  delta.bad = "\x1b]0;owned\x07\x1b[2J";
  const std::string table = envbisect::render_delta_table({delta});
  CHECK(table.find('\x1b') == std::string::npos);
  CHECK(table.find("\\x1b]0;owned\\x07\\x1b[2J") != std::string::npos);
  CHECK(envbisect::describe(delta).find('\x1b') == std::string::npos);
}

TEST_CASE("the verdict shows the cause's effect with its interval and counters that count what they say",
          "[report]") {
  std::vector<json> with_effect = records();
  std::size_t last = with_effect.size() - 1;
  while (with_effect[last]["type"] != "result") {
    --last;
  }
  json& result = with_effect[last]["result"];
  result["decisions"] = 7;
  result["effect"] = {{"of", "cause"}, {"ratio", 0.2}, {"low", 0.19}, {"high", 0.21}, {"from_runs", 5},
                      {"to_runs", 6}, {"method", "Hodges-Lehmann ratio on the log scale, exact Mann-Whitney interval"},
                      {"words", "5.00x slower"}};
  ReportModel model = model_from_journal(with_effect, json::object(), "/runs/x");
  model.recipe.unit = "tok/s";
  const std::string md = render_markdown(model);
  // First in the user's terms, with the interval in the same terms; the statistics' wording in the appendix.
  CHECK(md.find("- **effect**: 5× slower (95 % CI 4.76–5.26×) in tok/s, 5 good runs vs 6 with the cause") !=
        std::string::npos);
  CHECK(md.find("- effect, as the statistics state it: the cause multiplies tok_per_s by 0.2 (95 % CI 0.19 to 0.21; "
                "Hodges-Lehmann ratio on the log scale, exact Mann-Whitney interval, 5 good vs 6 runs with it): 5.00x "
                "slower") > md.find("## Appendix A"));
  CHECK(md.find("- effort: 7 candidates decided (2 while isolating), 5 benchmark runs") != std::string::npos);
  CHECK(md.find("| runs | median (tok/s) |") != std::string::npos);
  CHECK(render_html(model).find("<b>effect</b>: <b>5× slower (95 % CI 4.76–5.26×)") != std::string::npos);
}


TEST_CASE("the report names the host and flags decisions taken under a higher load than the anchors'", "[report]") {
  std::vector<json> loaded = records();
  for (json& record : loaded) {
    if (record["type"] == "start") {
      record["host"] = {{"hostname", "box"}, {"kernel", "Linux 6.1 x86_64"}, {"cpu", "EPYC"}, {"cores", 16},
                        {"loadavg", {0.5, 0.25, 0.125}}, {"mem_available_mib", 120000},
                        {"gpus", {{{"name", "H200"}, {"driver", "570.1"}, {"sm_clock", "1980 MHz"},
                                   {"max_sm_clock", "1980 MHz"}, {"mem_clock", "3201 MHz"}}}}};
    }
    if (record["type"] == "attempt") {
      // The anchors ran on an idle machine; candidate c... under load.
      record["load1"] = record["candidate"] == "cccccccccccccccc0000" ? 4.0 : 0.5;
    }
  }
  ReportModel model = model_from_journal(loaded, json::object(), "/runs/x");
  CHECK(host_sentence(model) == "box; Linux 6.1 x86_64; EPYC; 16 cores; load 0.50 0.25 0.12; 120 000 MiB free; H200 "
                                "(driver 570.1, SM clock 1980 MHz of 1980 MHz, memory clock 3201 MHz)");
  const std::vector<std::string> flags = load_flags(model);
  REQUIRE(flags.size() == 1);
  CHECK(flags[0].find("ran at load 4.00, the anchors at 0.50") != std::string::npos);
  CHECK(render_markdown(model).find("- higher load than the anchors: decision") != std::string::npos);
}

TEST_CASE("the strip chart names every decision, and says so when it cannot be drawn", "[report]") {
  // The demo's chart showed #7 and #8 but not #9 and #12, their candidates asked again in the re-check,
  // nor a decision about an anchor's own candidate (bad minus a cause that is every difference).
  std::vector<json> asked_again = records();
  std::size_t at = 0;
  while (asked_again[at]["type"] != "probe") {
    ++at;
  }
  asked_again.insert(asked_again.begin() + static_cast<std::ptrdiff_t>(at),
                     json{{"type", "decision"}, {"n", 4}, {"stage", "recheck"}, {"label", "{packages/torch}"},
                      {"applied", {1}}, {"candidate", "cccccccccccccccc0000"}, {"verdict", "bad"}, {"runs", 1},
                      {"median", 21.0}, {"reason", "bad"}});
  asked_again.insert(asked_again.begin() + static_cast<std::ptrdiff_t>(at) + 1,
                     json{{"type", "decision"}, {"n", 5}, {"stage", "verify"}, {"label", "bad - cause"},
                      {"applied", json::array()}, {"candidate", "aaaaaaaaaaaaaaaa0000"}, {"verdict", "good"},
                      {"runs", 2}, {"median", 102.0}, {"reason", "good"}});
  const ReportModel model = model_from_journal(asked_again, json::object(), "/runs/x");
  REQUIRE(model.decisions.size() == 5);
  const std::string svg = svg_metric_per_candidate(model);
  std::set<int> named;
  const std::regex tick(">#([0-9]+)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick); it != std::sregex_iterator(); ++it) {
    named.insert(std::stoi((*it)[1].str()));
  }
  CHECK(named == std::set<int>{1, 2, 3, 4, 5});
  // Each candidate keeps one column: #4 under #1's, #5 under the good anchor's.
  CHECK(svg.find(">#1</text>") < svg.find(">#4</text>"));
  CHECK(svg.find(">good</text>") < svg.find(">#5</text>"));
  CHECK(svg.find(">#5</text>") < svg.find(">bad</text>"));
  CHECK(render_html(model).find("id=\"plot-metric-not-drawn\"") == std::string::npos);

  // No run produced a metric (a pass/fail run): no chart, and the report says why.
  std::vector<json> exit_status_only = records();
  for (json& record : exit_status_only) {
    if (record["type"] == "attempt") {
      record["metric"] = nullptr;
    }
  }
  const ReportModel pass_fail = model_from_journal(exit_status_only, json::object(), "/runs/x");
  CHECK(svg_metric_per_candidate(pass_fail).empty());
  const std::string html = render_html(pass_fail);
  CHECK(html.find("id=\"plot-metric\"") == std::string::npos);
  CHECK(html.find("Runs per candidate: not drawn, since no run produced a metric") != std::string::npos);
}
