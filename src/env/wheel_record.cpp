#include "env/wheel_record.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace envbisect {

namespace {

// Split one CSV line as Python's csv module reads it: fields separated by ',', a field starting with
// '"' runs to the next lone '"' with "" for a quote. Return nullopt when a quote is unterminated or
// followed by something other than ','.
std::optional<std::vector<std::string>> csv_fields(std::string_view line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (true) {
    std::string field;
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (true) {
        if (i >= line.size()) {
          return std::nullopt;
        }
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += line[i++];
      }
      if (i < line.size() && line[i] != ',') {
        return std::nullopt;
      }
    } else {
      const std::size_t comma = line.find(',', i);
      const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
      field = std::string(line.substr(i, end - i));
      i = end;
    }
    out.push_back(std::move(field));
    if (i >= line.size()) {
      return out;
    }
    ++i;  // the comma
  }
}

// Decode unpadded URL-safe base64 to lower-case hex; nullopt when `text` is not such a string.
std::optional<std::string> base64url_to_hex(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '-') return 62;
    if (c == '_') return 63;
    return -1;
  };
  while (!text.empty() && text.back() == '=') {
    text.remove_suffix(1);  // padding is not written, but tolerated
  }
  if (text.empty() || text.size() % 4 == 1) {
    return std::nullopt;
  }
  static const char* k_hex = "0123456789abcdef";
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (char c : text) {
    const int v = value(c);
    if (v < 0) {
      return std::nullopt;
    }
    bits = (bits << 6) | static_cast<unsigned>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      const unsigned byte = (bits >> count) & 0xffU;
      out += k_hex[byte >> 4];
      out += k_hex[byte & 0xfU];
    }
  }
  return out;
}

bool is_signature_or_record(const std::string& path, const std::string& dist_info) {
  return path == dist_info + "/RECORD" || path == dist_info + "/RECORD.jws" || path == dist_info + "/RECORD.p7s";
}

}  // namespace

std::vector<RecordRow> parse_record(std::string_view text, const std::string& label) {
  std::vector<RecordRow> rows;
  std::size_t number = 0;
  for (const std::string& line : lines_of(text)) {
    ++number;
    if (line.empty()) {
      continue;
    }
    const std::string where = label + " line " + std::to_string(number) + ": ";
    const auto fields = csv_fields(line);
    if (!fields || fields->size() > 3 || fields->front().empty()) {
      throw Error(where + "not a RECORD line (path,algorithm=digest,size)", ExitCode::bad_input);
    }
    RecordRow row;
    row.line = number;
    row.path = (*fields)[0];
    const std::string hash = fields->size() > 1 ? (*fields)[1] : "";
    row.hash = hash;
    row.size = fields->size() > 2 ? (*fields)[2] : "";
    if (!hash.empty()) {
      const std::size_t eq = hash.find('=');
      if (eq == std::string::npos || eq == 0) {
        throw Error(where + "the hash '" + hash + "' is not algorithm=digest", ExitCode::bad_input);
      }
      row.algorithm = hash.substr(0, eq);
      const auto hex = base64url_to_hex(std::string_view(hash).substr(eq + 1));
      if (!hex) {
        throw Error(where + "the digest of " + row.path + " is not URL-safe base64", ExitCode::bad_input);
      }
      row.digest_hex = *hex;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string wheel_version_problem(std::string_view text) {
  std::string version;
  for (const std::string& line : lines_of(text)) {
    if (line.rfind("Wheel-Version:", 0) == 0) {
      version = trim(line.substr(std::strlen("Wheel-Version:")));
      break;
    }
  }
  if (version.substr(0, version.find('.')) == "1") {
    return "";
  }
  return "says " + (version.empty() ? std::string("no Wheel-Version") : "Wheel-Version " + version) +
         "; pip and uv install wheels of version 1.x only";
}

std::string record_line(const std::string& path, const std::string& hash, const std::string& size) {
  auto field = [](const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) {
      return text;
    }
    std::string out = "\"";
    for (char c : text) {
      out += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return out + "\"";
  };
  return field(path) + "," + field(hash) + "," + field(size) + "\n";
}

std::vector<std::string> record_problems(const std::vector<RecordRow>& rows, const std::string& dist_info,
                                         const std::vector<std::string>& files, const RecordLookup& lookup) {
  std::vector<std::string> out;
  if (std::none_of(rows.begin(), rows.end(), [](const RecordRow& row) { return !row.algorithm.empty(); })) {
    return out;
  }
  const std::set<std::string> present(files.begin(), files.end());
  std::map<std::string, const RecordRow*> listed;
  for (const RecordRow& row : rows) {
    const auto [at, added] = listed.emplace(row.path, &row);
    if (!added && (at->second->digest_hex != row.digest_hex || at->second->size != row.size)) {
      out.push_back(row.path + ": listed twice with different hashes or sizes (lines " +
                    std::to_string(at->second->line) + " and " + std::to_string(row.line) + ")");
    }
    if (row.algorithm.empty()) {
      continue;
    }
    if (row.algorithm != "sha256" && row.algorithm != "sha384" && row.algorithm != "sha512") {
      out.push_back(row.path + ": hashed with " + row.algorithm + " (a wheel's RECORD takes sha256 or stronger)");
      continue;
    }
    if (present.count(row.path) == 0) {
      out.push_back(row.path + ": in RECORD but not in the wheel");
      continue;
    }
    if (row.path.ends_with(".pyc")) {
      continue;
    }
    const std::optional<std::string> actual = lookup.digest_hex(row.path, row.algorithm);
    if (!actual) {
      continue;
    }
    if (*actual != row.digest_hex) {
      out.push_back(row.path + ": its " + row.algorithm + " is " + actual->substr(0, 16) + "..., RECORD says " +
                    row.digest_hex.substr(0, 16) + "...");
      continue;
    }
    if (!row.size.empty()) {
      const bool digits = std::all_of(row.size.begin(), row.size.end(), [](char c) { return c >= '0' && c <= '9'; });
      const std::uint64_t size = lookup.size(row.path);
      if (!digits || row.size.size() > 19 || std::stoull(row.size) != size) {
        out.push_back(row.path + ": " + std::to_string(size) + " bytes, RECORD says " + row.size);
      }
    }
  }
  for (const std::string& file : files) {
    if (is_signature_or_record(file, dist_info)) {
      continue;
    }
    const auto found = listed.find(file);
    if (found == listed.end()) {
      out.push_back(file + ": not in RECORD");
    } else if (found->second->algorithm.empty() && !file.ends_with(".pyc")) {
      out.push_back(file + ": in RECORD without a hash");
    }
  }
  return out;
}

}  // namespace envbisect
