#pragma once

#include <string>
#include <vector>

namespace envbisect {

// Extract every entry of the zip archive at `zip_path` (stored or deflated, as wheels are) under
// `dest_dir` (created), keeping the executable bit; return the relative paths of the files written.
// Throw Error (bad_input) naming the archive when it is not a readable zip, uses another compression
// method, or holds an absolute path or a ".." component; Error (environment) when writing fails.
std::vector<std::string> extract_zip(const std::string& zip_path, const std::string& dest_dir);

}  // namespace envbisect
