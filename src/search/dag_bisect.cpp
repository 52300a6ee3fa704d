#include "search/dag_bisect.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <cstdlib>
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

std::string list_nodes(const PointLabel& label, const std::vector<std::size_t>& list) {
  std::string text;
  for (std::size_t node : list) {
    text += (text.empty() ? "" : ",") + point_label(label, node);
  }
  return text;
}

// One question of a round, and why it was chosen.
struct Probe {
  std::size_t node = 0;
  std::string why;
};

// Keep as candidates only the ancestors of `node` (itself included): a bad commit's first bad is one.
void keep_ancestors(const std::vector<DagNode>& nodes, std::size_t node, std::vector<char>& candidate) {
  std::vector<char> ancestors(nodes.size(), 0);
  mark_ancestors(nodes, node, ancestors);
  for (std::size_t other = 0; other < nodes.size(); ++other) {
    candidate[other] = candidate[other] != 0 && ancestors[other] != 0 ? 1 : 0;
  }
}

// Return the one question git bisect would ask (dag_first_bad's rule): git's choice when it is
// testable, else the untested candidate with the best min(reach, total - reach), ties to the highest.
std::vector<Probe> serial_probe(const std::vector<DagNode>& nodes, const std::vector<char>& candidate,
                                const std::vector<std::size_t>& reach, std::size_t total,
                                const std::vector<char>& bad, const std::map<std::size_t, Verdict>& asked,
                                const PointLabel& label) {
  const std::size_t none = nodes.size();
  std::size_t best_score = 0;
  std::size_t best_node = none;
  std::size_t pick_score = 0;
  std::size_t pick = none;
  for (std::size_t node = 0; node < nodes.size(); ++node) {
    if (candidate[node] == 0 || bad[node] != 0) {
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
  if (pick == none) {
    return {};
  }
  // Untestable commits aside, ask what git bisect would ask: the same questions, the same count.
  if (const std::size_t git_pick = git_choice(nodes, candidate, reach);
      bad[git_pick] == 0 && asked.count(git_pick) == 0) {
    pick = git_pick;
    best_node = git_pick;
  }
  std::string why = std::to_string(total) + " candidates: test " + point_label(label, pick) + ", reaching " +
                    std::to_string(reach[pick]) + " of them";
  if (pick != best_node) {
    why += " (best split " + point_label(label, best_node) + " is untestable)";
  }
  return {Probe{pick, why}};
}

// Return up to k untested candidates for one round: for j = 1..k the one whose reach is closest to
// j*total/(k+1) among those not yet picked (ties to the highest index); all of them when k or fewer.
std::vector<Probe> round_probes(const std::vector<DagNode>& nodes, const std::vector<char>& candidate,
                                const std::vector<std::size_t>& reach, std::size_t total, std::size_t k,
                                int round, const std::vector<char>& bad, const std::map<std::size_t, Verdict>& asked,
                                const PointLabel& label) {
  std::vector<std::size_t> untested;
  for (std::size_t node = 0; node < nodes.size(); ++node) {
    if (candidate[node] != 0 && bad[node] == 0 && asked.count(node) == 0) {
      untested.push_back(node);
    }
  }
  const std::size_t count = std::min(k, untested.size());
  const std::string prefix = "round " + std::to_string(round) + ", " + std::to_string(count) + " at once over " +
                             std::to_string(total) + " candidates: test ";
  std::vector<Probe> probes;
  std::vector<char> picked(nodes.size(), 0);
  for (std::size_t j = 1; j <= count; ++j) {
    const long long aim = static_cast<long long>(j * total);
    const std::size_t none = nodes.size();
    std::size_t best = none;
    long long best_distance = 0;
    for (std::size_t node : untested) {
      if (picked[node] != 0) {
        continue;
      }
      // |reach - j*total/(k+1)|, scaled by k+1 to stay in integers.
      const long long distance = std::llabs(static_cast<long long>((k + 1) * reach[node]) - aim);
      if (best == none || distance <= best_distance) {
        best = node;
        best_distance = distance;
      }
    }
    picked[best] = 1;
    probes.push_back(Probe{best, prefix + point_label(label, best) + ", reaching " + std::to_string(reach[best]) +
                                     " of them (aim " + std::to_string((j * total + (k + 1) / 2) / (k + 1)) + ")"});
  }
  return probes;
}

}  // namespace

DagBisection dag_first_bad(const std::vector<DagNode>& nodes, const DagOracle& oracle, const PointLabel& label) {
  // One question a round: the k-slot search with k = 1 is git's bisection.
  return dag_first_bad_k(nodes, 1, [&](const std::vector<std::size_t>& batch) {
           std::vector<Verdict> verdicts;
           for (std::size_t node : batch) {
             verdicts.push_back(oracle(node));
           }
           return verdicts;
         }, label).bisection;
}

DagKaryBisection dag_first_bad_k(const std::vector<DagNode>& nodes, std::size_t k, const DagBatchOracle& oracle,
                                 const PointLabel& label) {
  DagKaryBisection out;
  DagBisection& result = out.bisection;
  if (nodes.empty()) {
    result.note = "nothing to bisect: the range is empty";
    return out;
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
  k = std::max<std::size_t>(k, 1);

  std::vector<char> bad(nodes.size(), 0);         // bad (or intermediate) commits, the tip assumed
  bad.back() = 1;
  std::vector<char> known_good(nodes.size(), 0);  // good commits and all their ancestors
  std::map<std::size_t, Verdict> asked;
  std::vector<std::string> notes;
  // The candidates: ancestors of every bad commit (the tip's to start) that are not ancestors of a good one.
  std::vector<char> candidate(nodes.size(), 0);
  mark_ancestors(nodes, nodes.size() - 1, candidate);
  std::size_t total = 0;

  // Invariant: every candidate (ancestor of every bad commit, not of a good one) may be the first bad;
  // with one question a round the bad commits form a line and the lowest of them is a candidate.
  while (true) {
    total = static_cast<std::size_t>(std::count(candidate.begin(), candidate.end(), 1));
    if (total <= 1) {
      break;
    }
    const std::vector<std::size_t> reach = reach_counts(nodes, candidate);
    const std::vector<Probe> probes =
        k == 1 ? serial_probe(nodes, candidate, reach, total, bad, asked, label)
               : round_probes(nodes, candidate, reach, total, k, out.rounds + 1, bad, asked, label);
    if (probes.empty()) {
      break;  // every candidate but the bad ones is untestable: boxed in
    }
    ++out.rounds;
    std::vector<std::size_t> batch;
    for (const Probe& probe : probes) {
      batch.push_back(probe.node);
    }
    const std::vector<Verdict> verdicts = oracle(batch);
    // Every verdict of the round applies, in the order asked; a missing one is a skip.
    for (std::size_t i = 0; i < probes.size(); ++i) {
      const std::size_t node = probes[i].node;
      const Verdict verdict = i < verdicts.size() ? verdicts[i] : Verdict::skip;
      asked.emplace(node, verdict);
      result.steps.push_back(DagStep{node, verdict, probes[i].why});
      ++result.evaluations;
      if (verdict == Verdict::good) {
        mark_ancestors(nodes, node, known_good);
        for (std::size_t other = 0; other < nodes.size(); ++other) {
          candidate[other] = candidate[other] != 0 && known_good[other] == 0 ? 1 : 0;
        }
      } else if (verdict == Verdict::bad || verdict == Verdict::intermediate) {
        if (verdict == Verdict::intermediate) {
          notes.push_back("intermediate at " + point_label(label, node) + ": treated as bad, a partial effect");
        }
        bad[node] = 1;
        keep_ancestors(nodes, node, candidate);
      } else {
        notes.push_back(std::string(verdict == Verdict::skip ? "skip" : "unstable") + " at " + point_label(label, node) +
                        ": untestable");
      }
    }
  }
  // At this point no question is left to ask: one candidate, none, or only untestable ones besides the bad.

  // The lowest known bad commits (bad, no bad ancestor): a bad candidate is the only one, as always with
  // one question a round; bad commits on two lines can leave several, none of them a candidate.
  std::vector<std::size_t> lowest_bad;
  std::vector<char> bad_above(nodes.size(), 0);  // a proper ancestor is bad; parents come first
  for (std::size_t node = 0; node < nodes.size(); ++node) {
    for (std::size_t parent : nodes[node].parents) {
      bad_above[node] = bad_above[node] != 0 || bad_above[parent] != 0 || bad[parent] != 0 ? 1 : 0;
    }
    if (bad[node] != 0 && bad_above[node] == 0) {
      lowest_bad.push_back(node);
    }
  }
  result.first_bad = lowest_bad.front();
  const auto sole = static_cast<std::size_t>(std::find(candidate.begin(), candidate.end(), 1) - candidate.begin());
  if (total == 1 && (bad[sole] != 0 || asked.count(sole) == 0)) {
    result.found = true;
    result.first_bad = sole;
    if (bad[sole] == 0) {
      // Bad commits on different lines share this one candidate ancestor: under one culprit it is the first bad.
      notes.insert(notes.begin(), point_label(label, sole) + " inferred, not asked: the only candidate ancestor of the bad commits " +
                                      list_nodes(label, lowest_bad));
    }
  } else if (total == 0) {
    result.could_be = lowest_bad;
    notes.insert(notes.begin(), "contradictory verdicts: no commit is an ancestor of every bad one and of no good one; "
                                "the lowest bad ones are " + list_nodes(label, lowest_bad));
  } else {
    // Boxed in: the untestable candidates, and the lowest bad commits git would list with them.
    for (std::size_t node = 0; node < nodes.size(); ++node) {
      if (candidate[node] != 0 || std::find(lowest_bad.begin(), lowest_bad.end(), node) != lowest_bad.end()) {
        result.could_be.push_back(node);
      }
    }
    notes.insert(notes.begin(), "boxed in by untestable commits: the first bad could be any of " +
                                    list_nodes(label, result.could_be));
  }
  for (const std::string& note : notes) {
    result.note += (result.note.empty() ? "" : "; ") + note;
  }
  return out;
}

}  // namespace envbisect
