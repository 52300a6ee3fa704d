#pragma once

#include <map>
#include <string>
#include <vector>

namespace envbisect {

class Runner;

// Return the argv that lists the Debian packages installed in the root filesystem at `rootfs`
// (dpkg-query reading ROOTFS/var/lib/dpkg): one "name<TAB>version<TAB>status" line per package. Pure.
std::vector<std::string> dpkg_list_argv(const std::string& rootfs);

// Return package -> version for the installed packages ("ii" status) of dpkg_list_argv's output.
// Lines that do not have three tab-separated fields are ignored. Pure.
std::map<std::string, std::string> parse_dpkg_list(const std::string& text);

// Return the installed Debian packages of the root filesystem at `rootfs`, read with dpkg-query
// through `runner`. Throw Error (bad_input) when `rootfs` has no dpkg database, (environment) when
// dpkg-query cannot run or fails.
std::map<std::string, std::string> read_rootfs_packages(Runner& runner, const std::string& rootfs);

}  // namespace envbisect
