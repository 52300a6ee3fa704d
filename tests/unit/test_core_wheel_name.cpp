#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/wheel_name.hpp"

using envbisect::InvalidWheel;
using envbisect::parse_wheel_name;
using envbisect::WheelName;

TEST_CASE("wheel file names split into their fields", "[wheel_name]") {
  struct Case {
    std::string file;
    std::string name, version, build, python, abi, platform;
  };
  const std::vector<Case> cases = {
      {"fauxtorch-2.11.0+cu128-cp311-cp311-linux_x86_64.whl", "fauxtorch", "2.11.0+cu128", "", "cp311",
       "cp311", "linux_x86_64"},
      {"Faux_Transformers-5.8.1-py3-none-any.whl", "faux-transformers", "5.8.1", "", "py3", "none", "any"},
      {"zope.interface-6.0-1-py2.py3-none-any.whl", "zope-interface", "6.0", "1", "py2.py3", "none", "any"},
      {"foo-1.0-2abc-py3-none-any.whl", "foo", "1.0", "2abc", "py3", "none", "any"},
      {"foo-1.0.post1.dev2-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", "foo", "1.0.post1.dev2",
       "", "py3", "none", "manylinux_2_17_x86_64.manylinux2014_x86_64"},
      {"Foo-1.0RC1-py3-none-any.whl", "foo", "1.0rc1", "", "py3", "none", "any"},
      {"a-1-py3-none-any.whl", "a", "1", "", "py3", "none", "any"},
  };
  for (const Case& c : cases) {
    INFO("file " << c.file);
    std::optional<WheelName> wheel = parse_wheel_name(c.file);
    REQUIRE(wheel.has_value());
    CHECK(wheel->name == c.name);
    CHECK(wheel->version.to_string() == c.version);
    CHECK(wheel->build == c.build);
    CHECK(wheel->python_tag == c.python);
    CHECK(wheel->abi_tag == c.abi);
    CHECK(wheel->platform_tag == c.platform);
  }
  CHECK(parse_wheel_name("foo-1.0RC1-py3-none-any.whl")->version_text == "1.0RC1");
}

TEST_CASE("malformed wheel file names are refused", "[wheel_name]") {
  const std::vector<std::string> cases = {
      "",
      ".whl",
      "foo-1.0-py3-none-any.tar.gz",
      "foo-1.0-py3-none-any.WHL",
      "foo-1.0-py3-none-any",
      "foo-1.0-py3-none.whl",               // 4 fields
      "foo-1.0-1-2-py3-none-any.whl",       // 7 fields
      "foo-1.0-abc-py3-none-any.whl",       // build tag must start with a digit
      "foo-1.0.x-py3-none-any.whl",         // not PEP 440
      "foo--py3-none-any.whl",              // empty version
      "foo-1.0--none-any.whl",              // empty tag
      "_foo-1.0-py3-none-any.whl",          // name starts with a separator
      "foo.-1.0-py3-none-any.whl",          // name ends with a separator
      "fo o-1.0-py3-none-any.whl",
      "dir/foo-1.0-py3-none-any.whl",       // a path, not a file name
      "foo-1.0-py3-none-any!.whl",
  };
  for (const std::string& file : cases) {
    INFO("file '" << file << "'");
    CHECK_FALSE(parse_wheel_name(file).has_value());
  }
}

TEST_CASE("versions of one distribution are listed in PEP 440 order", "[wheel_name]") {
  const std::vector<std::string> paths = {
      "w/fauxtorch-2.11.0+cu130-cp311-cp311-linux_x86_64.whl",
      "w/fauxtorch-2.10.0-py3-none-any.whl",
      "w/fauxtorch-2.11.0+cu128-cp311-cp311-linux_x86_64.whl",
      "w/Faux_Torch-9.0-py3-none-any.whl",              // another distribution ("faux-torch")
      "w/fauxtorch-2.11.0rc1-py3-none-any.whl",
      "w/fauxtorch-2.11.0-py3-none-any.whl",
      "w/fauxtorch-2.11.0-1-py3-none-any.whl",          // same version, other build: listed once
      "w/fauxtorch-2.9.0-py3-none-any.whl",
      "w/fauxtorch-2.11.0.x-py3-none-any.whl",          // invalid version: reported
      "w/other-1.0.x-py3-none-any.whl",                 // invalid version of another name: ignored
      "w/fauxtorch-broken.whl",                         // malformed: reported whatever its name
      "w/README.txt",                                   // not a wheel: ignored
      "fauxtorch-2.10.0-py3-none-any.whl",               // a bare file name; duplicate version
  };
  const envbisect::WheelVersions found = envbisect::list_wheel_versions("FauxTorch", paths);
  std::vector<std::string> texts;
  for (const auto& version : found.versions) {
    texts.push_back(version.to_string());
  }
  CHECK(texts == std::vector<std::string>{"2.9.0", "2.10.0", "2.11.0rc1", "2.11.0", "2.11.0+cu128",
                                          "2.11.0+cu130"});
  REQUIRE(found.invalid.size() == 2);
  CHECK(found.invalid[0].path == "w/fauxtorch-2.11.0.x-py3-none-any.whl");
  CHECK(found.invalid[0].reason == "invalid version '2.11.0.x'");
  CHECK(found.invalid[1].path == "w/fauxtorch-broken.whl");
  CHECK(found.invalid[1].reason == "invalid wheel file name");

  const envbisect::WheelVersions dashed = envbisect::list_wheel_versions("faux.torch", paths);
  REQUIRE(dashed.versions.size() == 1);
  CHECK(dashed.versions[0].to_string() == "9.0");
}

TEST_CASE("versions equal in PEP 440 but written differently are both listed, in a stable order",
          "[wheel_name]") {
  const envbisect::WheelVersions found = envbisect::list_wheel_versions(
      "foo", {"foo-1.0.0-py3-none-any.whl", "foo-1.0-py3-none-any.whl", "foo-0.9-py3-none-any.whl"});
  std::vector<std::string> texts;
  for (const auto& version : found.versions) {
    texts.push_back(version.to_string());
  }
  CHECK(texts == std::vector<std::string>{"0.9", "1.0", "1.0.0"});
  CHECK(found.invalid.empty());
}
