#include "capture/snapshot.hpp"

#include "core/state.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace envbisect;
using nlohmann::json;

namespace {

// A probe report as probe.py prints it, for a venv on host "box".
json sample_probe() {
  return json::parse(R"({
    "probe": 1, "time": 1794509700.5,
    "python": {"executable": "/v/bin/python", "version": "3.11.7", "in_venv": true,
               "base_executable": "/usr/bin/python3.11", "prefix": "/v", "base_prefix": "/usr"},
    "host": {"hostname": "box", "cpu_count": 2, "affinity": [0, 1], "platform": "Linux"},
    "env": {"HF_TOKEN": "hf_secret", "NCCL_DEBUG": "WARN", "TORCHINDUCTOR_CACHE_DIR": "/tmp/ind", "OMP_NUM_THREADS": "3"},
    "packages": {
      "fauxtorch": {"name": "fauxtorch", "version": "2.11.0+cu130", "dist_info": "/v/lib/fauxtorch-2.11.0+cu130.dist-info",
                    "mtime": 1794509520.0, "installer": "pip", "record_sha256": "ab", "requested": true,
                    "direct_url": {"url": "file:///w/fauxtorch-2.11.0+cu130-py3-none-any.whl",
                                   "archive_info": {"hashes": {"sha256": "1111111111111111111111111111111111111111111111111111111111111111"}}}},
      "fauxtransformers": {"name": "FauxTransformers", "version": "5.8.1", "dist_info": "/v/lib/x", "mtime": 1794000000.0,
                           "installer": "uv", "direct_url": null},
      "weird": {"name": "weird", "version": "1.0-custom-build", "dist_info": "/v/lib/weird", "mtime": null}
    },
    "torch": null,
    "caches": {"inductor": {"path": "/tmp/ind", "exists": true, "entries": 64, "bytes": 1000,
                            "oldest": 1794509600.0, "newest": 1794509650.0, "content_sha256": "cc"},
               "triton": {"path": "/root/.triton/cache", "exists": false, "entries": 0, "bytes": 0,
                          "oldest": null, "newest": null, "content_sha256": null}},
    "gpus": null
  })");
}

}  // namespace

TEST_CASE("build_capture turns a probe report into a state that loads back unchanged", "[capture][snapshot]") {
  CaptureInputs inputs;
  inputs.probe = sample_probe();
  inputs.name = "bad";
  inputs.state_dir = "/work/states";
  RepoFacts repo;
  repo.path = "/work/states/repos/dflash";
  repo.head = "0a515c7dd136666e63a698b7fe0f83642a6e0b57";
  repo.branch = "main";
  repo.dirty = {"README.md"};
  inputs.repos["dflash"] = repo;
  RepoFacts elsewhere = repo;
  elsewhere.path = "/srv/other";
  elsewhere.dirty.clear();
  inputs.repos["other"] = elsewhere;

  const Capture capture = build_capture(inputs);
  const EnvState& state = capture.state;

  CHECK(state.name == "bad");
  CHECK(state.python.version == "3.11.7");
  CHECK(state.python.interpreter == "/usr/bin/python3.11");  // venvs are made from the base interpreter
  REQUIRE(state.packages.count("fauxtorch") == 1);
  CHECK(state.packages.at("fauxtorch").version == "2.11.0+cu130");
  CHECK(state.packages.at("fauxtorch").wheel == "fauxtorch-2.11.0+cu130-py3-none-any.whl");
  CHECK(state.packages.at("fauxtorch").sha256 == std::string(64, '1'));
  CHECK(state.packages.at("fauxtransformers") == PackagePin{"5.8.1", std::nullopt, std::nullopt});
  CHECK(state.packages.count("weird") == 0);  // not PEP 440: a warning, and the facts keep it
  CHECK(state.repos.at("dflash").path == "repos/dflash");  // under the state's folder: relative
  CHECK(state.repos.at("other").path == "/srv/other");
  CHECK(state.repos.at("dflash").commit == repo.head);
  CHECK(state.caches.at("inductor") == CacheState{"inductor", "warm"});
  CHECK(state.caches.at("triton") == CacheState{"triton", "cold"});
  CHECK(state.env == std::map<std::string, std::string>{{"NCCL_DEBUG", "WARN"}, {"OMP_NUM_THREADS", "3"}});

  // The facts hold what the state cannot: secrets only as <redacted>, the dirty file, the installer.
  const json& captured = capture.facts["captured"];
  CHECK(captured["env"]["HF_TOKEN"] == "<redacted>");
  CHECK(capture.facts.dump().find("hf_secret") == std::string::npos);
  CHECK(captured["repos"]["dflash"]["dirty"] == json::array({"README.md"}));
  CHECK(captured["packages"]["fauxtransformers"]["installer"] == "uv");
  CHECK(captured["caches"]["inductor"]["entries"] == 64);
  CHECK(captured["time_utc"] == "2026-11-12T18:55:00Z");
  REQUIRE(capture.warnings.size() == 2);
  CHECK_THAT(capture.warnings[0], Catch::Contains("weird"));
  CHECK_THAT(capture.warnings[1], Catch::Contains("uncommitted"));

  // What diff and run will read is exactly what was built.
  EnvState loaded = parse_state(state_to_json(state).dump(), "bad.json");
  CHECK(loaded == state);
}

TEST_CASE("build_capture leaves the installer's own packages out unless something installed needs them", "[capture][snapshot]") {
  CaptureInputs inputs;
  inputs.probe = sample_probe();
  inputs.name = "venv";
  json& packages = inputs.probe["packages"];
  packages["pip"] = {{"name", "pip"}, {"version", "23.0.1"}, {"dist_info", "/v/lib/pip"}, {"requires", json::array()}};
  packages["wheel"] = {{"name", "wheel"}, {"version", "0.45.1"}, {"dist_info", "/v/lib/wheel"}};
  packages["setuptools"] = {{"name", "setuptools"}, {"version", "75.1.0"}, {"dist_info", "/v/lib/st"}};
  packages["fauxtransformers"]["requires"] = {"setuptools", "fauxtorch"};
  const Capture capture = build_capture(inputs);
  // pip freeze leaves pip and wheel out as well, so a capture and a freeze of one venv agree.
  CHECK(capture.state.packages.count("pip") == 0);
  CHECK(capture.state.packages.count("wheel") == 0);
  CHECK(capture.state.packages.at("setuptools").version == "75.1.0");  // fauxtransformers needs it
}

TEST_CASE("build_capture of a probe that could not list packages warns and still gives a state", "[capture][snapshot]") {
  CaptureInputs inputs;
  inputs.probe = sample_probe();
  inputs.probe["packages"] = {{"error", "ImportError: no importlib.metadata"}};
  inputs.probe["caches"]["inductor"] = {{"error", "PermissionError"}};
  const Capture capture = build_capture(inputs);
  CHECK(capture.state.packages.empty());
  CHECK(capture.state.caches.count("inductor") == 0);
  CHECK(capture.warnings.size() == 2);
  CHECK_NOTHROW(parse_state(state_to_json(capture.state).dump(), "x.json"));
}

TEST_CASE("repo_facts_from_probe reads the git CLI's answers of a remote capture", "[capture][snapshot]") {
  const json probe = json::parse(R"({"repos": {
    "a": {"path": "/r/a", "head": "0a515c7dd136666e63a698b7fe0f83642a6e0b57", "branch": null, "url": null, "dirty": ["x"]},
    "b": {"path": "/r/b", "error": "fatal: not a git repository"}}})");
  const std::map<std::string, RepoFacts> repos = repo_facts_from_probe(probe);
  CHECK(repos.at("a").head == "0a515c7dd136666e63a698b7fe0f83642a6e0b57");
  CHECK(repos.at("a").branch.empty());
  CHECK(repos.at("a").dirty == std::vector<std::string>{"x"});
  CHECK(repos.at("b").error == "fatal: not a git repository");
}
