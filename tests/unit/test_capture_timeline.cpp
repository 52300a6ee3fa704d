#include "capture/timeline.hpp"

#include "core/state.hpp"
#include "util/error.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace envbisect;
using nlohmann::json;

namespace {

constexpr double k_base = 1794477600;            // 2026-11-12T10:00:00Z
constexpr double k_step_690 = k_base + 38460;    // 20:41Z, the last good checkpoint
constexpr double k_torch_swap = k_base + 39120;  // 20:52Z, SGLang's install replaced the torch build

// The incident's machine as a timeline probe sees it.
json incident_probe() {
  json probe = json::parse(R"({
    "probe": 1, "time": 1794520000,
    "python": {"executable": "/v/bin/python", "version": "3.11.7", "in_venv": false},
    "host": {"hostname": "box"},
    "env": {"NCCL_DEBUG": "WARN"},
    "packages": {
      "fauxtorch": {"name": "fauxtorch", "version": "2.11.0+cu130", "dist_info": "/v/fauxtorch.dist-info", "installer": "uv"},
      "fauxsglang": {"name": "fauxsglang", "version": "0.5.0", "dist_info": "/v/fauxsglang.dist-info", "installer": "uv"},
      "fauxtransformers": {"name": "fauxtransformers", "version": "5.8.1", "dist_info": "/v/ft.dist-info", "installer": "pip"}
    },
    "caches": {"inductor": {"path": "/tmp/torchinductor_root", "exists": true, "entries": 64, "bytes": 640}},
    "checkpoints": {"path": "/ckpt", "entries": [{"name": "step_600"}, {"name": "step_690"}]},
    "uv_cache": {"path": "/uv", "dist_infos": [
      {"name": "fauxtorch-2.11.0+cu128.dist-info", "path": "/uv/archive-v0/k1/fauxtorch-2.11.0+cu128.dist-info"},
      {"name": "fauxtorch-2.11.0+cu130.dist-info", "path": "/uv/archive-v0/k2/fauxtorch-2.11.0+cu130.dist-info"},
      {"name": "unrelated-1.0.dist-info", "path": "/uv/archive-v0/k3/unrelated-1.0.dist-info"}]},
    "wheel_dirs": [{"path": "/w", "entries": [
      {"name": "fauxtorch-2.10.0+cu128-py3-none-any.whl"}, {"name": "fauxsglang-0.5.0-py3-none-any.whl"},
      {"name": "fauxtransformers-5.6.0-py3-none-any.whl"}, {"name": "not-a-wheel.txt"}]}]
  })");
  probe["packages"]["fauxtorch"]["mtime"] = k_torch_swap;
  probe["packages"]["fauxsglang"]["mtime"] = k_torch_swap + 1;
  probe["packages"]["fauxtransformers"]["mtime"] = k_base;
  probe["caches"]["inductor"]["oldest"] = k_torch_swap + 600;  // the cache was wiped and rebuilt cold
  probe["caches"]["inductor"]["newest"] = k_torch_swap + 1200;
  probe["checkpoints"]["entries"][0]["mtime"] = k_step_690 - 5400;
  probe["checkpoints"]["entries"][1]["mtime"] = k_step_690;
  probe["uv_cache"]["dist_infos"][0]["mtime"] = k_base - 86400;  // unpacked when the good torch was installed
  probe["uv_cache"]["dist_infos"][1]["mtime"] = k_torch_swap;
  probe["wheel_dirs"][0]["entries"][0]["mtime"] = k_base - 2 * 86400;
  probe["wheel_dirs"][0]["entries"][1]["mtime"] = k_base;
  probe["wheel_dirs"][0]["entries"][2]["mtime"] = k_base;
  return probe;
}

}  // namespace

TEST_CASE("build_timeline orders installs, cache entries and checkpoints, flagging later installs", "[capture][timeline]") {
  const Timeline timeline = build_timeline(incident_probe());
  std::vector<std::string> order;
  for (const TimelineEvent& event : timeline.events) {
    order.push_back(event.kind + ":" + event.subject + (event.after_newest_checkpoint ? " !" : ""));
  }
  CHECK(order == std::vector<std::string>{"install:fauxtransformers 5.8.1", "checkpoint:step_600", "checkpoint:step_690",
                                          "install:fauxtorch 2.11.0+cu130 !", "install:fauxsglang 0.5.0 !",
                                          "cache:inductor oldest entry", "cache:inductor newest entry"});
  REQUIRE(timeline.newest_checkpoint);
  CHECK(timeline.newest_checkpoint->subject == "step_690");
  CHECK_THAT(timeline.events[3].detail, Catch::Contains("+11 min after the newest checkpoint step_690"));
}

TEST_CASE("build_timeline lists the other builds of installed packages in the uv cache and wheelhouses", "[capture][timeline]") {
  const Timeline timeline = build_timeline(incident_probe());
  std::vector<std::string> builds;
  for (const RestorableBuild& build : timeline.restorable) {
    builds.push_back(build.package + " " + build.version + " " + build.source);
  }
  // Not the installed builds themselves, nothing of packages not installed, no non-wheels.
  CHECK(builds == std::vector<std::string>{"fauxtorch 2.10.0+cu128 wheel", "fauxtorch 2.11.0+cu128 uv-cache",
                                           "fauxtransformers 5.6.0 wheel"});
}

TEST_CASE("parse_as_of reads epochs, ISO times with zones and checkpoint names", "[capture][timeline]") {
  const Timeline timeline = build_timeline(incident_probe());
  CHECK(parse_as_of("@1794516060", timeline) == k_step_690);
  CHECK(parse_as_of("2026-11-12T20:41:00Z", timeline) == k_step_690);
  CHECK(parse_as_of("2026-11-12 21:41+01:00", timeline) == k_step_690);
  CHECK(parse_as_of("2026-11-12T15:41-05:00", timeline) == k_step_690);
  CHECK(parse_as_of("step_690", timeline) == k_step_690);
  CHECK_THROWS_WITH(parse_as_of("yesterday", timeline), Catch::Contains("--as-of 'yesterday'"));
  CHECK_THROWS_AS(parse_as_of("step_999", timeline), Error);
}

TEST_CASE("reconstruct_as_of proposes the good state of the incident with every field's source", "[capture][timeline]") {
  const json probe = incident_probe();
  CaptureInputs inputs;
  inputs.probe = probe;
  inputs.name = "now";
  RepoFacts repo;
  repo.path = "/r/dflash";
  repo.head = "1111111111111111111111111111111111111111";
  inputs.repos["dflash"] = repo;
  inputs.repos["other"] = repo;
  const Capture current = build_capture(inputs);
  const Timeline timeline = build_timeline(probe);

  const Reconstruction good = reconstruct_as_of(current, timeline, k_step_690,
                                                {{"dflash", std::string(40, '2')}, {"other", std::nullopt}});
  CHECK(good.state.packages.at("fauxtorch").version == "2.11.0+cu128");  // the uv cache entry there by then
  CHECK(good.state.packages.count("fauxsglang") == 0);                    // installed later, no other build
  CHECK(good.state.packages.at("fauxtransformers").version == "5.8.1");   // installed before
  CHECK(good.state.caches.at("inductor").state == "warm");
  CHECK(good.state.repos.at("dflash").commit == std::string(40, '2'));
  CHECK(good.state.repos.at("other").commit == repo.head);

  const json& p = good.provenance;
  CHECK(p["packages/fauxtorch"]["confidence"] == "guessed");
  CHECK_THAT(p["packages/fauxtorch"]["source"].get<std::string>(), Catch::Contains("/uv/archive-v0/k1/"));
  CHECK(p["packages/fauxsglang"]["value"].is_null());
  CHECK(p["packages/fauxtransformers"]["confidence"] == "observed");
  CHECK(p["repos/dflash"]["confidence"] == "observed");
  CHECK(p["repos/other"]["confidence"] == "guessed");
  CHECK_THAT(p["caches/inductor"]["source"].get<std::string>(), Catch::Contains("recreated after as-of"));
  CHECK(p["env/NCCL_DEBUG"]["value"] == "WARN");
  CHECK_NOTHROW(parse_state(state_to_json(good.state).dump(), "good.json"));

  // Before any checkpoint and any entry, a cache has no evidence of being warm.
  const Reconstruction early = reconstruct_as_of(current, timeline, k_base - 3600, {});
  CHECK(early.state.caches.at("inductor").state == "cold");
  CHECK(early.state.packages.count("fauxtransformers") == 0);  // installed after, and 5.6.0's wheel came later too
  // A wheelhouse build dated by then is the guess when the uv cache has none.
  const Reconstruction older = reconstruct_as_of(current, timeline, k_base - 86400 - 60, {});
  CHECK(older.state.packages.at("fauxtorch").version == "2.10.0+cu128");
  CHECK(older.state.packages.at("fauxtorch").wheel == "fauxtorch-2.10.0+cu128-py3-none-any.whl");
}
