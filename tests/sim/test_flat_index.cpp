// sim/flat_index.h against std::map: random inserts, finds and erases (backward-shift deletion) while the
// table grows from its smallest size, with keys that share home slots.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "sim/flat_index.h"

namespace npusim::sim {
namespace {

TEST(FlatIndex, AgreesWithAMapThroughGrowthAndErasure) {
  std::mt19937_64 rng(17);
  FlatIndex index;
  std::map<uint64_t, uint32_t> ref;
  for (int step = 0; step < 200000; ++step) {
    const uint64_t key = rng() % 3 ? rng() % 5000 : rng();  // mostly a small key set: many erases and re-inserts
    const auto it = ref.find(key);
    ASSERT_EQ(index.find(key), it == ref.end() ? FlatIndex::kNone : it->second) << "step " << step;
    if (it == ref.end()) {
      const auto value = uint32_t(rng() % 1000000);
      index.insert(key, value);
      ref.emplace(key, value);
    } else if (rng() % 2) {
      index.erase(key);
      ref.erase(it);
    }
  }
  for (const auto& [key, value] : ref) ASSERT_EQ(index.find(key), value);
  index.clear();
  for (const auto& [key, value] : ref) ASSERT_EQ(index.find(key), FlatIndex::kNone);
}

}  // namespace
}  // namespace npusim::sim
