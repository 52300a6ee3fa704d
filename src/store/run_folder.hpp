#pragma once

#include <sys/types.h>

#include <string>

namespace envbisect {

// A run folder is input: anyone who can write it (or hand it over) chooses what its files are. Every
// file of it is opened relative to the folder's descriptor, never through a symbolic link, and only
// when it is a regular file; see docs/RELIABILITY.md ("The run folder is untrusted input").

// Open `name` (one file name, no '/') inside the folder `dir` with `flags` (O_CLOEXEC and O_NOFOLLOW
// are added; `mode` for O_CREAT), refusing a symbolic link anywhere below `dir` (openat2
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has it, openat with O_NOFOLLOW otherwise) and
// anything but a regular file. Return the descriptor. Throw Error (bad_input) naming the file when it
// is a link or not a regular file, Error (environment) for other failures; ENOENT without O_CREAT
// returns -1.
int open_run_file(const std::string& dir, const std::string& name, int flags, mode_t mode = 0644);

// Open `relative` (names joined by '/'; no empty, "." or ".." part) below the folder `dir` as
// open_run_file opens one name: no symbolic link at any level below `dir`, a regular file only.
// Throw Error (bad_input) naming the path when a part is a link, ".." or the file is not regular.
int open_run_beneath(const std::string& dir, const std::string& relative, int flags, mode_t mode = 0644);

// Split `path` into its folder and file name and call open_run_file.
int open_run_path(const std::string& path, int flags, mode_t mode = 0644);

// Return the whole content of the regular file `path` read through open_run_path ("" when missing).
std::string read_run_path(const std::string& path);

// Check that the run folder `dir`, the envbisect files directly in it and the folders envbisect names
// below it (attempts/CANDIDATE/N, logs/build-ENV, envs/ENV, repos/NAME-COMMIT, warm/KEY) may be
// trusted before a command reads them: each is owned by the invoking user, not writable by others, and
// not a symbolic link (the folder itself may be reached through one the user named). Throw Error
// (bad_input) naming the first one that is not.
void check_run_folder_trust(const std::string& dir);

// Make (or take) the folder `name` inside `dir` for writing: refuse a symbolic link or anything but a
// folder owned by the invoking user and not writable by others. Return its path. Throw Error
// (bad_input) naming it.
std::string own_subfolder(const std::string& dir, const std::string& name);

// Make (or take) each folder of `relative` (names joined by '/') below the run folder `dir`, one level
// at a time as own_subfolder does: a link at any level (attempts/HASH planted as a link elsewhere) is
// refused, so no write or removal below it reaches outside the run folder. Return dir + "/" +
// relative. Throw Error (bad_input) naming the first part that is a link, not a folder, another
// user's or writable by others.
std::string own_run_subpath(const std::string& dir, const std::string& relative);

}  // namespace envbisect
