#include "sim/check/gm_shadow.h"

#include <algorithm>

namespace npusim::sim {

size_t GmShadow::segments() const {
  size_t n = 0;
  for (const Page& p : pages_) n += p.size();
  return n;
}

GmShadow::Page& GmShadow::page(uint64_t number) {
  if (cached_ != FlatIndex::kNone && cached_number_ == number) return pages_[cached_];
  cached_number_ = number;
  if (number < kDensePages) {
    if (number >= dense_.size())
      dense_.resize(std::max<size_t>(size_t(number) + 1, 2 * dense_.size()), FlatIndex::kNone);
    uint32_t& slot = dense_[size_t(number)];
    if (slot == FlatIndex::kNone) slot = static_cast<uint32_t>(pages_.size()), pages_.emplace_back();
    return pages_[cached_ = slot];
  }
  cached_ = index_.find(number);
  if (cached_ == FlatIndex::kNone) {
    cached_ = static_cast<uint32_t>(pages_.size());
    index_.insert(number, cached_);
    pages_.emplace_back();
  }
  return pages_[cached_];
}

// Readers ordered before the new one are dropped: a later write unordered with them is unordered with
// the new reader too (ordering is transitive), so the new reader still exposes the race.
void GmShadow::add_reader(Segment& s, const Access& me) const {
  const VectorClock& clock = hb_.clock(me.agent);
  s.readers.erase(
      std::remove_if(s.readers.begin(), s.readers.end(), [&](const Access& r) { return clock[r.agent] >= r.epoch; }),
      s.readers.end());
  s.readers.push_back(me);
}

namespace {
// The first segment of p that ends after pos (segments are disjoint and sorted, so their ends are too).
template <class Page>
size_t first_ending_after(const Page& p, uint64_t pos) {
  if (p.empty() || p.back().end <= pos) return p.size();
  if (p.front().end > pos) return 0;
  return size_t(std::partition_point(p.begin(), p.end(), [&](const auto& s) { return s.end <= pos; }) - p.begin());
}

// Splits segment i at pos (inside it); the upper part becomes segment i + 1.
template <class Page>
void split(Page& p, size_t i, uint64_t pos) {
  auto upper = p[i];
  upper.begin = pos;
  p[i].end = pos;
  p.insert(p.begin() + ptrdiff_t(i) + 1, std::move(upper));
}
}  // namespace

uint64_t GmShadow::read(Page& p, const Access& me, uint64_t lo, uint64_t hi, RaceHits& hits) {
  uint64_t checked = 0, pos = lo;
  size_t i = first_ending_after(p, lo);
  while (pos < hi) {
    if (i == p.size() || p[i].begin > pos) {  // untouched gap: nothing to race with
      const uint64_t gap_end = i == p.size() ? hi : std::min(hi, p[i].begin);
      Segment fresh{pos, gap_end, Access{0, 0, 0}, {}};
      fresh.readers.push_back(me);
      p.insert(p.begin() + ptrdiff_t(i), std::move(fresh));
      ++i;
      pos = gap_end;
      continue;
    }
    if (p[i].begin < pos) split(p, i++, pos);
    if (p[i].end > hi) split(p, i, hi);
    Segment& s = p[i];
    ++checked;
    if (conflicts(s.writer, me, kHazardRaw)) report(RaceKind::RAW, s.writer, pos, s.end, hits);
    add_reader(s, me);
    pos = s.end;
    ++i;
  }
  return checked;
}

// A write replaces every segment it covers by one (see LocalShadow::access for why the reads it checked
// can be forgotten).
uint64_t GmShadow::write(Page& p, const Access& me, uint64_t lo, uint64_t hi, RaceHits& hits) {
  size_t first = first_ending_after(p, lo);
  if (first < p.size() && p[first].begin < lo) split(p, first++, lo);
  uint64_t checked = 0;
  size_t i = first;
  for (; i < p.size() && p[i].begin < hi; ++i) {
    if (p[i].end > hi) split(p, i, hi);
    const Segment& s = p[i];
    ++checked;
    if (conflicts(s.writer, me, kHazardWaw)) report(RaceKind::WAW, s.writer, s.begin, s.end, hits);
    for (const Access& rd : s.readers)
      if (conflicts(rd, me, kHazardWar)) report(RaceKind::WAR, rd, s.begin, s.end, hits);
  }
  if (checked == 0) {
    p.insert(p.begin() + ptrdiff_t(first), Segment{lo, hi, me, {}});
    return 0;
  }
  p.erase(p.begin() + ptrdiff_t(first) + 1, p.begin() + ptrdiff_t(i));
  Segment& s = p[first];
  s.begin = lo, s.end = hi, s.writer = me;
  s.readers.clear();
  return checked;
}

uint64_t GmShadow::access(AgentId a, uint32_t epoch, uint64_t id, const AccessRange& r, RaceHits& hits) {
  if (r.end <= r.begin) return 0;
  const Access me{a, epoch, id};
  uint64_t checked = 0;
  for (uint64_t n = r.begin >> kPageShift, last = (r.end - 1) >> kPageShift; n <= last; ++n) {
    const uint64_t lo = std::max(r.begin, n << kPageShift), hi = std::min(r.end, (n + 1) << kPageShift);
    Page& p = page(n);
    checked += r.write ? write(p, me, lo, hi, hits) : read(p, me, lo, hi, hits);
  }
  return checked;
}

}  // namespace npusim::sim
