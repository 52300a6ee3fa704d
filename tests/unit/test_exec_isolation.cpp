#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/delta.hpp"
#include "core/recipe.hpp"
#include "core/state.hpp"
#include "exec/isolation.hpp"
#include "exec_test_support.hpp"
#include "util/error.hpp"

using namespace envbisect;
using envbisect::test::contains;
using envbisect::test::find_seq;
using envbisect::test::TempDir;

namespace {

SandboxPlan sample_plan() {
  SandboxPlan plan;
  plan.env_dirs = {"/store/envs/abc"};
  plan.read_paths = {"/recipes/r", "/opt/py"};
  plan.masked_paths = {"/opt/py/lib/python3.11/site-packages"};
  plan.write_paths = {"/runs/1/attempts/x/0", "/runs/1/attempts/x/0/cache-inductor"};
  plan.cwd = "/runs/1/attempts/x/0";
  return plan;
}

}  // namespace

TEST_CASE("parse_isolation knows the four kinds and names the option otherwise", "[exec][isolation]") {
  CHECK(parse_isolation("none") == IsolationKind::none);
  CHECK(parse_isolation("bwrap") == IsolationKind::bwrap);
  CHECK(parse_isolation("podman") == IsolationKind::podman);
  CHECK(parse_isolation("lxc") == IsolationKind::lxc);
  CHECK_THROWS_WITH(parse_isolation("docker"), Catch::Contains("--isolation docker"));
}

TEST_CASE("bwrap argv: all namespaces unshared, read-only base, binds, private /tmp", "[exec][isolation]") {
  SandboxPlan plan = sample_plan();
  std::vector<std::string> argv = bwrap_argv("/usr/bin/bwrap", plan, EnvDirs::on_host, {"python", "bench.py"});
  CHECK(argv.front() == "/usr/bin/bwrap");
  CHECK(argv[1] == "--unshare-all");
  CHECK_FALSE(contains(argv, "--share-net"));
  CHECK(contains(argv, "--die-with-parent"));
  CHECK(find_seq(argv, {"--ro-bind", "/usr", "/usr"}) != std::string::npos);
  CHECK(find_seq(argv, {"--tmpfs", "/tmp"}) != std::string::npos);
  CHECK(find_seq(argv, {"--ro-bind", "/store/envs/abc", "/store/envs/abc"}) != std::string::npos);
  CHECK(find_seq(argv, {"--ro-bind", "/recipes/r", "/recipes/r"}) != std::string::npos);
  CHECK(find_seq(argv, {"--bind", "/runs/1/attempts/x/0", "/runs/1/attempts/x/0"}) != std::string::npos);
  CHECK(find_seq(argv, {"--chdir", "/runs/1/attempts/x/0"}) != std::string::npos);
  // The command comes last, after "--", unchanged.
  std::size_t dashes = find_seq(argv, {"--", "python", "bench.py"});
  REQUIRE(dashes != std::string::npos);
  CHECK(dashes + 3 == argv.size());
  // Nothing of the host's root is bound wholesale.
  CHECK(find_seq(argv, {"--bind", "/", "/"}) == std::string::npos);
  CHECK(find_seq(argv, {"--ro-bind", "/", "/"}) == std::string::npos);
}

TEST_CASE("bwrap argv: parents are mounted before children, masks after the prefix", "[exec][isolation]") {
  std::vector<std::string> argv = bwrap_argv("bwrap", sample_plan(), EnvDirs::on_host, {"true"});
  std::size_t prefix = find_seq(argv, {"--ro-bind", "/opt/py", "/opt/py"});
  std::size_t mask = find_seq(argv, {"--tmpfs", "/opt/py/lib/python3.11/site-packages"});
  std::size_t attempt = find_seq(argv, {"--bind", "/runs/1/attempts/x/0", "/runs/1/attempts/x/0"});
  std::size_t cache = find_seq(argv, {"--bind", "/runs/1/attempts/x/0/cache-inductor", "/runs/1/attempts/x/0/cache-inductor"});
  REQUIRE(prefix != std::string::npos);
  REQUIRE(mask != std::string::npos);
  REQUIRE(cache != std::string::npos);
  CHECK(prefix < mask);
  CHECK(attempt < cache);
}

TEST_CASE("bwrap argv: network only when asked, a rootfs base replaces the host's dirs", "[exec][isolation]") {
  SandboxPlan plan = sample_plan();
  plan.network = Network::host;
  plan.root = "/srv/rootfs";
  std::vector<std::string> argv = bwrap_argv("bwrap", plan, EnvDirs::inside, {"true"});
  CHECK(contains(argv, "--share-net"));
  CHECK(find_seq(argv, {"--ro-bind", "/srv/rootfs", "/"}) != std::string::npos);
  CHECK(find_seq(argv, {"--ro-bind", "/usr", "/usr"}) == std::string::npos);
  // The environment comes from the overlay root (its layer), not from the host.
  CHECK(find_seq(argv, {"--ro-bind", "/store/envs/abc", "/store/envs/abc"}) == std::string::npos);
  CHECK(find_seq(argv, {"--ro-bind", "/srv/rootfs/store/envs/abc", "/store/envs/abc"}) != std::string::npos);
}

TEST_CASE("podman argv: no network, env by name, layer image, read-only binds", "[exec][isolation]") {
  SandboxPlan plan = sample_plan();
  std::vector<std::string> argv =
      podman_run_argv("/usr/bin/podman", plan, "localhost/envbisect-layer:1", EnvDirs::inside, {"PATH", "SEED"}, "/s/empty", 65,
                      {"python", "-V"});
  CHECK(find_seq(argv, {"/usr/bin/podman", "run", "--rm", "--network", "none"}) == 0);
  CHECK(find_seq(argv, {"--timeout", "65"}) != std::string::npos);
  CHECK(find_seq(argv, {"-v", "/usr:/usr:ro"}) != std::string::npos);
  CHECK(find_seq(argv, {"-v", "/recipes/r:/recipes/r:ro"}) != std::string::npos);
  CHECK(find_seq(argv, {"-v", "/runs/1/attempts/x/0:/runs/1/attempts/x/0"}) != std::string::npos);
  CHECK(find_seq(argv, {"-v", "/s/empty:/opt/py/lib/python3.11/site-packages:ro"}) >
        find_seq(argv, {"-v", "/opt/py:/opt/py:ro"}));
  CHECK(find_seq(argv, {"-e", "PATH", "-e", "SEED"}) != std::string::npos);
  CHECK(find_seq(argv, {"-w", "/runs/1/attempts/x/0"}) != std::string::npos);
  // The environment lives in the committed image: not bound from the host.
  CHECK(find_seq(argv, {"-v", "/store/envs/abc:/store/envs/abc:ro"}) == std::string::npos);
  CHECK(find_seq(argv, {"localhost/envbisect-layer:1", "python", "-V"}) + 3 == argv.size());
}

TEST_CASE("lxc config: overlay rootfs, empty network, binds and environment", "[exec][isolation]") {
  SandboxPlan plan = sample_plan();
  std::string config = lxc_config(plan, "/base", "/scratch/upper", {{"SEED", "1234"}});
  CHECK_THAT(config, Catch::Contains("lxc.rootfs.path = overlay:/base:/scratch/upper\n"));
  CHECK_THAT(config, Catch::Contains("lxc.net.0.type = empty\n"));
  CHECK_THAT(config, Catch::Contains("lxc.mount.entry = /usr usr none ro,bind 0 0\n"));
  CHECK_THAT(config, Catch::Contains("lxc.mount.entry = /store/envs/abc store/envs/abc none ro,bind,create=dir 0 0\n"));
  CHECK_THAT(config, Catch::Contains("lxc.mount.entry = /runs/1/attempts/x/0 runs/1/attempts/x/0 none rw,bind,create=dir 0 0\n"));
  CHECK_THAT(config, Catch::Contains("lxc.init.cwd = /runs/1/attempts/x/0\n"));
  CHECK_THAT(config, Catch::Contains("lxc.environment = SEED=1234\n"));
  plan.network = Network::host;
  CHECK_THAT(lxc_config(plan, "/b", "/u", {}), Catch::Contains("lxc.net.0.type = none\n"));
  CHECK(lxc_execute_argv("lxc-execute", "/p", "n1", "/c", {"true"}) ==
        std::vector<std::string>{"lxc-execute", "-P", "/p", "-n", "n1", "-f", "/c", "--", "true"});
}

TEST_CASE("plan_sandbox: a venv's base interpreter is readable, its site-packages masked", "[exec][isolation]") {
  namespace fs = std::filesystem;
  TempDir temp("plan");
  const fs::path& dir = temp.path;
  fs::create_directories(dir / "prefix/bin");
  fs::create_directories(dir / "prefix/lib/python3.11/site-packages");
  fs::create_directories(dir / "venv");
  fs::create_directories(dir / "recipe");
  std::ofstream(dir / "venv/pyvenv.cfg") << "home = " << (dir / "prefix/bin").string()
                                          << "\ninclude-system-site-packages = false\n";
  ProcessSpec spec;
  spec.read_paths = {(dir / "venv").string() + "/", (dir / "recipe").string()};
  spec.write_paths = {(dir / "attempt").string()};
  spec.cwd = (dir / "attempt").string();
  SandboxPlan plan = plan_sandbox(spec, "", Network::none);
  CHECK(plan.env_dirs == std::vector<std::string>{(dir / "venv").string()});
  CHECK(contains(plan.read_paths, (dir / "recipe").string()));
  CHECK(contains(plan.read_paths, (dir / "prefix").string()));
  CHECK(plan.masked_paths == std::vector<std::string>{(dir / "prefix/lib/python3.11/site-packages").string()});
  CHECK(plan.write_paths == std::vector<std::string>{(dir / "attempt").string()});

  // A venv that includes system site-packages keeps them.
  std::ofstream(dir / "venv/pyvenv.cfg") << "home = " << (dir / "prefix/bin").string()
                                          << "\ninclude-system-site-packages = true\n";
  CHECK(plan_sandbox(spec, "", Network::none).masked_paths.empty());
}

TEST_CASE("a recipe may ask for an isolation and for the network", "[exec][isolation]") {
  Recipe plain = parse_recipe(R"({"format": 1, "command": ["true"], "metric": "m"})", "r.json");
  CHECK(plain.isolation.empty());
  CHECK_FALSE(plain.network);
  Recipe asks = parse_recipe(R"({"format": 1, "command": ["true"], "metric": "m", "isolation": "bwrap", "network": true})",
                             "r.json");
  CHECK(asks.isolation == "bwrap");
  CHECK(asks.network);
  CHECK_THROWS_WITH(parse_recipe(R"({"format": 1, "command": ["true"], "metric": "m", "isolation": "docker"})", "r.json"),
                    Catch::Contains("/isolation"));
  CHECK_THROWS_WITH(parse_recipe(R"({"format": 1, "command": ["true"], "metric": "m", "network": "yes"})", "r.json"),
                    Catch::Contains("/network"));
}

TEST_CASE("a state's container base is one delta carrying its Debian package differences", "[exec][isolation][state]") {
  EnvState good = parse_state(R"({"format": 1, "container": {"base": "/srv/bookworm-11",
      "packages": {"libc6": "2.36-9+deb12u13", "zlib1g": "1:1.2.13"}}})", "good.json");
  EnvState bad = parse_state(R"({"format": 1, "container": {"base": "/srv/bookworm-12",
      "packages": {"libc6": "2.36-9+deb12u14", "zlib1g": "1:1.2.13"}}})", "bad.json");
  CHECK(good.container.packages.at("libc6") == "2.36-9+deb12u13");
  CHECK(parse_state(state_to_json(bad).dump(), "again.json") == bad);
  std::vector<Delta> deltas = diff_states(good, bad);
  REQUIRE(deltas.size() == 1);
  CHECK(describe(deltas[0]) ==
        "container/base /srv/bookworm-11 (libc6 2.36-9+deb12u13) -> /srv/bookworm-12 (libc6 2.36-9+deb12u14)");
  CHECK(apply_deltas(good, bad, deltas, {0}).container == bad.container);
  CHECK_THROWS_WITH(parse_state(R"({"format": 1, "container": {"packages": {"libc6": 2}}})", "s.json"),
                    Catch::Contains("/container/base") && Catch::Contains("/container/packages/libc6"));
}
