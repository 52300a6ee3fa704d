#include "search/dag_bisect.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace envbisect {

namespace {

// Set `mark` on `start` and every ancestor of it inside the range.
void mark_ancestors(const std::vector<DagNode>& nodes, std::size_t start, std::vector<char>& mark) {
  std::vector<std::size_t> stack{start};
  while (!stack.empty()) {
    const std::size_t node = stack.back();
    stack.pop_back();
    if (mark[node] != 0) {
      continue;
    }
    mark[node] = 1;
    for (std::size_t parent : nodes[node].parents) {
      stack.push_back(parent);
    }
  }
}

// Return, for every candidate, how many candidates it reaches (itself and its candidate ancestors).
// A node with one candidate parent reaches one more than that parent (git's shortcut); only nodes
// with two or more candidate parents are counted by a walk, since their ancestries overlap.
std::vector<std::size_t> reach_counts(const std::vector<DagNode>& nodes, const std::vector<char>& candidate) {
  std::vector<std::size_t> reach(nodes.size(), 0);
  std::vector<std::size_t> seen(nodes.size(), 0);
  std::size_t stamp = 0;
  for (std::size_t node = 0; node < nodes.size(); ++node) {
    if (candidate[node] == 0) {
      continue;
    }
    std::size_t in_range_parents = 0;
    std::size_t only_parent = 0;
    for (std::size_t parent : nodes[node].parents) {
      if (candidate[parent] != 0) {
        ++in_range_parents;
        only_parent = parent;
      }
    }
    if (in_range_parents <= 1) {
      reach[node] = in_range_parents == 0 ? 1 : reach[only_parent] + 1;
      continue;
    }
    ++stamp;
    std::size_t count = 0;
    std::vector<std::size_t> stack{node};
    while (!stack.empty()) {
      const std::size_t current = stack.back();
      stack.pop_back();
      if (seen[current] == stamp || candidate[current] == 0) {
        continue;
      }
      seen[current] = stamp;
      ++count;
      for (std::size_t parent : nodes[current].parents) {
        stack.push_back(parent);
      }
    }
    reach[node] = count;
  }
  return reach;
}

// Return the commit git bisect would test next among the candidates (bisect.c's find_bisection,
// without path limits): with the candidates oldest first, weights (candidate ancestors, itself
// included) are filled in git's order -- roots 1, merges by a walk, then one more than a known
// parent, sweep after sweep -- and the first commit whose weight is within one of half (`2w - nr` in
// -1..1) is taken at once; otherwise the first commit with the largest min(w, nr - w).
std::size_t git_choice(const std::vector<DagNode>& nodes, const std::vector<char>& candidate,
                       const std::vector<std::size_t>& reach) {
  std::vector<std::size_t> list;
  for (std::size_t node = 0; node < nodes.size(); ++node) {
    if (candidate[node] != 0) {
      list.push_back(node);
    }
  }
  const long long nr = static_cast<long long>(list.size());
  std::vector<long long> weight(nodes.size(), 0);
  auto halfway = [&](std::size_t node) {
    const long long diff = 2 * weight[node] - nr;
    return diff >= -1 && diff <= 1;
  };
  long long counted = 0;
  for (std::size_t node : list) {
    std::size_t parents = 0;
    for (std::size_t parent : nodes[node].parents) {
      parents += candidate[parent] != 0 ? 1 : 0;
    }
    weight[node] = parents == 0 ? 1 : parents == 1 ? -1 : -2;
    counted += parents == 0 ? 1 : 0;
  }
  for (std::size_t node : list) {
    if (weight[node] == -2) {
      weight[node] = static_cast<long long>(reach[node]);
      if (halfway(node)) {
        return node;
      }
      ++counted;
    }
  }
  while (counted < nr) {
    bool progress = false;
    for (std::size_t node : list) {
      if (weight[node] >= 0) {
        continue;
      }
      const std::size_t* known = nullptr;
      for (const std::size_t& parent : nodes[node].parents) {
        if (candidate[parent] != 0 && weight[parent] >= 0) {
          known = &parent;
          break;
        }
      }
      if (known == nullptr) {
        continue;
      }
      weight[node] = weight[*known] + 1;
      ++counted;
      progress = true;
      if (halfway(node)) {
        return node;
      }
    }
    if (!progress) {
      break;  // cannot happen in a DAG; never loop forever
    }
  }
  std::size_t best = list.front();
  long long best_distance = -1;
  for (std::size_t node : list) {
    const long long distance = std::min(weight[node], nr - weight[node]);
    if (distance > best_distance) {
      best = node;
      best_distance = distance;
    }
  }
  return best;
}

std::string list_nodes(const std::vector<std::size_t>& list) {
  std::string text;
  for (std::size_t node : list) {
    text += (text.empty() ? "" : ",") + std::to_string(node);
  }
  return text;
}

}  // namespace

DagBisection dag_first_bad(const std::vector<DagNode>& nodes, const DagOracle& oracle) {
  DagBisection result;
  if (nodes.empty()) {
    result.note = "nothing to bisect: the range is empty";
    return result;
  }
  for (std::size_t node = 0; node < nodes.size(); ++node) {
    for (std::size_t parent : nodes[node].parents) {
      if (parent >= node) {
        throw Error("commit range is not in topological order: node " + std::to_string(node) + " has parent " +
                        std::to_string(parent),
                    ExitCode::environment);
      }
    }
  }

  std::size_t bad = nodes.size() - 1;
  std::vector<char> known_good(nodes.size(), 0);  // good commits and all their ancestors
  std::map<std::size_t, Verdict> asked;
  std::vector<std::string> notes;

  // Invariant: `bad` is bad; every candidate (ancestor of bad, not of a good commit) may be the first bad.
  while (true) {
    std::vector<char> candidate(nodes.size(), 0);
    mark_ancestors(nodes, bad, candidate);
    std::size_t total = 0;
    for (std::size_t node = 0; node < nodes.size(); ++node) {
      candidate[node] = candidate[node] != 0 && known_good[node] == 0 ? 1 : 0;
      total += candidate[node];
    }
    if (total == 1) {
      result.found = true;
      break;
    }
    const std::vector<std::size_t> reach = reach_counts(nodes, candidate);

    // The best split overall, and the best among the candidates not yet found untestable.
    std::size_t best_score = 0;
    std::size_t best_node = bad;
    std::size_t pick_score = 0;
    std::size_t pick = bad;
    for (std::size_t node = 0; node < bad; ++node) {
      if (candidate[node] == 0) {
        continue;
      }
      const std::size_t score = std::min(reach[node], total - reach[node]);
      if (score >= best_score) {
        best_score = score;
        best_node = node;
      }
      if (score >= pick_score && asked.count(node) == 0) {
        pick_score = score;
        pick = node;
      }
    }
    if (pick == bad) {
      // Every candidate but the bad commit is untestable: boxed in.
      break;
    }
    // Untestable commits aside, ask what git bisect would ask: the same questions, the same count.
    if (const std::size_t git_pick = git_choice(nodes, candidate, reach); git_pick != bad && asked.count(git_pick) == 0) {
      pick = git_pick;
      best_node = git_pick;
    }
    std::string why = std::to_string(total) + " candidates: test " + std::to_string(pick) + ", reaching " +
                      std::to_string(reach[pick]) + " of them";
    if (pick != best_node) {
      why += " (best split " + std::to_string(best_node) + " is untestable)";
    }
    const Verdict verdict = oracle(pick);
    asked.emplace(pick, verdict);
    result.steps.push_back(DagStep{pick, verdict, why});
    ++result.evaluations;
    if (verdict == Verdict::good) {
      mark_ancestors(nodes, pick, known_good);
    } else if (verdict == Verdict::bad || verdict == Verdict::intermediate) {
      if (verdict == Verdict::intermediate) {
        notes.push_back("intermediate at " + std::to_string(pick) + ": treated as bad, a partial effect");
      }
      bad = pick;
    } else {
      notes.push_back(std::string(verdict == Verdict::skip ? "skip" : "unstable") + " at " + std::to_string(pick) +
                      ": untestable");
    }
  }

  result.first_bad = bad;
  if (!result.found) {
    std::vector<char> candidate(nodes.size(), 0);
    mark_ancestors(nodes, bad, candidate);
    for (std::size_t node = 0; node < nodes.size(); ++node) {
      if (candidate[node] != 0 && known_good[node] == 0) {
        result.could_be.push_back(node);
      }
    }
    notes.insert(notes.begin(), "boxed in by untestable commits: the first bad could be any of " +
                                    list_nodes(result.could_be));
  }
  for (const std::string& note : notes) {
    result.note += (result.note.empty() ? "" : "; ") + note;
  }
  return result;
}

}  // namespace envbisect
