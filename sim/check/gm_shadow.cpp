#include "sim/check/gm_shadow.h"

#include <algorithm>

namespace npusim::sim {

// The first segment that ends after `pos` (it may start before, at or after it). A DMA lists its bursts
// in address order, a few segments apart, so within one instruction the walk starts from the segment the
// last range ended in when that one starts at or before pos (every segment before it ends before pos): a
// few steps through neighbouring nodes instead of a descent from the root of a map of ~100k segments,
// through cold nodes.
GmShadow::Map::iterator GmShadow::first_ending_after(const Access& me, uint64_t pos) {
  const bool same_instruction = has_hint_ && hint_owner_.agent == me.agent && hint_owner_.epoch == me.epoch;
  if (use_hint_ && same_instruction && hint_->first <= pos) {
    auto it = hint_;
    for (int step = 0; step < kHintSteps && it != segments_.end(); ++step, ++it)
      if (it->second.end > pos) return it;
    if (it == segments_.end()) return it;
  }
  auto it = segments_.upper_bound(pos);
  if (it != segments_.begin()) {
    auto before = std::prev(it);
    if (before->second.end > pos) return before;
  }
  return it;
}

// Splits segment `it` at `pos` (inside it); returns the upper part.
GmShadow::Map::iterator GmShadow::split(Map::iterator it, uint64_t pos) {
  Segment upper = it->second;
  it->second.end = pos;
  return segments_.emplace_hint(std::next(it), pos, std::move(upper));
}

// Readers ordered before the new one are dropped: a later write unordered with them is unordered with
// the new reader too (ordering is transitive), so the new reader still exposes the race.
void GmShadow::add_reader(Segment& s, const Access& me) const {
  const VectorClock& clock = hb_.clock(me.agent);
  s.readers.erase(std::remove_if(s.readers.begin(), s.readers.end(), [&](const Access& r) { return clock[r.agent] >= r.epoch; }),
                  s.readers.end());
  s.readers.push_back(me);
}

uint64_t GmShadow::read(const Access& me, const AccessRange& r, RaceHits& hits) {
  uint64_t checked = 0, pos = r.begin;
  auto it = first_ending_after(me, r.begin);
  while (pos < r.end) {
    if (it == segments_.end() || it->first > pos) {  // untouched gap: nothing to race with
      const uint64_t gap_end = it == segments_.end() ? r.end : std::min(r.end, it->first);
      Segment fresh{gap_end, Access{0, 0, 0}, {}};
      fresh.readers.push_back(me);
      hint_ = segments_.emplace_hint(it, pos, std::move(fresh));
      pos = gap_end;
      continue;
    }
    if (it->first < pos) it = split(it, pos);
    if (it->second.end > r.end) split(it, r.end);
    Segment& s = it->second;
    ++checked;
    if (unordered(s.writer, me.agent)) report(RaceKind::RAW, s.writer, pos, s.end, hits);
    add_reader(s, me);
    pos = s.end;
    hint_ = it++;
  }
  has_hint_ = true;
  hint_owner_ = me;
  return checked;
}

// A write replaces every segment it covers by one (see LocalShadow::access for why the reads it checked
// can be forgotten). The first covered node is reused, so a write over earlier segments allocates nothing.
uint64_t GmShadow::write(const Access& me, const AccessRange& r, RaceHits& hits) {
  auto first = first_ending_after(me, r.begin);
  if (first != segments_.end() && first->first < r.begin) first = split(first, r.begin);
  uint64_t checked = 0;
  auto it = first;
  for (; it != segments_.end() && it->first < r.end; ++it) {
    if (it->second.end > r.end) split(it, r.end);
    const Segment& s = it->second;
    ++checked;
    if (unordered(s.writer, me.agent)) report(RaceKind::WAW, s.writer, it->first, s.end, hits);
    for (const Access& rd : s.readers)
      if (unordered(rd, me.agent)) report(RaceKind::WAR, rd, it->first, s.end, hits);
  }
  has_hint_ = true;
  hint_owner_ = me;
  if (checked == 0) {
    hint_ = segments_.emplace_hint(it, r.begin, Segment{r.end, me, {}});
    return 0;
  }
  segments_.erase(std::next(first), it);
  Segment& s = first->second;
  s.end = r.end;
  s.writer = me;
  s.readers.clear();
  if (first->first != r.begin) {  // a gap opened the range: move the reused node's key down
    auto node = segments_.extract(first);
    node.key() = r.begin;
    first = segments_.insert(std::move(node)).position;
  }
  hint_ = first;
  return checked;
}

uint64_t GmShadow::access(AgentId a, uint32_t epoch, uint64_t id, const AccessRange& r, RaceHits& hits) {
  if (r.end <= r.begin) return 0;
  const Access me{a, epoch, id};
  return r.write ? write(me, r, hits) : read(me, r, hits);
}

}  // namespace npusim::sim
