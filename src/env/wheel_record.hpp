#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envbisect {

// One line of a wheel's RECORD (PEP 376 / PEP 427): "path,algorithm=urlsafe-base64-digest,size", as
// Python's csv module writes it (fields with a comma or a quote are quoted, quotes doubled).
struct RecordRow {
  std::string path;
  std::string algorithm;   // "sha256", ...; empty when the line carries no hash
  std::string digest_hex;  // the digest, decoded to lower-case hex; empty without a hash
  std::string size;        // as written; empty when not given
  std::string hash;        // the second field as written ("sha256=..."); empty without a hash
  std::size_t line = 0;    // 1-based
};

// Return the rows of the RECORD `text`; blank lines are skipped. Throw Error (bad_input) naming
// `label` and the line when a line is not CSV of at most three fields, a hash has no "=" or its digest
// is not unpadded URL-safe base64.
std::vector<RecordRow> parse_record(std::string_view text, const std::string& label);

// Return one RECORD line (with its '\n') for `path`, `hash` and `size` as Python's csv module writes
// it: a field holding a comma, a quote or a line break is quoted, its quotes doubled.
std::string record_line(const std::string& path, const std::string& hash, const std::string& size);

// Return why the WHEEL file `text` is not one pip and uv install, empty when it is: PEP 427 says an
// installer must refuse a Wheel-Version of a major version it does not know (they know 1), and they
// refuse one without the field. The reason reads after "WHEEL": "says Wheel-Version 2.0; ...".
std::string wheel_version_problem(std::string_view text);

// What the check below needs to know of a file the wheel unpacked, by its path in the archive.
struct RecordLookup {
  // The file's digest by `algorithm` ("sha256", "sha384" or "sha512") as lower-case hex; nullopt when
  // the file was not kept (a .data part no installer places), so there is nothing to compare.
  std::function<std::optional<std::string>(const std::string& path, const std::string& algorithm)> digest_hex;
  std::function<std::uint64_t(const std::string& path)> size;
};

// Return what is wrong between a wheel's RECORD and the files it unpacked (`files`: every regular
// file of the archive by its path there), one line each, empty when they agree. A RECORD without a
// single hash claims nothing and is not checked. Otherwise, as PEP 427 asks of installers: every
// hashed line must name a file of the archive, with a digest by sha256 or a stronger algorithm that
// matches, and the size when one is given; every file of the archive but RECORD and its signatures
// must be listed, with a hash unless it is a .pyc. A .pyc's digest is not compared: the store compiles
// bytecode after unpacking and may rewrite a shipped one. Pure: reads files only through `lookup`.
std::vector<std::string> record_problems(const std::vector<RecordRow>& rows, const std::string& dist_info,
                                         const std::vector<std::string>& files, const RecordLookup& lookup);

}  // namespace envbisect
