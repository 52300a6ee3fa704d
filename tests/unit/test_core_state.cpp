#include <catch2/catch.hpp>

#include "core/delta.hpp"
#include "core/state.hpp"
#include "report/delta_table.hpp"
#include "util/error.hpp"

#include <nlohmann/json.hpp>

#include <set>

using namespace envbisect;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_state(text, "good.json");
  } catch (const Error& error) {
    CHECK(error.code() == ExitCode::bad_input);
    return error.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a full state parses and round-trips", "[core][state]") {
  std::string text = R"({
    "format": 1, "name": "good",
    "python": {"version": "3.11"},
    "packages": {"FauxTorch": "2.11.0+cu128", "faux_transformers": {"version": "5.8.1", "wheel": "faux_transformers-5.8.1-py3-none-any.whl"}},
    "repos": {"dflash": {"path": "repos/dflash", "commit": "0123abcd"}},
    "caches": {"inductor": {"role": "inductor", "state": "warm"}},
    "threads": {"drafter_threads": 3},
    "env": {"NCCL_DEBUG": "WARN"},
    "data": {"train_samples": 902087},
    "gpus": {"target": [0, 1, 2, 3, 4], "drafter": [5, 6, 7]}
  })";
  EnvState state = parse_state(text, "good.json");
  CHECK(state.packages.at("fauxtorch").version == "2.11.0+cu128");
  CHECK(state.packages.at("faux-transformers").wheel == std::optional<std::string>("faux_transformers-5.8.1-py3-none-any.whl"));
  CHECK(state.repos.at("dflash").commit == "0123abcd");
  CHECK(state.caches.at("inductor").state == "warm");
  CHECK(state.threads.at("drafter_threads") == 3);
  CHECK(state.data.at("train_samples") == "902087");
  CHECK(state.gpus.drafter == std::vector<int>{5, 6, 7});
  EnvState again = parse_state(state_to_json(state).dump(), "again.json");
  CHECK(again == state);
}

TEST_CASE("bad states name the file, the JSON pointer and what was expected", "[core][state]") {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {R"({"packages": {}})", "good.json: /format: missing; expected 1"},
      {R"({"format": 2})", "good.json: /format: expected 1"},
      {R"({"format": 1, "pakages": {}})", "good.json: /pakages: unknown field 'pakages' (did you mean 'packages'?)"},
      {R"({"format": 1, "packages": {"torch": 2.11}})", "good.json: /packages/torch: expected a version string or an object"},
      {R"({"format": 1, "packages": {"torch": "two"}})", "good.json: /packages/torch: invalid PEP 440 version 'two'"},
      {R"({"format": 1, "packages": {"torch": {"version": 1}}})", "good.json: /packages/torch/version: expected a string, got an integer"},
      {R"({"format": 1, "packages": {"torch": {"version": "1.0", "sha256": "abc"}}})", "/packages/torch/sha256: expected 64 hex digits"},
      {R"({"format": 1, "packages": {"Foo_Bar": "1.0", "foo-bar": "1.0"}})", "duplicate package"},
      {R"({"format": 1, "packages": {"-bad": "1.0"}})", "/packages/-bad: invalid package name"},
      {R"({"format": 1, "repos": {"r": {"path": "x"}}})", "good.json: /repos/r/commit: missing; expected a string"},
      {R"({"format": 1, "repos": {"r": {"path": "x", "commit": ""}}})", "/repos/r/commit: expected a commit id, tag, branch or revision (v2.3, main~4), got an empty string"},
      {R"({"format": 1, "repos": {"r": {"path": "x", "commit": "v1 .0"}}})", "/repos/r/commit: expected a commit id, tag, branch or revision (v2.3, main~4), got text with a space"},
      {R"({"format": 1, "repos": {"r": {"path": "x", "commit": "main\u0007"}}})", "/repos/r/commit: expected a commit id, tag, branch or revision (v2.3, main~4), got text with a space or control character"},
      {R"({"format": 1, "repos": {"r": {"path": "x", "commit": "--upload-pack=x"}}})", "/repos/r/commit: expected a commit id, tag, branch or revision (v2.3, main~4), got '--upload-pack=x', which starts with '-'"},
      {R"({"format": 1, "caches": {"inductor": {"state": "tepid"}}})", "/caches/inductor/state: expected \"cold\", \"warm\" or a snapshot path"},
      {R"({"format": 1, "threads": {"drafter_threads": -1}})", "/threads/drafter_threads: expected a non-negative integer"},
      {R"({"format": 1, "threads": {"drafter_threads": "3"}})", "/threads/drafter_threads: expected a non-negative integer"},
      {R"({"format": 1, "env": {"A": 1}})", "/env/A: expected a string, got an integer"},
      {R"({"format": 1, "data": {"x": [1]}})", "/data/x: expected a string, number or boolean"},
      {R"({"format": 1, "gpus": {"target": [0], "drafter": [0]}})", "GPU 0 is both a target and a drafter GPU"},
      {R"({"format": 1, "gpus": {"target": "0"}})", "/gpus/target: expected an array of GPU indices"},
      {R"({"format": 1, "gpus": {"target": [0, 1, 0]}})", "good.json: /gpus/target/2: GPU 0 is listed twice"},
      {R"({"format": 1, "python": {"version": "3.11.x"}})", "good.json: /python/version: expected a Python version such as 3.11 or 3.11.4, got '3.11.x'"},
      {R"({"format": 1, "python": {"version": "3"}})", "/python/version: expected a Python version such as 3.11"},
      {R"({"format": 1, "packages": {"torch": {"version": "1.0", "wheel": "../../etc/passwd"}}})", "good.json: /packages/torch/wheel: expected a wheel file name (NAME-VERSION-PY-ABI-PLATFORM.whl, no folder), got '../../etc/passwd'"},
      {R"({"format": 1, "packages": {"torch": {"version": "1.0", "wheel": "other-1.0-py3-none-any.whl"}}})", "good.json: /packages/torch/wheel: 'other-1.0-py3-none-any.whl' is other 1.0, not torch 1.0"},
      {R"({"format": 1, "packages": {"torch": {"version": "1.0", "wheel": "torch-2.0-py3-none-any.whl"}}})", "/packages/torch/wheel: 'torch-2.0-py3-none-any.whl' is torch 2.0, not torch 1.0"},
      {R"({"format": 1, "packages": {"torch": {"wheel": "torch-2.0-py3-none-any.whl"}}})", "good.json: /packages/torch/version: missing; expected a string"},
      {R"({"format": 1, "python": {"versoin": "3.11"}})", "/python/versoin: unknown field 'versoin' (did you mean 'version'?)"},
      {R"({"format": 1, "packages": {"alpha": ""}})", "good.json: /packages/alpha: invalid PEP 440 version ''"},
      // Repository and cache names become folders: "../" would put a checkout or a snapshot outside the run.
      {R"({"format": 1, "repos": {"../../escape": {"path": "x", "commit": "v1"}}})", "good.json: /repos/..~1..~1escape: invalid name '../../escape': starts with '.'"},
      {R"({"format": 1, "repos": {"a/b": {"path": "x", "commit": "v1"}}})", "/repos/a~1b: invalid name 'a/b': only letters, digits"},
      {R"({"format": 1, "caches": {"../../../c": {"state": "warm"}}})", "/caches/..~1..~1..~1c: invalid name"},
      {R"({"format": 1, "caches": {"": {"state": "warm"}}})", "good.json: /caches/: invalid name: empty"},
      {R"({"format": 1, "threads": {"": 1}})", "good.json: /threads/: invalid name: empty"},
      {R"({"format": 1, "python": {"interpreter": ""}})", "good.json: /python/interpreter: got an empty string"},
      {R"([1, 2])", "expected a JSON object (an environment state)"},
      {"{\n  \"format\": 1,\n  \"packages\": {,}\n}", "good.json:3:16: malformed JSON"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK_THAT(error_of(c.text), Catch::Contains(c.expected));
  }
  // Without a version there is nothing to hold a wheel pin against: one problem, not two.
  CHECK(error_of(R"({"format": 1, "packages": {"torch": {"wheel": "torch-2.0-py3-none-any.whl"}}})") ==
        "good.json: /packages/torch/version: missing; expected a string");
}

TEST_CASE("a repo's commit may be a tag, branch or revision, kept as written until resolved", "[core][state]") {
  for (const char* text : {"v2.3", "main~4", "HEAD~2", "0a515c7", "release/2.3^{commit}", "HEAD@{1}"}) {
    const std::string rev = text;
    INFO(rev);
    EnvState state = parse_state(R"({"format": 1, "repos": {"r": {"path": "x", "commit": ")" + rev + R"("}}})", "s.json");
    CHECK(state.repos.at("r").commit == rev);
    CHECK(state.repos.at("r").ref.empty());
  }
}

TEST_CASE("a resolved repo delta carries the resolved ids, its refs beside them", "[core][delta]") {
  const std::string a = "0a515c7dd136666e63a698b7fe0f83642a6e0b57";
  const std::string b = "1b626d8ee247777f74b709c8af1f94753b7f1c68";
  EnvState good;
  EnvState bad;
  good.repos["app"] = RepoPin{"/r", "", a, "v2.3"};
  bad.repos["app"] = RepoPin{"/r", "", b, ""};
  const std::vector<Delta> deltas = diff_states(good, bad);
  REQUIRE(deltas.size() == 1);
  CHECK(deltas[0].good == a);  // a commit axis walks the ids
  CHECK(deltas[0].bad == b);
  CHECK(delta_to_json(deltas[0]) == nlohmann::json{{"dimension", "repos"}, {"name", "app"}, {"good", a},
                                                    {"bad", b}, {"good_ref", "v2.3"}});
  CHECK_THAT(render_delta_table(deltas), Catch::Contains("v2.3 (0a515c7dd136)  ->  " + b));

  // Two refs naming one commit are no difference.
  bad.repos["app"] = RepoPin{"/elsewhere", "", a, "main~4"};
  CHECK(diff_states(good, bad).empty());
}

TEST_CASE("one build under two spellings of its wheel's name is no difference", "[core][delta]") {
  const std::string hash(64, 'a');
  EnvState lock;
  EnvState pylock;
  // uv.lock's URL keeps the index's spelling, pylock.toml's name the normalised one: same bytes.
  lock.packages["pyyaml"] = PackagePin{"6.0.2", "PyYAML-6.0.2-cp312-cp312-manylinux_2_17_x86_64.whl", hash};
  pylock.packages["pyyaml"] = PackagePin{"6.0.2", "pyyaml-6.0.2-cp312-cp312-manylinux_2_17_x86_64.whl", hash};
  CHECK(diff_states(lock, pylock).empty());
  pylock.packages["pyyaml"].sha256.reset();
  CHECK(diff_states(lock, pylock).size() == 1);  // a pinned hash against none is still a difference
  lock.packages["pyyaml"].sha256.reset();
  CHECK(diff_states(lock, pylock).empty());  // the names alone: one file to pip and uv
  pylock.packages["pyyaml"].wheel = "pyyaml-6.0.2-cp312-cp312-manylinux_2_28_x86_64.whl";
  CHECK(diff_states(lock, pylock).size() == 1);  // another platform tag is another file
}

TEST_CASE("every problem in a state is reported at once", "[core][state]") {
  std::string message = error_of(R"({"format": 1, "threads": {"a": -1}, "env": {"B": 2}, "colour": 1})");
  CHECK_THAT(message, Catch::Contains("3 problems"));
  CHECK_THAT(message, Catch::Contains("/threads/a"));
  CHECK_THAT(message, Catch::Contains("/env/B"));
  CHECK_THAT(message, Catch::Contains("/colour"));
}

TEST_CASE("package names normalise per PEP 503", "[core][state]") {
  CHECK(normalize_package_name("Foo_Bar.baz") == "foo-bar-baz");
  CHECK(normalize_package_name("torch") == "torch");
  CHECK(normalize_package_name("a--b__c") == "a-b-c");
  // PEP 503 exactly (re.sub(r"[-_.]+", "-", name).lower()): a separator at either end stays, as pip and
  // the index pages have it; one function serves states, locks, wheel folders and index URLs.
  CHECK(normalize_package_name("_Private.") == "-private-");
  CHECK(normalize_package_name("Faux_Torch") == "faux-torch");
}

TEST_CASE("diff lists added, removed and changed entries by dimension", "[core][delta]") {
  EnvState good = parse_state(R"({"format": 1,
      "packages": {"torch": "2.11.0+cu128", "transformers": "5.8.1"},
      "caches": {"inductor": {"state": "warm"}}, "threads": {"t": 3}, "env": {"OLD": "1"}})", "good.json");
  EnvState bad = parse_state(R"({"format": 1,
      "packages": {"torch": "2.11.0+cu130", "transformers": "5.8.1", "sglang": "0.5.0"},
      "caches": {"inductor": {"state": "cold"}}, "threads": {"t": 3}, "env": {"NEW": "1"}})", "bad.json");
  std::vector<Delta> deltas = diff_states(good, bad);
  REQUIRE(deltas.size() == 5);
  CHECK(describe(deltas[0]) == "packages/sglang (absent) -> 0.5.0");
  CHECK(describe(deltas[1]) == "packages/torch 2.11.0+cu128 -> 2.11.0+cu130");
  CHECK(describe(deltas[2]) == "caches/inductor warm -> cold");
  CHECK(describe(deltas[3]) == "env/NEW (absent) -> 1");
  CHECK(describe(deltas[4]) == "env/OLD 1 -> (absent)");
  CHECK(diff_states(good, good).empty());

  SECTION("applying every delta gives bad, applying none gives good") {
    CHECK(apply_deltas(good, bad, deltas, {}) == good);
    CHECK(apply_deltas(good, bad, deltas, {0, 1, 2, 3, 4}) == bad);
    EnvState mixed = apply_deltas(good, bad, deltas, {1, 2});
    CHECK(mixed.packages.at("torch").version == "2.11.0+cu130");
    CHECK(mixed.caches.at("inductor").state == "cold");
    CHECK(mixed.packages.count("sglang") == 0);
    CHECK(mixed.env.count("OLD") == 1);
  }
}

TEST_CASE("same version from another wheel is a delta that says what differs", "[core][delta]") {
  std::string hash_a(64, 'a');
  std::string hash_b(64, 'b');
  EnvState good = parse_state(R"({"format": 1, "packages": {"x": {"version": "1.0", "sha256": ")" + hash_a + R"("}}})", "g");
  EnvState bad = parse_state(R"({"format": 1, "packages": {"x": {"version": "1.0", "sha256": ")" + hash_b + R"("}}})", "b");
  std::vector<Delta> deltas = diff_states(good, bad);
  REQUIRE(deltas.size() == 1);
  CHECK(describe(deltas[0]) == "packages/x 1.0 (sha256:aaaaaaaaaaaa) -> 1.0 (sha256:bbbbbbbbbbbb)");
}

TEST_CASE("versions and hashes spelled two ways for one build are no delta", "[core][delta]") {
  const std::string hash(64, 'a');
  std::string upper_hash(64, 'A');
  EnvState good = parse_state(R"({"format": 1, "packages": {"torch": "2.11.0+CU128", "a": "1.0-1", "b": "v2.0",
      "c": {"version": "1.0", "sha256": ")" + upper_hash + R"("}, "d": "1.0"}})", "g");
  EnvState bad = parse_state(R"({"format": 1, "packages": {"torch": "2.11.0+cu128", "a": "1.0.post1", "b": "2.0",
      "c": {"version": "1.0", "sha256": ")" + hash + R"("}, "d": "1.0.0"}})", "b");
  // "1.0" and "1.0.0" are equal in PEP 440 order but name different wheel files: still a delta.
  const std::vector<Delta> deltas = diff_states(good, bad);
  REQUIRE(deltas.size() == 1);
  CHECK(describe(deltas[0]) == "packages/d 1.0 -> 1.0.0");
}

TEST_CASE("a state nested 100,000 levels deep is bad input, not a crash", "[core][state]") {
  const std::size_t depth = 100000;
  // Under "format", whose message quotes the value: dumping 100,000 levels recursively overflowed the stack.
  std::string text = R"({"format": )" + std::string(depth, '[') + std::string(depth, ']') + "}";
  std::string error = error_of(text);
  CHECK(error.find("good.json: /format/0/0/0") == 0);
  CHECK(error.find("nested deeper than 128 levels") != std::string::npos);
  CHECK(error.size() < 400);  // the pointer is cut, not 100,000 levels long
  // 100 levels is still read (and then refused for its type, as any array in data is).
  std::string shallow = R"({"format": 1, "data": {"x": )" + std::string(100, '[') + std::string(100, ']') + "}}";
  CHECK(error_of(shallow).find("/data/x: expected a string, number or boolean, got an array") != std::string::npos);
}

TEST_CASE("a key named twice in one object is bad input naming its pointer", "[core][state]") {
  // nlohmann keeps the last copy silently: here the whole first "packages" section would vanish.
  std::string error = error_of(R"({"format": 1, "packages": {"fauxtorch": "2.11.0"}, "env": {"A": "1", "B": "2", "A": "3"},
                                   "packages": {"fauxvision": "0.1"}})");
  CHECK(error.find("good.json: /env/A: duplicate key 'A'") != std::string::npos);
  CHECK(error.find("good.json: /packages: duplicate key 'packages'") != std::string::npos);
  // The same key in two different objects is fine.
  CHECK(error_of(R"({"format": 1, "env": {"A": "1"}, "data": {"A": "2"}})").empty());
  // Inside arrays the element's index is part of the pointer.
  CHECK(error_of(R"({"format": 1, "data": {"x": [{"k": 1, "k": 2}]}})").find("/data/x/0/k: duplicate key 'k'") !=
        std::string::npos);
}

TEST_CASE("a NUL in a data value is bad input naming the field", "[core][state]") {
  // {data.NAME} becomes part of an argv: a NUL would silently cut the argument there.
  std::string error = error_of(R"({"format": 1, "data": {"dataset": "train\u0000 --evil"}})");
  CHECK(error.find("good.json: /data/dataset: contains a NUL character") != std::string::npos);
  CHECK(error_of(R"({"format": 1, "python": {"interpreter": "/usr/bin/python3\u0000x"}})")
            .find("/python/interpreter: contains a NUL character") != std::string::npos);
}

TEST_CASE("data numbers are compared as numbers: 1e2, 100.0 and 100 are one value", "[core][state]") {
  const EnvState good = parse_state(R"({"format": 1, "data": {"a": 1e2, "b": 100.0, "c": 0.5, "d": true, "e": -0.0}})", "g");
  CHECK(good.data.at("a") == "100");
  CHECK(good.data.at("b") == "100");
  CHECK(good.data.at("c") == "0.5");
  CHECK(good.data.at("d") == "true");
  CHECK(good.data.at("e") == "0");
  const EnvState bad = parse_state(R"({"format": 1, "data": {"a": 100, "b": 100, "c": 5e-1, "d": true, "e": 0}})", "b");
  CHECK(diff_states(good, bad).empty());
  const EnvState other = parse_state(R"({"format": 1, "data": {"a": 101, "b": 100, "c": 0.5, "d": true, "e": 0}})", "o");
  REQUIRE(diff_states(good, other).size() == 1);
}

TEST_CASE("a field one state does not know is no delta, and candidates take the knowing side's value", "[core][delta]") {
  const EnvState captured = parse_state(R"({"format": 1, "python": {"version": "3.11.7", "interpreter": "/usr/bin/python3.11"},
    "packages": {"a": "1.0", "b": "2.0"}, "caches": {"inductor": {"role": "inductor", "state": "cold"}},
    "env": {"CUDA_HOME": "/usr/local/cuda"}, "threads": {"n": 3}})", "captured.json");
  const EnvState frozen = parse_state(R"({"format": 1, "python": {"version": "3.11"}, "packages": {"a": "1.0", "b": "2.1"},
    "unknown": ["python/version", "python/interpreter", "caches", "env"]})", "frozen.json");
  CHECK(frozen.unknown == std::set<std::string>{"caches", "env", "python/interpreter", "python/version"});
  CHECK(parse_state(state_to_json(frozen).dump(), "again.json") == frozen);
  CHECK(taken_from_other(frozen, captured) == std::vector<std::string>{"caches", "env", "python/interpreter", "python/version"});
  CHECK(taken_from_other(captured, frozen).empty());
  // What both know still differs: the package b, and the threads the freeze did not call unknown.
  for (const auto& [good, bad] : {std::pair{&captured, &frozen}, std::pair{&frozen, &captured}}) {
    const std::vector<Delta> deltas = diff_states(*good, *bad);
    REQUIRE(deltas.size() == 2);
    CHECK(deltas[0].dimension == Dimension::packages);
    CHECK(deltas[0].name == "b");
    CHECK(deltas[1].dimension == Dimension::threads);
    // Every candidate, anchors included, runs with the capture's interpreter, caches and variables.
    for (const std::vector<std::size_t>& applied : {std::vector<std::size_t>{}, std::vector<std::size_t>{0, 1}}) {
      const EnvState candidate = apply_deltas(*good, *bad, deltas, applied);
      CHECK(candidate.python.version == "3.11.7");
      CHECK(candidate.python.interpreter == "/usr/bin/python3.11");
      CHECK(candidate.caches == captured.caches);
      CHECK(candidate.env == captured.env);
      CHECK(candidate.unknown.empty());
    }
  }
  CHECK(error_of(R"({"format": 1, "unknown": ["packages", "env", "env"]})") ==
        "2 problems:\n  good.json: /unknown/0: expected one of caches, container, data, env, gpus, python/interpreter, "
        "python/version, threads, got \"packages\"\n  good.json: /unknown/2: env is listed twice");
}
