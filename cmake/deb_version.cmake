# Included by cpack (CPACK_PROJECT_CONFIG_FILE) when it packs: the .deb's version is the one the last
# build wrote for its commit (deb_files.cmake), "0.1.0+g<commit>", not the one of configure time.
if(EXISTS "${CPACK_ENVBISECT_GENERATED}/deb-version.txt")
  file(READ "${CPACK_ENVBISECT_GENERATED}/deb-version.txt" CPACK_DEBIAN_PACKAGE_VERSION)
  string(STRIP "${CPACK_DEBIAN_PACKAGE_VERSION}" CPACK_DEBIAN_PACKAGE_VERSION)
endif()
