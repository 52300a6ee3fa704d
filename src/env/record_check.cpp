#include "env/record_check.hpp"

#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>

#include "env/store.hpp"
#include "env/wheel_record.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/hash.hpp"
#include "util/strings.hpp"

namespace envbisect::detail {

std::string unpacked_place(const std::string& path, const std::string& data_dir, const std::string& name) {
  if (path.rfind(data_dir + "/", 0) != 0) {
    return "site/" + path;
  }
  const std::string rest = path.substr(data_dir.size() + 1);
  const std::size_t slash = rest.find('/');
  const std::string part = rest.substr(0, slash);
  const std::string tail = slash == std::string::npos ? "" : rest.substr(slash + 1);
  if (tail.empty()) {
    return "";
  }
  if (part == "purelib" || part == "platlib") {
    return "site/" + tail;
  }
  if (part == "scripts" || part == "data") {
    return part + "/" + tail;
  }
  if (part == "headers") {
    return "data/include/site/" + name + "/" + tail;
  }
  return "";
}

void check_unpacked_record(const std::string& temp, const Distribution& dist, const std::string& dist_info,
                  const std::vector<std::string>& members, const std::string& hashes) {
  const std::string record = temp + "/site/" + dist_info + "/RECORD";
  if (!path_is_file(record)) {
    return;  // nothing to check against (finish_unpack has read METADATA, the part needed)
  }
  const std::string label = describe(dist) + ": " + dist_info + "/RECORD";
  const std::vector<RecordRow> rows = parse_record(read_file(record), label);
  std::map<std::string, std::string> sha256;  // by path below temp
  for (const std::string& line : lines_of(hashes)) {
    const std::size_t space = line.find(' ');
    if (space != std::string::npos) {
      sha256[line.substr(space + 1)] = line.substr(0, space);
    }
  }
  const std::string data_dir = dist_info.substr(0, dist_info.size() - std::strlen(".dist-info")) + ".data";
  std::map<std::string, std::string> member_at;
  for (const std::string& member : members) {
    const std::string place = unpacked_place(member, data_dir, dist.name);
    if (!place.empty() && !member_at.emplace(place, member).second) {
      throw Error(describe(dist) + ": " + member_at[place] + " and " + member + " would both be " + place,
                  ExitCode::bad_input);
    }
  }
  RecordLookup lookup;
  lookup.digest_hex = [&](const std::string& path, const std::string& algorithm) -> std::optional<std::string> {
    const std::string place = unpacked_place(path, data_dir, dist.name);
    if (place.empty()) {
      return std::nullopt;
    }
    if (algorithm == "sha256") {
      const auto found = sha256.find(place);
      return found == sha256.end() ? std::string("(none)") : found->second;
    }
    return file_digest_hex(temp + "/" + place, algorithm);
  };
  lookup.size = [&](const std::string& path) -> std::uint64_t {
    struct stat st {};
    const std::string place = unpacked_place(path, data_dir, dist.name);
    return !place.empty() && ::stat((temp + "/" + place).c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
  };
  const std::vector<std::string> problems = record_problems(rows, dist_info, members, lookup);
  if (!problems.empty()) {
    std::string shown;
    for (std::size_t i = 0; i < problems.size() && i < 3; ++i) {
      shown += (i == 0 ? "" : "; ") + problems[i];
    }
    if (problems.size() > 3) {
      shown += "; and " + std::to_string(problems.size() - 3) + " more";
    }
    throw Error(label + " does not match the wheel's files, so this is not the build it names (changed after "
                "it was built?): " + shown, ExitCode::bad_input);
  }
}

}  // namespace envbisect::detail
