#include "env/unzip.hpp"
#include "util/error.hpp"

#include "test_support.hpp"
#include "zip_test_support.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using envbisect::Error;
using envbisect::ExitCode;
using envbisect::ZipLimits;
using envbisect::test::slurp;
using envbisect::test::TempDir;
using envbisect::zip_test::make_zip;
using envbisect::zip_test::make_zip64;
using envbisect::zip_test::Member;

namespace {

fs::path write_zip(const TempDir& dir, const std::string& bytes, const std::string& name = "x-1.0-py3-none-any.whl") {
  const fs::path path = dir.path / name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// Return the error extract_zip throws for `bytes` (its code and message), failing when none.
Error refusal(const std::string& bytes, const ZipLimits& limits = ZipLimits{}) {
  TempDir dir("unzip");
  const fs::path zip = write_zip(dir, bytes);
  try {
    envbisect::extract_zip(zip.string(), (dir.path / "out").string(), limits);
  } catch (const Error& e) {
    return e;
  }
  FAIL("extract_zip accepted the archive");
  return Error("unreachable");
}

bool says(const Error& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

}  // namespace

TEST_CASE("a wheel's stored and deflated members unpack with their executable bit", "[env][unzip]") {
  TempDir dir("unzip");
  const fs::path zip = write_zip(dir, make_zip({{"pkg/__init__.py", "x = 1\n"},
                                                {"pkg/big.txt", std::string(100000, 'a'), true},
                                                {"bin/tool", "#!/bin/sh\n", false, std::nullopt, 0100755}}));
  const auto written = envbisect::extract_zip(zip.string(), (dir.path / "out").string());
  CHECK(written.size() == 3);
  CHECK(slurp(dir.path / "out/pkg/big.txt") == std::string(100000, 'a'));
  CHECK((fs::status(dir.path / "out/bin/tool").permissions() & fs::perms::owner_exec) != fs::perms::none);
}

TEST_CASE("zip64 offsets near 2^64 and absurd entry counts are refused, not followed", "[env][unzip]") {
  const std::vector<Member> one = {{"a.py", "print(1)\n"}};
  // A locator pointing 10 bytes before 2^64: the old reader added 56 and wrapped around (SIGSEGV).
  const Error locator = refusal(make_zip64(one, std::nullopt, std::nullopt, ~std::uint64_t{0} - 9));
  CHECK(locator.code() == ExitCode::bad_input);
  CHECK(says(locator, "zip64"));
  // A central directory said to start near 2^64.
  CHECK(says(refusal(make_zip64(one, std::nullopt, ~std::uint64_t{0} - 20, std::nullopt)), "outside the file"));
  // 2^60 entries: refused before any memory is reserved for them (was "vector::reserve").
  const Error count = refusal(make_zip64(one, std::uint64_t{1} << 60, std::nullopt, std::nullopt, std::uint64_t{1} << 62));
  CHECK(count.code() == ExitCode::bad_input);
  CHECK(refusal(make_zip64(one, std::uint64_t{1} << 60, std::nullopt, std::nullopt)).code() == ExitCode::bad_input);
}

TEST_CASE("a member inflating past its declared size stops there and is refused", "[env][unzip]") {
  // 64 MiB of zeros deflates to ~64 KiB; the member declares 1 byte (the CRC is the true one).
  const std::string bomb = make_zip({{"pkg/data.bin", std::string(64 << 20, '\0'), true, 1}});
  CHECK(bomb.size() < (1 << 20));
  const Error e = refusal(bomb);
  CHECK(e.code() == ExitCode::bad_input);
  CHECK(says(e, "declared size of 1 bytes"));
  // A member that holds less than it declares is refused too.
  CHECK(says(refusal(make_zip({{"pkg/short.bin", std::string(1000, 'x'), true, 5000}})), "not the 5000"));
}

TEST_CASE("a member whose bytes do not match its CRC is refused, not unpacked", "[env][unzip]") {
  // A stored member keeps its bytes as they are in the archive: change one after the CRC was taken.
  std::string zip = make_zip({{"pkg/data.txt", "the original bytes of the member\n"}});
  const std::size_t at = zip.find("original");
  REQUIRE(at != std::string::npos);
  zip[at] = 'O';
  const Error e = refusal(zip);
  CHECK(e.code() == ExitCode::bad_input);
  CHECK(says(e, "'pkg/data.txt' fails its CRC check"));
}

TEST_CASE("the total unpacked size is capped, by default generously and by ENVBISECT_MAX_UNPACKED", "[env][unzip]") {
  ZipLimits small;
  small.max_total_bytes = 1500;
  const Error e = refusal(make_zip({{"a.bin", std::string(1000, 'a')}, {"b.bin", std::string(1000, 'b')}}), small);
  CHECK(says(e, "more than 1500 bytes"));
  CHECK(says(e, "ENVBISECT_MAX_UNPACKED"));
  CHECK(ZipLimits{}.max_total_bytes == std::uint64_t{64} << 30);
  ::setenv("ENVBISECT_MAX_UNPACKED", "512M", 1);
  CHECK(envbisect::zip_limits_from_env().max_total_bytes == std::uint64_t{512} << 20);
  ::setenv("ENVBISECT_MAX_UNPACKED", "lots", 1);
  CHECK_THROWS_AS(envbisect::zip_limits_from_env(), Error);
  ::unsetenv("ENVBISECT_MAX_UNPACKED");
  CHECK(envbisect::zip_limits_from_env().max_total_bytes == std::uint64_t{64} << 30);
}

TEST_CASE("duplicate names, a file that is also a folder, and unsafe paths are bad input", "[env][unzip]") {
  const Error twice = refusal(make_zip({{"pkg/a.py", "1"}, {"pkg/a.py", "2"}}));
  CHECK(twice.code() == ExitCode::bad_input);
  CHECK(says(twice, "holds the entry 'pkg/a.py' twice"));
  // A symlink entry (mode 0120777) with children is a file with children: both a file and a folder.
  for (const std::vector<Member>& members : std::vector<std::vector<Member>>{
           {{"pkg/a", "x"}, {"pkg/a/b.py", "y"}},
           {{"pkg/link", "/etc", false, std::nullopt, 0120777}, {"pkg/link/passwd", "y"}},
           {{"pkg/a/b.py", "y"}, {"pkg/a", "x"}}}) {
    const Error both = refusal(make_zip(members));
    CHECK(both.code() == ExitCode::bad_input);
    CHECK(says(both, "is both a file and a folder"));
  }
  for (const std::string name : {"../evil.py", "pkg/../../evil.py", "/etc/evil", "pkg/./a.py", "pkg//a.py"}) {
    const Error unsafe = refusal(make_zip({{name, "x"}}));
    CHECK(unsafe.code() == ExitCode::bad_input);
    CHECK(says(unsafe, "refusing entry"));
  }
}

TEST_CASE("names no filesystem can hold are refused by name, as bad input, before anything is written", "[env][unzip]") {
  // Each was written, or failed as a harness error (exit 3 for the whole run), or failed later naming
  // a temp file of the store instead of the wheel.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"pkg\\evil.py", "a backslash"},
      {"pkg/a\nb.py", "refusing entry 'pkg/a\\x0ab.py' (a line break)"},
      {"pkg/a\rb.py", "a line break"},
      {"pkg/" + std::string(256, 'a') + ".py", "a part of 259 bytes, longer than a file name may be (255)"},
      {"", "an empty name"},
  };
  for (const auto& [name, text] : cases) {
    TempDir dir("unzip");
    const fs::path zip = write_zip(dir, make_zip({{"pkg/__init__.py", "x"}, {name, "x"}}));
    try {
      envbisect::extract_zip(zip.string(), (dir.path / "out").string());
      FAIL("accepted the entry " << name.size() << " bytes long");
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::bad_input);
      CHECK(says(e, zip.string() + ": refusing entry"));
      CHECK(says(e, text));
    }
    CHECK(!fs::exists(dir.path / "out" / "pkg"));
  }
  // 255 bytes a part is a name a file may have.
  TempDir dir("unzip");
  const std::string longest = "pkg/" + std::string(252, 'b') + ".py";
  const fs::path zip = write_zip(dir, make_zip({{longest, "x"}}));
  CHECK(envbisect::extract_zip(zip.string(), (dir.path / "out").string()).size() == 1);
}

TEST_CASE("a path longer than the system allows under the destination is bad input naming the entry", "[env][unzip]") {
  // 20 parts of 250 bytes: every part is a fine name, the whole is past PATH_MAX (4096).
  std::string deep = "pkg";
  for (int i = 0; i < 20; ++i) {
    deep += "/" + std::string(250, 'd');
  }
  TempDir dir("unzip");
  const fs::path zip = write_zip(dir, make_zip({{"pkg/__init__.py", "x"}, {deep + "/x.py", "x"}}));
  try {
    envbisect::extract_zip(zip.string(), (dir.path / "out").string());
    FAIL("accepted a path past PATH_MAX");
  } catch (const Error& e) {
    CHECK(e.code() == ExitCode::bad_input);
    CHECK(says(e, "the path it unpacks to is longer than the system allows"));
  }
  // Refused before any folder was made: one made part way could not be removed by its path.
  CHECK(!fs::exists(dir.path / "out" / "pkg"));
}

TEST_CASE("truncated and garbage archives are bad input", "[env][unzip]") {
  const std::string good = make_zip({{"pkg/a.py", std::string(5000, 'q'), true}});
  CHECK(refusal(good.substr(0, good.size() / 2)).code() == ExitCode::bad_input);
  CHECK(refusal(std::string(100, 'z')).code() == ExitCode::bad_input);
  CHECK(refusal("").code() == ExitCode::bad_input);
}

TEST_CASE("a wheel's METADATA is read from its central directory alone, nothing unpacked", "[env][unzip]") {
  TempDir dir("unzip");
  const fs::path zip = write_zip(dir, make_zip({{"alpha/__init__.py", "x = 1\n"},
                                                {"alpha-1.0.dist-info/METADATA", "Name: alpha\nVersion: 1.0\n", true},
                                                {"alpha-1.0.dist-info/RECORD", ""}}));
  CHECK(envbisect::read_wheel_metadata(zip.string()) == "Name: alpha\nVersion: 1.0\n");
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);  // only the wheel
  // As the store reads a wheel: one top-level dist-info folder, holding METADATA.
  auto refused = [&](const std::vector<Member>& members, const std::string& text) {
    const fs::path bad = write_zip(dir, make_zip(members), "bad-1.0-py3-none-any.whl");
    try {
      envbisect::read_wheel_metadata(bad.string());
    } catch (const Error& e) {
      CHECK(e.code() == ExitCode::bad_input);
      CHECK(says(e, bad.string()));
      return says(e, text);
    }
    return false;
  };
  CHECK(refused({{"a/__init__.py", ""}}, "no .dist-info folder"));
  CHECK(refused({{"a-1.dist-info/METADATA", "x"}, {"b-1.dist-info/METADATA", "y"}}, "two dist-info folders"));
  CHECK(refused({{"a-1.dist-info/RECORD", ""}}, "no a-1.dist-info/METADATA"));
  CHECK(refused({{"a-1.dist-info/METADATA", "x"}, {"a/../../etc", "y"}}, "bad-1.0"));  // still hardened
}

TEST_CASE("a large archive unpacks on several threads to exactly its members, and a bad member still refuses it",
          "[env][unzip]") {
  TempDir dir("unzip");
  std::vector<Member> members;
  for (int i = 0; i < 6; ++i) {  // 6 x 14 MiB: past the 64 MiB where extraction goes parallel, even less one
    members.push_back({"pkg/lib/big" + std::to_string(i) + ".so", std::string(14u << 20, static_cast<char>('a' + i)), i % 2 == 0});
  }
  for (int i = 0; i < 200; ++i) {
    members.push_back({"pkg/sub" + std::to_string(i % 7) + "/m" + std::to_string(i) + ".py", "X = " + std::to_string(i) + "\n"});
  }
  const fs::path zip = write_zip(dir, make_zip(members));
  const auto written = envbisect::extract_zip(zip.string(), (dir.path / "out").string());
  REQUIRE(written.size() == members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    CHECK(written[i] == members[i].name);  // the archive's order, whatever order the threads wrote in
    CHECK(slurp(dir.path / "out" / members[i].name) == members[i].data);
  }
  // One member inflating past its declared size, among the large ones: refused, as when serial.
  members[3].declared = 100;
  members[3].deflate = true;
  const Error refused = refusal(make_zip(members));
  CHECK(refused.code() == ExitCode::bad_input);
  CHECK(says(refused, "pkg/lib/big3.so"));
}
