#pragma once

#include <string>
#include <vector>

#include "env/wheel_source.hpp"

namespace envbisect::detail {

// Return where the store's unpack puts the wheel member `path`, relative to the entry's temp folder:
// a .data part where an installer places it (purelib/platlib in site/, scripts/, data/, headers in
// data/include/site/NAME/), everything else under site/; empty for a .data part it drops. Mirrors
// finish_unpack in store.cpp.
std::string unpacked_place(const std::string& path, const std::string& data_dir, const std::string& name);

// Throw Error (bad input) naming the wheel when its files, unpacked under `temp` with their sha256 in
// `hashes` (seal_files' "<sha256> <path>" lines), disagree with its RECORD (record_problems): a file
// changed, added or removed after the wheel was built is not the build its name says. `members`: the
// archive's files. Nothing to check without a RECORD.
void check_unpacked_record(const std::string& temp, const Distribution& dist, const std::string& dist_info,
                           const std::vector<std::string>& members, const std::string& hashes);

}  // namespace envbisect::detail
