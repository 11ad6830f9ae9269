#include "tools/cli/tuner.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>

#include "kernels/host/case_file.h"
#include "tools/cli/case_run.h"
#include "tools/cli/options.h"
#include "tools/cli/sweep_runner.h"

namespace npusim::cli {

namespace fs = std::filesystem;

namespace {
constexpr size_t kRefusalsListed = 8;
constexpr int kPlanWalk = 16;  // legal values a step may skip over because the op refuses them for this case

std::string assignment_text(const Assignment& a) {
  std::string t;
  for (const auto& [k, v] : a) t += (t.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  return t.empty() ? "the default tiling" : t;
}

// Tuned keys in the order their default rules depend on each other (a key before those that follow it); keys in a
// cycle of `follows` (the two L0 keys) come last, in declaration order.
std::vector<const op::TilingKey*> dependency_order(const op::TilingSpace& space, const std::set<std::string>& held) {
  std::vector<const op::TilingKey*> order, left;
  for (const auto& k : space.keys())
    if (!held.count(k.name)) left.push_back(&k);
  std::set<std::string> placed = held;
  for (bool moved = true; moved;) {
    moved = false;
    for (auto it = left.begin(); it != left.end(); ++it) {
      const auto& f = (*it)->follows;
      if (std::all_of(f.begin(), f.end(), [&](const std::string& n) { return placed.count(n) > 0; })) {
        placed.insert((*it)->name), order.push_back(*it), left.erase(it), moved = true;
        break;
      }
    }
  }
  order.insert(order.end(), left.begin(), left.end());
  return order;
}

class Search {
 public:
  Search(const TuneSetup& s, const op::Op& the_op, const sim::HwConfig& hw) : s_(s) {
    for (const auto& f : s.fixed)
      if (f.rfind("tiling.", 0) == 0) held_.insert(f.substr(7, f.find('=') - 7));
    keys_ = dependency_order(the_op.tiling_space(), held_);
    for (const auto* k : keys_) legal_[k->name] = k->enumerate(hw, size_t(1) << 20);
  }

  TuneOutcome run() {
    start_from_default();
    for (;;) {
      ++o_.rounds;
      bool improved = false;
      for (const auto* k : keys_) improved |= line_search(*k);
      if (spent()) break;
      if (improved) continue;
      ++o_.pair_rounds;
      if (!pair_round()) {
        o_.converged = !spent();
        break;
      }
    }
    o_.best = best_;
    return o_;
  }

 private:
  struct Candidate {
    Assignment pins, tiling;
    const nlohmann::json* result = nullptr;
  };
  struct Probe {
    Assignment pins;
    std::set<std::string> moved;
  };

  bool spent() const { return o_.runs.size() + 1 >= size_t(s_.budget); }
  double objective(const nlohmann::json& r) const { return r.value(s_.spec.objective, 0.0); }
  bool ok(const nlohmann::json& r) const { return r.value("status", "") == "ok"; }
  bool better(const nlohmann::json& a, const nlohmann::json& b) const {
    if (!ok(a)) return false;
    if (!ok(b)) return true;
    return maximised(s_.spec.objective) ? objective(a) > objective(b) : objective(a) < objective(b);
  }

  // The op's resolved tiling for the pinned keys (the case's tiling: and the user's held keys stay), or nullopt
  // when the op refuses it; planned in process, as `npusim run --plan-only`.
  std::optional<Assignment> plan(const Assignment& pins) {
    if (const auto it = plans_.find(pins); it != plans_.end()) return it->second;
    ++o_.plans;
    SimOptions given;
    given.hw = s_.spec.hw, given.mode = "timing", given.checks = "off", given.sets = s_.fixed;
    std::vector<std::string> case_sets;
    const SimOptions so = split_sets(given, case_sets);
    for (const auto& [k, v] : pins) case_sets.push_back("tiling." + k + "=" + std::to_string(v));
    std::optional<Assignment> t;
    try {
      const CaseRun rr = run_loaded_case(op::load_case(s_.spec.case_path, case_sets, false), so,
                                         {.write_files = false, .print_faults = false, .plan_only = true});
      t.emplace();
      for (const auto& [k, v] : rr.tiling)
        if (!held_.count(k)) (*t)[k] = v;
    } catch (const std::exception& e) {  // the op's CaseError (a rule the tiling breaks), a config error
      ++o_.refused;
      if (o_.refusals.size() < kRefusalsListed) o_.refusals.push_back(assignment_text(pins) + ": " + e.what());
    }
    return plans_[pins] = t;
  }

  // The keys whose default rules read any of `moved`, directly or through another such key.
  std::set<std::string> followers(const std::set<std::string>& moved) const {
    std::set<std::string> f;
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto* k : keys_)
        if (!f.count(k->name) && !moved.count(k->name) &&
            std::any_of(k->follows.begin(), k->follows.end(),
                        [&](const auto& n) { return moved.count(n) || f.count(n); }))
          f.insert(k->name), grew = true;
    }
    return f;
  }

  nlohmann::json point_of(const Assignment& tiling) const {
    nlohmann::json p = nlohmann::json::object();
    for (const auto& [k, v] : tiling) p["tiling." + k] = v;
    return p;
  }

  void start_from_default() {
    const auto t = plan({});
    const std::string dir = (fs::path(s_.out) / "default").string();
    const nlohmann::json def =
        run_local({{nlohmann::json::object(), dir, run_args(s_.spec, {}, dir, s_.fixed), true}}, 1, s_.out)[0];
    if (!t || def["status"] != "ok")
      throw InputError("the case does not run with its default tiling (" + def.value("status", std::string("refused")) +
                       "): " + def.value("message", o_.refusals.empty() ? std::string() : o_.refusals[0]));
    cur_ = *t;
    best_ = o_.def = def;
    best_["point"] = point_of(cur_);
    results_[cur_] = best_;
  }

  // The pins and the resolved tiling of a probe: as pinned, or, when the op refuses that, with the keys that follow
  // the moved ones left to their default rules; nullopt when the op refuses both.
  std::optional<std::pair<Assignment, Assignment>> resolve(Assignment pins, const std::set<std::string>& moved) {
    if (const auto t = plan(pins)) return std::make_pair(pins, *t);
    const size_t n = pins.size();
    for (const auto& f : followers(moved)) pins.erase(f);
    if (pins.size() == n) return std::nullopt;
    if (const auto t = plan(pins)) return std::make_pair(pins, *t);
    return std::nullopt;
  }

  // Resolves each probe, runs the tilings not run before within the budget, and returns the candidates that have
  // a result (the current point excluded).
  std::vector<Candidate> evaluate(const std::vector<Probe>& probes) {
    std::vector<Candidate> cands;
    for (const auto& pr : probes)
      if (const auto r = resolve(pr.pins, pr.moved); r && r->second != cur_) cands.push_back({r->first, r->second});
    std::vector<Task> tasks;
    std::vector<Assignment> queued;
    for (const auto& c : cands) {
      if (results_.count(c.tiling) || std::count(queued.begin(), queued.end(), c.tiling)) continue;
      if (o_.runs.size() + tasks.size() + 1 >= size_t(s_.budget)) break;
      SweepPoint sp;
      for (const auto& [k, v] : c.tiling) sp.emplace_back("tiling." + k, std::to_string(v));
      const std::string dir = (fs::path(s_.out) / "points" / std::to_string(o_.runs.size() + tasks.size())).string();
      tasks.push_back({point_of(c.tiling), dir, run_args(s_.spec, sp, dir, s_.fixed)});
      queued.push_back(c.tiling);
    }
    const auto rs = run_local(tasks, s_.jobs, s_.out);
    for (size_t i = 0; i < rs.size(); ++i) results_[queued[i]] = rs[i], o_.runs.push_back(rs[i]);
    std::vector<Candidate> done;
    for (auto& c : cands)
      if (const auto it = results_.find(c.tiling); it != results_.end()) c.result = &it->second, done.push_back(c);
    return done;
  }

  // Moves to the best candidate when it beats the current point; notes how close the key's best move came (the
  // smallest |log(objective ratio)| of its moves).
  bool take_best(const std::vector<Candidate>& cands, const std::set<std::string>& keys) {
    const Candidate* top = nullptr;
    for (const auto& c : cands) {
      if (!ok(*c.result)) continue;
      if (!top || better(*c.result, *top->result)) top = &c;
      const double r = std::abs(std::log(std::max(objective(*c.result) / std::max(1e-300, objective(best_)), 1e-300)));
      for (const auto& k : keys) nearest_miss_[k] = nearest_miss_.count(k) ? std::min(nearest_miss_[k], r) : r;
    }
    if (!top || !better(*top->result, best_)) return false;
    pins_ = top->pins, cur_ = top->tiling, best_ = *top->result;
    return true;
  }

  // The next legal value of `k` in direction `dir` that the op accepts and that changes the tiling (skipping
  // values it refuses for this case with the other keys as they are), or nullopt at the end of the range.
  std::optional<int64_t> step(const op::TilingKey& k, int dir) {
    const auto& legal = legal_[k.name];
    const int64_t c = cur_[k.name];
    const auto at = std::lower_bound(legal.begin(), legal.end(), c);
    int64_t i = int64_t(at - legal.begin());
    if ((at == legal.end() || *at != c) && dir > 0) --i;  // between two legal values: the next one up is *at
    for (int n = 0; n < kPlanWalk; ++n) {
      i += dir;
      if (i < 0 || i >= int64_t(legal.size())) return std::nullopt;
      Assignment p = pins_;
      p[k.name] = legal[size_t(i)];
      if (const auto r = resolve(p, {k.name}); r && r->second != cur_) return legal[size_t(i)];
    }
    return std::nullopt;
  }

  std::optional<int64_t> scaled(const op::TilingKey& k, double f) const {
    const auto& legal = legal_.at(k.name);
    const double want = double(cur_.at(k.name)) * f;
    const auto at = std::lower_bound(legal.begin(), legal.end(), int64_t(std::llround(want)));
    if (at == legal.end()) return legal.back();
    if (at == legal.begin()) return *at;
    return (double(*at) - want < want - double(*(at - 1))) ? *at : *(at - 1);
  }

  // The moves of one key from the current point: every legal value when there are at most four, else one step
  // either side, half and double.
  std::vector<int64_t> moves(const op::TilingKey& k) {
    const auto& legal = legal_[k.name];
    std::vector<int64_t> v;
    if (legal.size() <= 4) {
      v = legal;
    } else {
      for (const auto m : {step(k, -1), step(k, +1), scaled(k, 0.5), scaled(k, 2.0)})
        if (m && std::find(v.begin(), v.end(), *m) == v.end()) v.push_back(*m);
    }
    v.erase(std::remove(v.begin(), v.end(), cur_[k.name]), v.end());
    return v;
  }

  // Pattern search on one key: from wherever a move improves, the moves are tried again.
  bool line_search(const op::TilingKey& k) {
    bool improved = false;
    while (!spent() && cur_.count(k.name)) {
      std::vector<Probe> probes;
      for (const int64_t v : moves(k)) {
        Probe p{pins_, {k.name}};
        p.pins[k.name] = v;
        probes.push_back(p);
      }
      if (!take_best(evaluate(probes), {k.name})) break;
      improved = true;
    }
    return improved;
  }

  // Pairs of keys move together: first the pairs that constrain each other (one follows the other: a longer
  // s1_block needs a shorter s2_block to fit), then the others, those whose moves changed the objective least
  // first (a key whose every move costs a lot, such as block_dim, is least likely to gain in a pair). The first
  // pair that improves ends the round (a new coordinate round starts from there).
  bool pair_round() {
    const auto coupled = [](const op::TilingKey* a, const op::TilingKey* b) {
      const auto has = [](const op::TilingKey* k, const std::string& n) {
        return std::find(k->follows.begin(), k->follows.end(), n) != k->follows.end();
      };
      return has(a, b->name) || has(b, a->name);
    };
    std::vector<std::pair<double, std::pair<const op::TilingKey*, const op::TilingKey*>>> pairs;
    for (size_t i = 0; i < keys_.size(); ++i)
      for (size_t j = i + 1; j < keys_.size(); ++j) {
        const auto *a = keys_[i], *b = keys_[j];
        if (!cur_.count(a->name) || !cur_.count(b->name)) continue;
        const auto miss = [&](const std::string& k) {
          const auto it = nearest_miss_.find(k);
          return it == nearest_miss_.end() ? 1e9 : it->second;  // never ran a move: last
        };
        const double cost = miss(a->name) + miss(b->name);
        pairs.push_back({coupled(a, b) ? -1.0 : cost, {a, b}});
      }
    std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [score, pair] : pairs) {
      if (spent()) return false;
      const auto& [a, b] = pair;
      std::vector<Probe> probes;
      for (const int64_t va : moves(*a))
        for (const int64_t vb : moves(*b)) {
          Probe p{pins_, {a->name, b->name}};
          p.pins[a->name] = va, p.pins[b->name] = vb;
          probes.push_back(p);
        }
      if (take_best(evaluate(probes), {a->name, b->name})) return true;
    }
    return false;
  }

  const TuneSetup& s_;
  std::set<std::string> held_;
  std::vector<const op::TilingKey*> keys_;
  std::map<std::string, std::vector<int64_t>> legal_;
  std::map<Assignment, std::optional<Assignment>> plans_;  // pins -> resolved tiling (nullopt: refused)
  std::map<Assignment, nlohmann::json> results_;           // resolved tiling -> its run
  std::map<std::string, double> nearest_miss_;             // key -> smallest |log(objective ratio)| of its moves
  Assignment pins_, cur_;                                  // the keys the search set; the current resolved tiling
  nlohmann::json best_;
  TuneOutcome o_;
};
}  // namespace

TuneOutcome tune(const TuneSetup& s, const op::Op& the_op, const sim::HwConfig& hw) {
  return Search(s, the_op, hw).run();
}

}  // namespace npusim::cli
