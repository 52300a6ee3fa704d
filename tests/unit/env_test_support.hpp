#pragma once

// Helpers shared by the env unit tests (test_env_*.cpp): a temporary folder, reading a file back, and
// building test wheels locally (no PyPI here). Header-only: everything is inline in envbisect::env_test;
// the temporary folder and file reading are test_support.hpp's, shared with the exec tests.

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/runner.hpp"
#include "source_dir.hpp"
#include "test_support.hpp"
#include "util/error.hpp"

namespace envbisect::env_test {

using envbisect::test::slurp;
using envbisect::test::TempDir;

// How `build_wheels` lays out one wheel.
enum class WheelLayout {
  make_wheel,  // scripts/make_wheel.py writes METADATA (with `requires_dist`), WHEEL and a hashed RECORD; stored
  as_given,    // exactly `files` (dist-info included) plus a RECORD naming them without hashes; deflated,
               // as a hand-made wheel: for what make_wheel refuses (entry_points.txt, .data folders)
  as_given_hashed,  // as_given, with each file's sha256 and size in RECORD, as a wheel tool writes it
};

// One test wheel: NAME-VERSION-py3-none-any.whl holding `files` (archive name -> text).
struct TestWheel {
  std::string name;
  std::string version;
  std::map<std::string, std::string> files;
  std::vector<std::string> requires_dist;  // Requires-Dist lines (make_wheel layout only)
  WheelLayout layout = WheelLayout::make_wheel;
};

// Build `wheels` into the folder `out` (created) with one Python call to scripts/make_wheel.py's
// library; python's stderr goes to `out`/make_wheel.err. Throw Error with it when the build fails.
inline void build_wheels(const std::filesystem::path& out, const std::vector<TestWheel>& wheels) {
  nlohmann::json specs = nlohmann::json::array();
  for (const TestWheel& wheel : wheels) {
    specs.push_back({{"name", wheel.name},
                     {"version", wheel.version},
                     {"files", wheel.files},
                     {"requires", wheel.requires_dist},
                     {"as_given", wheel.layout != WheelLayout::make_wheel},
                     {"hashed", wheel.layout == WheelLayout::as_given_hashed}});
  }
  std::filesystem::create_directories(out);
  const std::filesystem::path err = out / "make_wheel.err";
  LocalRunner runner;
  ProcessSpec spec;
  spec.argv = {"python3", "-I", "-c",
               "import base64, hashlib, json, sys, zipfile; sys.path.insert(0, sys.argv[1])\n"
               "from make_wheel import build_wheel, wheel_filename\n"
               "out = sys.argv[2]\n"
               "for w in json.loads(sys.argv[3]):\n"
               "    if not w['as_given']:\n"
               "        build_wheel(w['name'], w['version'], w['files'], out, requires=w['requires'])\n"
               "        continue\n"
               "    files = dict(w['files'])\n"
               "    record = [k for k in files if k.endswith('.dist-info/METADATA')][0][:-len('METADATA')] + 'RECORD'\n"
               "    def row(k):\n"
               "        if not w['hashed']: return k + ',,\\n'\n"
               "        d = base64.urlsafe_b64encode(hashlib.sha256(files[k].encode()).digest()).rstrip(b'=').decode()\n"
               "        return f'{k},sha256={d},{len(files[k].encode())}\\n'\n"
               "    files[record] = ''.join(row(k) for k in files) + record + ',,\\n'\n"
               "    with zipfile.ZipFile(out + '/' + wheel_filename(w['name'], w['version']), 'w', zipfile.ZIP_DEFLATED) as z:\n"
               "        for k, v in files.items(): z.writestr(k, v)\n",
               std::string(ENVBISECT_SOURCE_DIR) + "/scripts", out.string(), specs.dump()};
  spec.env = allowed_parent_env();
  spec.stderr_path = err.string();
  const ProcessResult result = runner.run(spec);
  if (!result.spawned || result.exit_code != 0) {
    throw Error("building the test wheels in " + out.string() + " failed: " + result.spawn_error + slurp(err),
                ExitCode::environment);
  }
}

// Rewrite the wheel at `wheel` with its member `member` holding `text` (added when absent) and every
// other member, RECORD included, as it was: a wheel changed after it was built.
inline void rewrite_wheel_member(const std::filesystem::path& wheel, const std::string& member, const std::string& text) {
  LocalRunner runner;
  ProcessSpec spec;
  spec.argv = {"python3", "-I", "-c",
               "import sys, zipfile\n"
               "path, member, text = sys.argv[1:4]\n"
               "with zipfile.ZipFile(path) as z: items = [(i.filename, z.read(i)) for i in z.infolist()]\n"
               "items = [(n, text.encode() if n == member else d) for n, d in items]\n"
               "if member not in [n for n, _ in items]: items.insert(0, (member, text.encode()))\n"
               "with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:\n"
               "    for n, d in items: z.writestr(n, d)\n",
               wheel.string(), member, text};
  spec.env = allowed_parent_env();
  const ProcessResult result = runner.run(spec);
  if (!result.spawned || result.exit_code != 0) {
    throw Error("rewriting " + wheel.string() + " failed", ExitCode::environment);
  }
}

}  // namespace envbisect::env_test
