#include "sim/check/local_shadow.h"

#include <immintrin.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace npusim::sim {

namespace {
constexpr uint32_t kNever = std::numeric_limits<uint32_t>::max();  // clock entry no epoch exceeds
}  // namespace

LocalShadow::LocalShadow(const std::vector<int>& core_of_agent) : core_of_agent_(core_of_agent) {
  int cores = 0;
  for (int c : core_of_agent) {
    if (c < 0) throw std::invalid_argument("race checker: negative core index " + std::to_string(c));
    cores = std::max(cores, c + 1);
  }
  agent_of_slot_.assign(static_cast<size_t>(cores), {});
  std::vector<uint8_t>& used = slots_used_;
  used.assign(static_cast<size_t>(cores), 0);
  slot_of_agent_.resize(core_of_agent.size());
  for (size_t a = 0; a < core_of_agent.size(); ++a) {
    const auto core = static_cast<size_t>(core_of_agent[a]);
    if (used[core] == kMaxSlots)
      throw std::invalid_argument("race checker: core " + std::to_string(core) + " has more than " +
                                  std::to_string(kMaxSlots) + " agents");
    slot_of_agent_[a] = used[core];
    agent_of_slot_[core][used[core]++] = static_cast<AgentId>(a);
  }
  shadows_.resize(static_cast<size_t>(cores) * isa::kNumBufs);
}

void LocalShadow::begin(AgentId a, uint32_t epoch, const VectorClock& clock) {
  core_ = core_of_agent_[a];
  own_slot_ = slot_of_agent_[a];
  epoch_ = epoch;
  touched_buf_ = isa::Buf::GM;  // nothing yet
  const auto core = static_cast<size_t>(core_);
  for (uint32_t s = 0; s < kMaxSlots; ++s)
    clk_[s] = (s != own_slot_ && s < slots_used_[core]) ? clock[agent_of_slot_[core][s]] : kNever;
}

void LocalShadow::reset() {
  for (auto& shadow : shadows_) shadow.clear();
}

// Granules [first, last) of the access conflict with (slot, epoch): the bytes of r in them. Summed over the
// runs this is exactly what reporting granule by granule would give (RaceHits merges per instruction).
void LocalShadow::report(RaceKind kind, uint32_t slot, uint32_t epoch, uint64_t first, uint64_t last,
                         const AccessRange& r, uint64_t g, RaceHits& hits) const {
  const uint64_t lo = std::max(r.begin, first * g), hi = std::min(r.end, last * g);
  hits.add(kind, r.buf, agent_of_slot_[static_cast<size_t>(core_)][slot], epoch, false, 0, lo, hi);
}

uint64_t LocalShadow::access(const AccessRange& r, RaceHits& hits) {
  if (r.end <= r.begin) return 0;
  if (r.end > kMaxBufferBytes)
    throw std::out_of_range("race checker: " + std::string(isa::buf_name(r.buf)) + " range ends at byte " +
                            std::to_string(r.end) + ", beyond any local buffer");
  const uint64_t g = granule(r.buf), first = first_granule(r), last = end_granule(r);
  RunShadow& shadow = shadows_[static_cast<size_t>(core_) * isa::kNumBufs + static_cast<size_t>(r.buf)];
  shadow.grow(last);
  RunShadow::Merge merge{false, false};
  if (touched_buf_ == r.buf) {
    merge.before = first > touched_first_ && first <= touched_last_;
    merge.after = last >= touched_first_ && last < touched_last_;
    touched_first_ = std::min(touched_first_, first);
    touched_last_ = std::max(touched_last_, last);
  } else {
    touched_buf_ = r.buf;
    touched_first_ = first;
    touched_last_ = last;
  }
  const uint32_t* clk = clk_;
  if (!r.write) {
    // A read races with the last write unless that write's epoch is within the reader's clock.
    shadow.read(first, last, own_slot_, epoch_, merge, [&](const GranuleState& st, uint64_t lo, uint64_t hi) {
      if (st.w_epoch > clk[st.w_slot]) [[unlikely]]
        report(RaceKind::RAW, st.w_slot, st.w_epoch, lo, hi, r, g, hits);
    });
    return last - first;
  }
  // A write races with the last write and with every read since it that the writer's clock does not
  // cover; afterwards those reads are forgotten (any later access ordered after this write is ordered
  // after them, and one that is not races with this write itself).
  static_assert(kMaxSlots == 8, "one AVX2 vector holds the read epochs of a state");
  const __m256i clk_v = _mm256_load_si256(reinterpret_cast<const __m256i*>(clk_));
  GranuleState mine{};
  mine.w_epoch = epoch_;
  mine.w_slot = own_slot_;
  shadow.write(first, last, mine, merge, [&](const GranuleState& st, uint64_t lo, uint64_t hi) {
    // read[s] > clk[s] (unsigned) <=> max(read[s], clk[s]) != clk[s]; bit s of `war` set per racing slot.
    const __m256i reads = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(st.read));
    const __m256i covered = _mm256_cmpeq_epi32(_mm256_max_epu32(reads, clk_v), clk_v);
    const auto war = static_cast<uint32_t>(~_mm256_movemask_ps(_mm256_castsi256_ps(covered)) & 0xFF);
    const bool waw = st.w_epoch > clk[st.w_slot];
    if ((war != 0) | waw) [[unlikely]] {
      if (waw) report(RaceKind::WAW, st.w_slot, st.w_epoch, lo, hi, r, g, hits);
      for (uint32_t s = 0; s < kMaxSlots; ++s)
        if (war & (1u << s)) report(RaceKind::WAR, s, st.read[s], lo, hi, r, g, hits);
    }
  });
  return last - first;
}

}  // namespace npusim::sim
