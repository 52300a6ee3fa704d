#pragma once

// The generated commit histories of bench/search, shared with bench/parallel so both bisect the same
// shapes from the same random draws.

#include <algorithm>
#include <cstddef>
#include <random>
#include <vector>

namespace envbisect::bench {

// Return parents[i] for commits 0..count (0 is the good root; creation order is a topological order):
// a straight chain, or with `merges` about one commit in three on a side branch of 1..4 commits forked
// from main while main moves on 0..3 commits, then merged into main. Draws from `rng` only with merges.
inline std::vector<std::vector<int>> generate_history(int count, bool merges, std::mt19937& rng) {
  std::vector<std::vector<int>> parents(static_cast<std::size_t>(count) + 1);
  int main_head = 0;
  int next = 1;
  while (next <= count) {
    const int left = count - next + 1;
    if (merges && left >= 4 && rng() % 3 == 0) {
      const int side_len = std::min(1 + static_cast<int>(rng() % 4), left - 2);
      const int main_len = std::min(static_cast<int>(rng() % 4), left - 1 - side_len);
      const int fork = main_head;
      for (int i = 0; i < main_len; ++i) {
        parents[static_cast<std::size_t>(next)] = {main_head};
        main_head = next++;
      }
      int side_head = fork;
      for (int i = 0; i < side_len; ++i) {
        parents[static_cast<std::size_t>(next)] = {side_head};
        side_head = next++;
      }
      parents[static_cast<std::size_t>(next)] = {main_head, side_head};
      main_head = next++;
    } else {
      parents[static_cast<std::size_t>(next)] = {main_head};
      main_head = next++;
    }
  }
  return parents;
}

}  // namespace envbisect::bench
