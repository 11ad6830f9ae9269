#include "sim/check/local_shadow.h"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

namespace npusim::sim {

namespace {
constexpr uint32_t kNever = std::numeric_limits<uint32_t>::max();  // clock entry no epoch exceeds

// Bit s: slot s's newest epoch on a page is not covered by the clock projection (epoch > clk, unsigned: where
// max(epoch, clk) differs from clk). One 8-lane compare; it runs for every page an access touches.
uint32_t unordered_slots(const std::array<uint32_t, LocalShadow::kMaxSlots>& epochs, const uint32_t* clk) {
  static_assert(LocalShadow::kMaxSlots == 8);
  const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(epochs.data()));
  const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(clk));
  const __m256i covered = _mm256_cmpeq_epi32(_mm256_max_epu32(e, c), c);
  return ~uint32_t(_mm256_movemask_ps(_mm256_castsi256_ps(covered))) & 0xffu;
}

constexpr unsigned page_granule_shift(isa::Buf b) { return LocalShadow::kPageShift - LocalShadow::granule_shift(b); }

// Short fills (a segment is ~30 granules): whole 8-lane stores and one masked store for the tail, instead of
// std::fill's alignment prologue and epilogue. (AVX2 is the build's baseline, x86-64-v3.)
void fill32(std::vector<uint32_t>& v, uint64_t lo, uint64_t hi, uint32_t x) {
  uint32_t* p = v.data() + lo;
  size_t n = hi - lo;
  const __m256i val = _mm256_set1_epi32(static_cast<int>(x));
  for (; n >= 8; n -= 8, p += 8) _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), val);
  if (n == 0) return;
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), lane);
  _mm256_maskstore_epi32(reinterpret_cast<int*>(p), mask, val);
}
}  // namespace

LocalShadow::LocalShadow(const std::vector<int>& core_of_agent, std::vector<uint8_t> hazards)
    : hazards_(std::move(hazards)), core_of_agent_(core_of_agent) {
  hazards_.resize(core_of_agent.size(), 0);
  int cores = 0;
  for (int c : core_of_agent) {
    if (c < 0) throw std::invalid_argument("race checker: negative core index " + std::to_string(c));
    cores = std::max(cores, c + 1);
  }
  agent_of_slot_.assign(static_cast<size_t>(cores), {});
  slots_used_.assign(static_cast<size_t>(cores), 0);
  slot_of_agent_.resize(core_of_agent.size());
  for (size_t a = 0; a < core_of_agent.size(); ++a) {
    const auto core = static_cast<size_t>(core_of_agent[a]);
    if (slots_used_[core] == kMaxSlots)
      throw std::invalid_argument("race checker: core " + std::to_string(core) + " has more than " +
                                  std::to_string(kMaxSlots) + " agents");
    slot_of_agent_[a] = slots_used_[core];
    agent_of_slot_[core][slots_used_[core]++] = static_cast<AgentId>(a);
  }
  shadows_.resize(static_cast<size_t>(cores) * isa::kNumBufs);
  for (auto& s : shadows_) s = std::make_unique<BufShadow>();
}

void LocalShadow::flush_touched() {
  for (const auto& [s, pi] : touched_reads_) s->pages[pi].last_read[touched_slot_] = touched_epoch_;
  for (const auto& [s, pi] : touched_writes_) s->pages[pi].last_write[touched_slot_] = touched_epoch_;
  touched_reads_.clear();
  touched_writes_.clear();
}

void LocalShadow::begin(AgentId a, uint32_t epoch, const VectorClock& clock, uint32_t done, uint32_t probe_lo,
                        uint32_t probe_hi) {
  flush_touched();
  core_ = core_of_agent_[a];
  own_slot_ = slot_of_agent_[a];
  epoch_ = epoch;
  touched_slot_ = own_slot_, touched_epoch_ = epoch;
  rule_ = hazards_[a];
  const auto core = static_cast<size_t>(core_);
  for (uint32_t s = 0; s < kMaxSlots; ++s)
    clk_raw_[s] = (s != own_slot_ && s < slots_used_[core]) ? clock[agent_of_slot_[core][s]] : kNever;
  std::memcpy(clk_waw_, clk_raw_, sizeof clk_raw_);
  std::memcpy(clk_war_, clk_raw_, sizeof clk_raw_);
  if (rule_ & kHazardRaw) clk_raw_[own_slot_] = done;
  if (rule_ & kHazardWaw) clk_waw_[own_slot_] = done;
  if (rule_ & kHazardWar) clk_war_[own_slot_] = done;
  probe_lo_ = probe_lo, probe_hi_ = rule_ ? probe_hi : 0;
  probe_used_ = probe_reread_ = false;
}

// Whether this access depends on an own epoch in (probe_lo_, probe_hi_], the instructions the pending barrier
// completed, in a way the rule needs a barrier for; then the barrier was needed and the probe stops.
void LocalShadow::probe_page(const BufShadow& s, const Page& p, const Seg* segs, size_t n, bool write) {
  auto in_probe = [&](uint32_t e) { return e > probe_lo_ && e <= probe_hi_; };
  const bool on_writes = write ? (rule_ & kHazardWaw) : (rule_ & kHazardRaw);
  const bool on_reads = write && (rule_ & kHazardWar);
  // (The page's newest own epochs may be later than the probe while older granules lie inside it.)
  if (!(on_writes && p.last_write[own_slot_] > probe_lo_) && !(on_reads && p.last_read[own_slot_] > probe_lo_)) return;
  for (size_t k = 0; k < n && !probe_used_; ++k)
    for (uint64_t g = segs[k].first; g < segs[k].last; ++g) {
      if ((on_writes && s.w_slot_at(p, g) == own_slot_ && in_probe(s.w_epoch_at(p, g))) ||
          (on_reads && in_probe(s.read_at(p, own_slot_, g)))) {
        probe_used_ = true;
        probe_hi_ = 0;
        return;
      }
    }
}

// A new launch: every granule back to "never accessed"; the arrays keep their capacity.
void LocalShadow::reset() {
  touched_reads_.clear();
  touched_writes_.clear();
  for (auto& s : shadows_) {
    s->granules = 0;
    s->w_epoch.clear();
    s->w_slot.clear();
    for (auto& r : s->read) r.clear();
    s->pages.clear();
  }
}

GranuleState LocalShadow::state(int core, isa::Buf buf, uint64_t g) const {
  const BufShadow& s = *shadows_[static_cast<size_t>(core) * isa::kNumBufs + static_cast<size_t>(buf)];
  GranuleState st;
  if (g >= s.granules) return st;
  const Page& p = s.pages[g >> page_granule_shift(buf)];
  st.w_epoch = s.w_epoch_at(p, g);
  st.w_slot = s.w_slot_at(p, g);
  for (uint32_t k = 0; k < kMaxSlots; ++k) st.read[k] = s.read_at(p, k, g);
  return st;
}

// Grows to whole pages, geometrically; new granules (and pages) are zero: never accessed.
void LocalShadow::grow(BufShadow& s, isa::Buf b, uint64_t granules) const {
  if (granules <= s.granules) return;
  const unsigned pg = page_granule_shift(b);
  uint64_t n = std::max(granules, 2 * s.granules);
  n = ((n >> pg) + 1) << pg;
  s.granules = n;
  s.w_epoch.resize(n);
  s.w_slot.resize(n);
  s.pages.resize(n >> pg);
}

// The bytes of access r in granule g conflict with (slot, epoch). RaceHits merges them per instruction.
void LocalShadow::report(RaceKind kind, uint32_t slot, uint32_t epoch, uint64_t g, const AccessRange& r,
                         RaceHits& hits) const {
  const unsigned sh = granule_shift(r.buf);
  const uint64_t lo = std::max(r.begin, g << sh), hi = std::min(r.end, (g + 1) << sh);
  hits.add(kind, r.buf, agent_of_slot_[static_cast<size_t>(core_)][slot], epoch, false, 0, lo, hi);
}

uint64_t LocalShadow::access(const AccessRange& r, RaceHits& hits) {
  if (r.end <= r.begin) return 0;
  if (r.last_end() > kMaxBufferBytes)
    throw std::out_of_range("race checker: " + std::string(isa::buf_name(r.buf)) + " range ends at byte " +
                            std::to_string(r.last_end()) + ", beyond any local buffer");
  BufShadow& s = shadow(r.buf);
  const unsigned sh = granule_shift(r.buf), pg = page_granule_shift(r.buf);
  grow(s, r.buf, (r.last_end() + granule(r.buf) - 1) >> sh);
  uint64_t granules = 0;
  // Segments are gathered per page (a segment crossing pages is split at their boundaries) and handed over
  // a page at a time, in address order.
  constexpr size_t kBatch = 64;
  Seg batch[kBatch];
  size_t n = 0;
  uint64_t page = UINT64_MAX;
  auto flush = [&] {
    if (n == 0) return;
    if (r.write) write_page(s, r.buf, page, batch, n, hits);
    else read_page(s, r.buf, page, batch, n, hits);
    n = 0;
  };
  const uint64_t round_up = granule(r.buf) - 1;
  r.for_each_segment([&](uint64_t b, uint64_t e) {
    const uint64_t first = b >> sh, last = (e + round_up) >> sh;
    granules += last - first;
    const uint64_t p_first = first >> pg, p_last = (last - 1) >> pg;
    if (p_first == p_last) [[likely]] {  // inside one page
      if (p_first != page || n == kBatch) flush(), page = p_first;
      batch[n++] = Seg{b, e, first, last};
      return;
    }
    for (uint64_t pi = p_first; pi <= p_last; ++pi) {
      if (pi != page || n == kBatch) flush(), page = pi;
      batch[n++] = Seg{b, e, std::max(first, pi << pg), std::min(last, (pi + 1) << pg)};
    }
  });
  flush();
  return granules;
}

void LocalShadow::materialise_write(BufShadow& s, Page& p, uint64_t lo, uint64_t hi) {
  if (!p.u_w) return;
  std::fill(s.w_epoch.begin() + ptrdiff_t(lo), s.w_epoch.begin() + ptrdiff_t(hi), p.u_w_epoch);
  std::fill(s.w_slot.begin() + ptrdiff_t(lo), s.w_slot.begin() + ptrdiff_t(hi), p.u_w_slot);
  p.u_w = false;
}

void LocalShadow::materialise_read(BufShadow& s, Page& p, uint32_t slot, uint64_t lo, uint64_t hi) {
  if (!(p.u_r >> slot & 1)) return;
  auto& rd = s.read[slot];
  if (rd.size() < s.granules) rd.resize(s.granules);
  std::fill(rd.begin() + ptrdiff_t(lo), rd.begin() + ptrdiff_t(hi), p.u_read[slot]);
  p.u_r = uint8_t(p.u_r & ~(1u << slot));
}

void LocalShadow::check_reads_of(const BufShadow& s, const Page& p, const AccessRange& r, uint64_t lo, uint64_t hi,
                                 RaceHits& hits) const {
  for (uint64_t g = lo; g < hi; ++g) {
    const uint32_t we = s.w_epoch_at(p, g), ws = s.w_slot_at(p, g);
    if (conflicts(clk_raw_, ws, we)) [[unlikely]]  // (never-written granules have epoch 0)
      report(RaceKind::RAW, ws, we, g, r, hits);
  }
}

bool LocalShadow::own_pending(const BufShadow& s, const Page& p, uint64_t lo, uint64_t hi, uint32_t thr,
                              bool writes) const {
  const uint32_t cur = epoch_;
  if (writes) {
    if (p.u_w) return p.u_w_slot == own_slot_ && p.u_w_epoch > thr && p.u_w_epoch != cur;
    const uint32_t* e = s.w_epoch.data();
    const uint8_t* sl = s.w_slot.data();
    uint32_t any = 0;
    for (uint64_t g = lo; g < hi; ++g)
      any |= uint32_t(sl[g] == own_slot_) & uint32_t(e[g] > thr) & uint32_t(e[g] != cur);
    return any != 0;
  }
  if (p.u_r >> own_slot_ & 1) return p.u_read[own_slot_] > thr && p.u_read[own_slot_] != cur;
  const std::vector<uint32_t>& rd = s.read[own_slot_];
  const uint32_t* e = rd.data();
  uint32_t any = 0;
  for (uint64_t g = lo, end = std::min<uint64_t>(hi, rd.size()); g < end; ++g)
    any |= uint32_t(e[g] > thr) & uint32_t(e[g] != cur);
  return any != 0;
}

void LocalShadow::read_page(BufShadow& s, isa::Buf buf, uint64_t pi, const Seg* segs, size_t n, RaceHits& hits) {
  const unsigned pg = page_granule_shift(buf);
  Page& p = s.pages[pi];
  const uint64_t p0 = pi << pg, p1 = (pi + 1) << pg;
  if (probe_hi_) [[unlikely]]
    probe_page(s, p, segs, n, false);
  if (const uint32_t raw = unordered_slots(p.last_write, clk_raw_)) [[unlikely]] {  // some write here may race
    const bool own_only = raw == 1u << own_slot_;
    for (size_t k = 0; k < n; ++k)
      if (!own_only || own_pending(s, p, segs[k].first, segs[k].last, clk_raw_[own_slot_], true))
        check_reads_of(s, p, AccessRange{buf, segs[k].begin, segs[k].end, false}, segs[k].first, segs[k].last, hits);
  }
  p.read_slots |= uint8_t(1u << own_slot_);
  if (!(rule_ & kHazardWar)) {  // own reads matter to no same-pipe check: the entry may enter the summary at once
    p.last_read[own_slot_] = epoch_;
  } else {
    touched_reads_.emplace_back(&s, pi);
    if (probe_hi_ && (rule_ & kHazardWar) && p.last_read[own_slot_] > probe_lo_) [[unlikely]]
      probe_reread_ = true;
  }
  // An own read that has not landed where WAR is a hazard of this pipe: keep it where this read would replace it,
  // so a later own write (this instruction's own, in place) still meets it. (No other agent can be ordered after
  // a pending own epoch -- that takes a release, which completes it -- so the other slots see the same.)
  const uint32_t war_thr = clk_war_[own_slot_];
  const bool keep_pending = war_thr != kNever && p.last_read[own_slot_] > war_thr;
  if (!keep_pending && n == 1 && segs[0].first == p0 && segs[0].last == p1) {  // the whole page
    p.u_r |= uint8_t(1u << own_slot_);
    p.u_read[own_slot_] = epoch_;
    return;
  }
  auto& rd = s.read[own_slot_];
  if (rd.size() < s.granules) rd.resize(s.granules);
  materialise_read(s, p, own_slot_, p0, p1);
  for (size_t k = 0; k < n; ++k) {
    if (!keep_pending) {
      fill32(rd, segs[k].first, segs[k].last, epoch_);
      continue;
    }
    for (uint64_t g = segs[k].first; g < segs[k].last; ++g)
      if (rd[g] <= war_thr || rd[g] == epoch_) rd[g] = epoch_;
  }
}

void LocalShadow::check_writes_of(const BufShadow& s, const Page& p, const AccessRange& r, uint64_t lo, uint64_t hi,
                                  bool waw, uint32_t war, RaceHits& hits) const {
  for (uint64_t g = lo; g < hi; ++g) {
    const uint32_t we = s.w_epoch_at(p, g), ws = s.w_slot_at(p, g);
    if (waw && conflicts(clk_waw_, ws, we)) report(RaceKind::WAW, ws, we, g, r, hits);
    for (uint32_t slot = 0; slot < kMaxSlots; ++slot) {
      if (!(war >> slot & 1)) continue;
      const uint32_t re = s.read_at(p, slot, g);
      if (conflicts(clk_war_, slot, re)) report(RaceKind::WAR, slot, re, g, r, hits);
    }
  }
}

void LocalShadow::write_page(BufShadow& s, isa::Buf buf, uint64_t pi, const Seg* segs, size_t n, RaceHits& hits) {
  const unsigned pg = page_granule_shift(buf);
  Page& p = s.pages[pi];
  const uint64_t p0 = pi << pg, p1 = (pi + 1) << pg;
  // (This instruction's own records may flag the page; the granule checks pass over them.)
  if (probe_hi_) [[unlikely]] {
    if (probe_reread_) probe_used_ = true, probe_hi_ = 0;
    else probe_page(s, p, segs, n, true);
  }
  const uint32_t waw_slots = unordered_slots(p.last_write, clk_waw_);
  const bool waw = waw_slots != 0;
  const uint32_t war = unordered_slots(p.last_read, clk_war_) & p.read_slots;
  const bool own_only = ((waw_slots | war) & ~(1u << own_slot_)) == 0;  // then a scan decides per segment
  auto needs_check = [&](const Seg& g) {
    return !own_only || (waw && own_pending(s, p, g.first, g.last, clk_waw_[own_slot_], true)) ||
           (war && own_pending(s, p, g.first, g.last, clk_war_[own_slot_], false));
  };
  if (!(rule_ & (kHazardRaw | kHazardWaw))) p.last_write[own_slot_] = epoch_;  // (as for reads)
  else touched_writes_.emplace_back(&s, pi);
  if (n == 1 && segs[0].first == p0 && segs[0].last == p1) {  // the whole page: one write state, no read survives
    if ((waw || war) && needs_check(segs[0])) [[unlikely]]
      check_writes_of(s, p, AccessRange{buf, segs[0].begin, segs[0].end, true}, p0, p1, waw, war, hits);
    p.u_w = true;
    p.u_w_epoch = epoch_;
    p.u_w_slot = uint8_t(own_slot_);
    p.u_r = 0xff;
    p.u_read = {};
    p.read_slots = 0;
    return;
  }
  materialise_write(s, p, p0, p1);
  uint32_t reading = 0;  // slots whose reads in this page a write must end
  for (uint32_t slot = 0; slot < kMaxSlots; ++slot) {
    if (!(p.read_slots >> slot & 1)) continue;
    if ((p.u_r >> slot & 1) && p.u_read[slot] == 0) continue;  // uniformly none
    materialise_read(s, p, slot, p0, p1);
    reading |= 1u << slot;
  }
  for (size_t k = 0; k < n; ++k) {  // each segment checked against what the ones before it left
    const uint64_t lo = segs[k].first, hi = segs[k].last;
    if ((waw || war) && needs_check(segs[k])) [[unlikely]]
      check_writes_of(s, p, AccessRange{buf, segs[k].begin, segs[k].end, true}, lo, hi, waw, war, hits);
    fill32(s.w_epoch, lo, hi, epoch_);
    std::memset(s.w_slot.data() + lo, int(own_slot_), hi - lo);
    for (uint32_t m = reading; m; m &= m - 1) {  // the write ends the reads of [lo, hi)
      auto& rd = s.read[std::countr_zero(m)];
      if (lo < rd.size()) fill32(rd, lo, std::min<uint64_t>(hi, rd.size()), 0u);
    }
  }
}

}  // namespace npusim::sim
