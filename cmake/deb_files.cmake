# Write the Debian package's version and changelog for the commit the tree is at, only when they
# change: OUT_DIR/deb-version.txt ("0.1.0+g<12 digits>", read by cpack through deb_version.cmake) and
# OUT_DIR/changelog.gz (Debian policy 12.7: a native package's changelog, gzip -9n).
# Run at every build: cmake -DSOURCE_DIR=... -DOUT_DIR=... -DVERSION=... -DMAINTAINER=... -P deb_files.cmake
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR commit STREQUAL "")
  set(commit "0")
endif()
# The commit's own date, so the same commit gives the same changelog bytes.
execute_process(COMMAND git -C "${SOURCE_DIR}" log -1 --format=%aD
                OUTPUT_VARIABLE date OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(date STREQUAL "")
  set(date "Thu, 01 Jan 1970 00:00:00 +0000")
endif()
set(DEB_VERSION "${VERSION}+g${commit}")
set(DEB_COMMIT "${commit}")
set(DEB_MAINTAINER "${MAINTAINER}")
set(DEB_DATE "${date}")
configure_file("${SOURCE_DIR}/packaging/changelog.in" "${OUT_DIR}/changelog.new" @ONLY)
file(READ "${OUT_DIR}/changelog.new" text)
if(EXISTS "${OUT_DIR}/changelog")
  file(READ "${OUT_DIR}/changelog" old)
endif()
if(NOT old STREQUAL text OR NOT EXISTS "${OUT_DIR}/changelog.gz")
  file(WRITE "${OUT_DIR}/changelog" "${text}")
  execute_process(COMMAND gzip -9nfk "${OUT_DIR}/changelog" COMMAND_ERROR_IS_FATAL ANY)
  file(WRITE "${OUT_DIR}/deb-version.txt" "${DEB_VERSION}")
endif()
file(REMOVE "${OUT_DIR}/changelog.new")
