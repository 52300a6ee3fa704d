// The Catch2 main. This file never changes: it costs ~40 s to compile on our 2-core machines.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
