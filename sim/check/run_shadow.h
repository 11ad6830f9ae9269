#pragma once
// Internal to the race checker: the shadow state of one local buffer, kept as runs of consecutive granules
// that share one state. An access of [a, b) checks and updates each run it overlaps once, so its cost
// follows the number of runs, not the number of granules: a 1024-block vector operand over one tile is
// one run, not 1024 blocks.
//
// Representation. Granules are grouped in chunks of 64. Each chunk has a bitmap marking the granules that
// start a run ("heads") and the states of its heads, in address order; a summary bitmap marks the chunks
// holding any head. Finding the run of a granule is a scan back to the previous head: within its chunk,
// else through the summary to the previous chunk with a head (one word covers 4096 granules, so a run
// over a whole tile costs no more than a short one). Its end is the same scan forward, its state the
// entry at the rank of its head within the chunk. A split inserts one bit and one state into a chunk, a
// merge removes them.
// Why this layout: short operands (one 8-block repeat per row of a tile) split runs constantly, so a
// split must not allocate (std::map) or move a buffer's worth of intervals (sorted vector). And lookups
// must touch few cache lines: the simulator interleaves 72 cores, so each access finds its shadow cold.
// A chunk is one 64-byte line holding the bitmap and the state of its first run (most runs start a chunk:
// tiles and rows are aligned), so the common lookup is one line; the chunk's further states sit in one
// small array. A state per granule (40 B per 32-byte block) or an index per granule into a pool would
// cost two or more misses per run.
#include <immintrin.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace npusim::sim {

// What the checker remembers about one granule. Slots number the agents (pipes) of one core.
struct GranuleState {
  static constexpr int kSlots = 8;
  uint32_t read[kSlots];  // epoch of each slot's last read since the last write (0: none)
  uint32_t w_epoch;       // epoch of the last write (0: none)
  uint32_t w_slot;        // slot of the last writer
  // Two vector compares (the states of neighbouring runs are compared on every merge attempt).
  bool operator==(const GranuleState& o) const {
    const __m256i r = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(read)),
                                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(o.read)));
    return _mm256_testz_si256(r, r) && w_epoch == o.w_epoch && w_slot == o.w_slot;
  }
};

class RunShadow {
 public:
  struct Run {
    uint64_t begin, end;  // granules, end exclusive
    GranuleState state;
  };
  // Which neighbours of an access may now equal the runs it leaves behind, so merging with them is worth
  // a look: only runs this same instruction touched can (its epoch is in them), and looking at an
  // untouched neighbour is a likely cache miss for nothing. Merging is only an optimisation: equal
  // neighbours are checked identically, but each costs a step.
  struct Merge {
    bool before = true;  // the run ending at a
    bool after = true;   // the run starting at b
  };

  RunShadow() { clear(); }
  uint64_t size() const { return size_; }
  void clear();  // no granules; keeps the capacity for the next launch
  // Ensures size() >= granules (growing geometrically); new granules are in the empty state.
  void grow(uint64_t granules) {
    if (granules > size_) grow_to(granules);
  }

  // A write of [a, b) (a < b <= size()): calls check(state, lo, hi) for each run overlapping it, clipped
  // to [lo, hi) and in address order, then makes [a, b) one run of state `s`.
  template <class Check>
  void write(uint64_t a, uint64_t b, const GranuleState& s, Merge merge, Check&& check);
  // A read of [a, b) by `slot` at `epoch`: calls check(state, lo, hi) like write(), and records the read
  // in each run (read[slot] = epoch; the runs keep their other fields).
  template <class Check>
  void read(uint64_t a, uint64_t b, uint32_t slot, uint32_t epoch, Merge merge, Check&& check);

  std::vector<Run> runs() const;  // every run in address order (tests, debugging)

 private:
  // One cache line: the bitmap, the first state, and the rest of the states (ranks 1..n-1) out of line.
  struct alignas(64) Chunk {
    uint64_t heads = 0;  // bit i: granule 64c + i starts a run (bit size_ is set too, as a sentinel)
    GranuleState first{};
    std::unique_ptr<GranuleState[]> more;
    uint32_t n = 0;         // states held: the heads, not counting the sentinel
    uint32_t more_cap = 0;  // capacity of `more`

    GranuleState& at(size_t r) { return r == 0 ? first : more[r - 1]; }
    const GranuleState& at(size_t r) const { return r == 0 ? first : more[r - 1]; }
    void insert(size_t r, const GranuleState& s);
    void erase(size_t r, size_t count);
  };
  static_assert(sizeof(Chunk) == 64);

  void grow_to(uint64_t granules);
  bool is_head(uint64_t i) const { return (chunks_[i >> 6].heads >> (i & 63)) & 1; }
  // Rank of granule i among the heads of its chunk: the index of its state if it is a head.
  size_t rank(uint64_t i) const {
    return static_cast<size_t>(std::popcount(chunks_[i >> 6].heads & ((uint64_t{1} << (i & 63)) - 1)));
  }
  // Head bits go through these, which keep the summary of non-empty chunks.
  void set_head_bit(uint64_t i) {
    chunks_[i >> 6].heads |= uint64_t{1} << (i & 63);
    nonempty_[i >> 12] |= uint64_t{1} << ((i >> 6) & 63);
  }
  void set_chunk_heads(uint64_t c, uint64_t heads) {
    chunks_[c].heads = heads;
    const uint64_t bit = uint64_t{1} << (c & 63);
    nonempty_[c >> 6] = heads ? nonempty_[c >> 6] | bit : nonempty_[c >> 6] & ~bit;
  }
  // The head of the run holding granule i (granule 0 is always a head).
  uint64_t head_at_or_before(uint64_t i) const {
    uint64_t c = i >> 6;
    const uint64_t m = chunks_[c].heads & (~uint64_t{0} >> (63 - (i & 63)));
    if (m == 0) {  // the last head of the closest chunk before c that has one
      uint64_t w = (c - 1) >> 6;
      uint64_t s = nonempty_[w] & (~uint64_t{0} >> (63 - ((c - 1) & 63)));
      while (s == 0) s = nonempty_[--w];
      c = (w << 6) + 63 - static_cast<uint64_t>(std::countl_zero(s));
      return (c << 6) + 63 - static_cast<uint64_t>(std::countl_zero(chunks_[c].heads));
    }
    return (c << 6) + 63 - static_cast<uint64_t>(std::countl_zero(m));
  }
  // The first head after granule i < size(): the end of i's run (size() is always marked, as a sentinel).
  uint64_t head_after(uint64_t i) const {
    uint64_t c = i >> 6;
    const unsigned sh = static_cast<unsigned>(i & 63) + 1;
    const uint64_t m = sh == 64 ? 0 : chunks_[c].heads & (~uint64_t{0} << sh);
    if (m == 0) {  // the first head of the closest chunk after c that has one
      uint64_t w = (c + 1) >> 6;
      const unsigned cs = static_cast<unsigned>((c + 1) & 63);
      uint64_t s = nonempty_[w] & (~uint64_t{0} << cs);
      while (s == 0) s = nonempty_[++w];
      c = (w << 6) + static_cast<uint64_t>(std::countr_zero(s));
      return (c << 6) + static_cast<uint64_t>(std::countr_zero(chunks_[c].heads));
    }
    return (c << 6) + static_cast<uint64_t>(std::countr_zero(m));
  }
  // State of the run headed by h. Valid until the next insert or erase.
  GranuleState& st(uint64_t h) { return chunks_[h >> 6].at(rank(h)); }
  const GranuleState& st(uint64_t h) const { return chunks_[h >> 6].at(rank(h)); }
  void insert_head(uint64_t i, const GranuleState& s) {  // i is not a head yet
    chunks_[i >> 6].insert(rank(i), s);
    set_head_bit(i);
  }
  void erase_head(uint64_t i) {  // i is a head
    chunks_[i >> 6].erase(rank(i), 1);
    set_chunk_heads(i >> 6, chunks_[i >> 6].heads & ~(uint64_t{1} << (i & 63)));
  }
  void erase_heads(uint64_t a, uint64_t b);  // every head in [a, b), a < b <= size()
  // Merges the run headed by h (if h heads one) into the run before it when their states are equal.
  void merge_with_previous(uint64_t h) {
    if (h > 0 && h < size_ && is_head(h) && st(head_at_or_before(h - 1)) == st(h)) erase_head(h);
  }

  std::vector<Chunk> chunks_;       // covering granules [0, size_]
  std::vector<uint64_t> nonempty_;  // bit c: chunk c has a head
  uint64_t size_ = 0;
};

template <class Check>
void RunShadow::write(uint64_t a, uint64_t b, const GranuleState& s, Merge merge, Check&& check) {
  uint64_t h = head_at_or_before(a), x = a;
  const bool a_is_head = h == a;
  GranuleState tail;  // state of the part of the last run past b, if any
  bool has_tail = false;
  for (;;) {
    const uint64_t e = head_after(h), hi = e < b ? e : b;
    const GranuleState& cur = st(h);
    check(cur, x, hi);
    if (hi == b) {
      if (e > b) {
        tail = cur;
        has_tail = true;
      }
      break;
    }
    x = h = e;
  }
  if (b - a > 1) erase_heads(a + 1, b);
  if (a_is_head)
    st(a) = s;
  else  // the part of the first run before a keeps its state
    insert_head(a, s);
  if (has_tail) insert_head(b, tail);
  if (merge.before) merge_with_previous(a);
  if (merge.after) merge_with_previous(b);
}

template <class Check>
void RunShadow::read(uint64_t a, uint64_t b, uint32_t slot, uint32_t epoch, Merge merge, Check&& check) {
  uint64_t h = head_at_or_before(a), x = a;
  for (;;) {
    const uint64_t e = head_after(h), hi = e < b ? e : b;
    const GranuleState& cur = st(h);
    check(cur, x, hi);
    if (cur.read[slot] != epoch) {  // else this instruction already read it: nothing changes
      const GranuleState old = cur;   // (cur dies at the first insert or erase)
      GranuleState now = old;
      now.read[slot] = epoch;
      if (x == h && hi < e && (h > a || merge.before) && h > 0 && (h >> 6) == (hi >> 6) &&
          st(head_at_or_before(h - 1)) == now) {
        // The run before already looks like the accessed part (a broadcast operand reads block after
        // block): move the boundary instead of splitting and merging. Same chunk, no head in between,
        // so the state entry keeps its rank and now belongs to [hi, e).
        chunks_[h >> 6].heads ^= (uint64_t{1} << (h & 63)) | (uint64_t{1} << (hi & 63));  // stays non-empty
        break;  // hi < e, so hi == b
      }
      if (hi < e) insert_head(hi, old);  // the part past the access keeps the old state
      if (x > h) {                       // so does the part before it
        insert_head(x, old);
        h = x;
      }
      st(h) = now;
      if (h > a || merge.before) merge_with_previous(h);  // e.g. the run before was read by this instruction too
    }
    if (hi == b) break;
    x = h = e;
  }
  if (merge.after) merge_with_previous(b);
}

}  // namespace npusim::sim
