#include "sim/check/local_shadow.h"

#include <immintrin.h>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace npusim::sim {

namespace {
// Shadow granule per buffer: the smallest unit any instruction accesses there, so checking per granule is
// as exact as per byte. L0A / L0B are only touched in whole 512-byte fractals (load2d, mmad), L0C in
// 64-byte rows of 16 accumulators (mmad fractals, FixPipe rows); everything else in 32-byte blocks.
uint64_t granule(isa::Buf b) {
  switch (b) {
    case isa::Buf::L0A: case isa::Buf::L0B: return isa::kFractalBytes;
    case isa::Buf::L0C: return 64;
    default: return isa::kBlockBytes;
  }
}
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
  const auto core = static_cast<size_t>(core_);
  for (uint32_t s = 0; s < kMaxSlots; ++s)
    clk_[s] = (s != own_slot_ && s < slots_used_[core]) ? clock[agent_of_slot_[core][s]] : kNever;
}

LocalShadow::Block* LocalShadow::blocks(isa::Buf buf, uint64_t end_block) {
  auto& shadow = shadows_[static_cast<size_t>(core_) * isa::kNumBufs + static_cast<size_t>(buf)];
  if (shadow.size() < end_block) shadow.resize(end_block);  // libstdc++ grows capacity geometrically
  return shadow.data();
}

void LocalShadow::reset() {
  for (auto& shadow : shadows_) shadow.clear();  // keeps capacity: the next launch zero-fills on growth
}

void LocalShadow::report(RaceKind kind, isa::Buf buf, uint32_t slot, uint32_t epoch, uint64_t block,
                         const AccessRange& r, RaceHits& hits) const {
  const uint64_t g = granule(buf);
  const uint64_t lo = std::max(r.begin, block * g);
  const uint64_t hi = std::min(r.end, (block + 1) * g);
  hits.add(kind, buf, agent_of_slot_[static_cast<size_t>(core_)][slot], epoch, false, 0, lo, hi);
}

// A read races with the last write unless that write's epoch is within the reader's clock.
void LocalShadow::read_blocks(Block* b, uint64_t first, uint64_t last, const AccessRange& r, RaceHits& hits) {
  const uint32_t own = own_slot_, epoch = epoch_;
  uint32_t clk[kMaxSlots];  // local copy: stores to the shadow cannot alias it, so it stays in registers/L1
  std::copy(clk_, clk_ + kMaxSlots, clk);
  for (uint64_t i = first; i < last; ++i) {
    Block& k = b[i];
    if (k.w_epoch > clk[k.w_slot]) [[unlikely]]
      report(RaceKind::RAW, r.buf, k.w_slot, k.w_epoch, i, r, hits);
    k.read[own] = epoch;
  }
}

// A write races with the last write and with every read since it that the writer's clock does not cover;
// afterwards those reads are forgotten (any later access ordered after this write is ordered after them,
// and one that is not races with this write itself).
void LocalShadow::write_blocks(Block* b, uint64_t first, uint64_t last, const AccessRange& r, RaceHits& hits) {
  static_assert(kMaxSlots == 8, "one AVX2 vector holds the read epochs of a block");
  const uint32_t own = own_slot_, epoch = epoch_;
  uint32_t clk_copy[kMaxSlots];
  std::copy(clk_, clk_ + kMaxSlots, clk_copy);
  const __m256i clk = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(clk_copy));
  for (uint64_t i = first; i < last; ++i) {
    Block& k = b[i];
    // read[s] > clk[s] (unsigned) <=> max(read[s], clk[s]) != clk[s]; bit s of `war` set per racing slot.
    const __m256i reads = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k.read));
    const __m256i covered = _mm256_cmpeq_epi32(_mm256_max_epu32(reads, clk), clk);
    const auto war = static_cast<uint32_t>(~_mm256_movemask_ps(_mm256_castsi256_ps(covered)) & 0xFF);
    const bool waw = k.w_epoch > clk_copy[k.w_slot];
    if ((war != 0) | waw) [[unlikely]] {
      if (waw) report(RaceKind::WAW, r.buf, k.w_slot, k.w_epoch, i, r, hits);
      for (uint32_t s = 0; s < kMaxSlots; ++s)
        if (war & (1u << s)) report(RaceKind::WAR, r.buf, s, k.read[s], i, r, hits);
    }
    k = Block{};
    k.w_epoch = epoch;
    k.w_slot = own;
  }
}

uint64_t LocalShadow::access(const AccessRange& r, RaceHits& hits) {
  if (r.end <= r.begin) return 0;
  if (r.end > kMaxBufferBytes)
    throw std::out_of_range("race checker: " + std::string(isa::buf_name(r.buf)) + " range ends at byte " +
                            std::to_string(r.end) + ", beyond any local buffer");
  const uint64_t g = granule(r.buf);
  const uint64_t first = r.begin / g, last = (r.end + g - 1) / g;
  Block* b = blocks(r.buf, last);
  if (r.write)
    write_blocks(b, first, last, r, hits);
  else
    read_blocks(b, first, last, r, hits);
  return last - first;
}

}  // namespace npusim::sim
