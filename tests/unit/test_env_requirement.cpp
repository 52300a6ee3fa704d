#include "core/marker.hpp"
#include "env/requirement.hpp"
#include "env/resolve.hpp"
#include "env/wheel_source.hpp"

#include <catch2/catch.hpp>

using envbisect::MarkerEnvironment;
using envbisect::Version;

namespace {

bool holds(const char* version, const char* requirement) {
  const auto req = envbisect::parse_requirement(requirement);
  REQUIRE(req);
  return envbisect::satisfies(*Version::parse(version), *req);
}

}  // namespace

TEST_CASE("requirements parse names, extras, clauses and markers", "[env_requirement]") {
  const auto req = envbisect::parse_requirement("Faux_Torch[cuda] (>=2.10,!=2.10.1,<3) ; python_version >= '3.8'");
  REQUIRE(req);
  CHECK(req->name == "faux-torch");
  REQUIRE(req->specifiers.size() == 3);
  CHECK(req->specifiers[1].op == "!=");
  CHECK(req->specifiers[1].version == "2.10.1");
  CHECK(req->marker == "python_version >= '3.8'");
  CHECK_FALSE(envbisect::parse_requirement("x >>1"));
  CHECK_FALSE(envbisect::parse_requirement("  ; os_name == 'nt'"));
}

TEST_CASE("specifiers follow PEP 440, local labels included", "[env_requirement]") {
  struct Row { const char* version; const char* requirement; bool expected; };
  const Row rows[] = {
      {"2.11.0+cu128", "t==2.11.0", true},      {"2.11.0+cu128", "t==2.11.0+cu128", true},
      {"2.11.0+cu130", "t==2.11.0+cu128", false}, {"2.11.0", "t==2.11", true},
      {"2.11.3", "t==2.11.*", true},            {"2.12.0", "t==2.11.*", false},
      {"2.11.0", "t!=2.11.0", false},           {"2.10.0", "t!=2.11.*", true},
      {"2.11.0+cu130", "t>=2.11", true},        {"2.10.9", "t>=2.11", false},
      {"2.11.0+cu130", "t<2.11.1", true},       {"2.11.0", "t<2.11", false},
      {"4.2.7", "t~=4.2.3", true},              {"4.3.0", "t~=4.2.3", false},
      {"4.9", "t~=4.2", true},                  {"5.0", "t~=4.2", false},
      {"1.5", "t>=1,<2,!=1.4", true},           {"1.4", "t>=1,<2,!=1.4", false},
      {"1.0", "t", true},
  };
  for (const Row& row : rows) {
    INFO(row.version << " " << row.requirement);
    CHECK(holds(row.version, row.requirement) == row.expected);
  }
}

TEST_CASE("a Requires-Dist behind a parenthesised marker is checked, not ignored", "[env_requirement]") {
  std::map<std::string, envbisect::DistMetadata> set;
  set["faux-transformers"] = envbisect::parse_metadata(
      "Name: faux-transformers\nVersion: 5.8.1\n"
      "Requires-Dist: fauxtorch==2.11.0; (python_version >= '3.8' and sys_platform == 'linux')\n");
  set["fauxtorch"] = envbisect::parse_metadata("Name: fauxtorch\nVersion: 2.10.0\n");
  const MarkerEnvironment env = envbisect::cpython_linux_environment("3.11", "3.11.7");
  std::vector<std::string> ignored;
  const auto unmet = envbisect::unmet_requirements(set, env, &ignored);
  CHECK(ignored.empty());
  REQUIRE(unmet.size() == 1);
  CHECK(unmet[0].find("requires fauxtorch==2.11.0") != std::string::npos);
}

TEST_CASE("METADATA headers give name, version and Requires-Dist, unmet ones are worded like a resolver",
          "[env_requirement]") {
  std::vector<std::string> unreadable;
  const auto meta = envbisect::parse_metadata(
      "Metadata-Version: 2.1\nName: Faux_Transformers\nVersion: 5.8.1\nRequires-Dist: fauxtorch==2.11.0\n"
      "Requires-Dist: tokenizers>=0.20; extra == 'fast'\nRequires-Dist: ???\n\nRequires-Dist: not-a-header\n",
      &unreadable);
  CHECK(meta.name == "faux-transformers");
  CHECK(meta.version == "5.8.1");
  CHECK(meta.requires_dist.size() == 2);
  CHECK(unreadable == std::vector<std::string>{"???"});

  std::map<std::string, envbisect::DistMetadata> set;
  set["faux-transformers"] = meta;
  set["fauxtorch"] = envbisect::parse_metadata("Name: fauxtorch\nVersion: 2.10.0\n");
  const MarkerEnvironment env = envbisect::cpython_linux_environment("3.11", "");
  auto unmet = envbisect::unmet_requirements(set, env);
  REQUIRE(unmet.size() == 1);
  CHECK(unmet[0] == "faux-transformers 5.8.1 requires fauxtorch==2.11.0, but the candidate has fauxtorch 2.10.0");
  set["fauxtorch"].version = "2.11.0+cu130";
  CHECK(envbisect::unmet_requirements(set, env).empty());
  set.erase("fauxtorch");
  unmet = envbisect::unmet_requirements(set, env);
  REQUIRE(unmet.size() == 1);
  CHECK(unmet[0] == "faux-transformers 5.8.1 requires fauxtorch==2.11.0, which the candidate lacks");
}
