// Sequence addressing of the attention blocks (seq_addr.h).
#include "kernels/attention/seq_addr.h"

#include "sim/machine/core_ctx.h"
#include "sim/machine/machine.h"

namespace npusim::op::attn {

uint64_t q_elem(const Plan& pl, int64_t b, int64_t n, int64_t row) {
  const auto s = layout_strides(pl.p.layout, pl.p.N, pl.p.Sq, pl.p.D);
  return uint64_t(b * s.b + n * s.n + row * s.s);
}
int64_t q_row_stride(const Plan& pl) { return layout_strides(pl.p.layout, pl.p.N, pl.p.Sq, pl.p.D).s; }

uint64_t out_elem(const Plan& pl, int64_t b, int64_t n, int64_t row) {
  const auto s = layout_strides(pl.p.out_layout, pl.p.N, pl.p.Sq, pl.p.Dv);
  return uint64_t(b * s.b + n * s.n + row * s.s);
}
int64_t out_row_stride(const Plan& pl) { return layout_strides(pl.p.out_layout, pl.p.N, pl.p.Sq, pl.p.Dv).s; }

uint64_t row_q_elem(const Plan& pl, const WorkUnit& u, int64_t row) {
  return pl.decode ? q_elem(pl, u.b, u.n + row, 0) : q_elem(pl, u.b, u.n, row);
}
int64_t row_q_stride(const Plan& pl) {
  return pl.decode ? layout_strides(pl.p.layout, pl.p.N, pl.p.Sq, pl.p.D).n : q_row_stride(pl);
}
uint64_t row_out_elem(const Plan& pl, const WorkUnit& u, int64_t row) {
  return pl.decode ? out_elem(pl, u.b, u.n + row, 0) : out_elem(pl, u.b, u.n, row);
}
int64_t row_out_stride(const Plan& pl) {
  return pl.decode ? layout_strides(pl.p.out_layout, pl.p.N, pl.p.Sq, pl.p.Dv).n : out_row_stride(pl);
}
uint64_t row_lse_elem(const Plan& pl, const WorkUnit& u, int64_t row) {
  return uint64_t((u.b * pl.p.N + u.n) * pl.p.Sq + row);  // decode: Sq = 1, rows are heads
}
int64_t row_head(const Plan& pl, const WorkUnit& u, int64_t row) { return pl.decode ? u.n + row : u.n; }
int64_t row_logical(const Plan& pl, const WorkUnit& u, int64_t row) { return pl.decode ? 0 : row - pl.p.q_start(u.b); }

RowRun q_rope_run(const Plan& pl, const WorkUnit& u, int64_t row, int64_t rows) {
  const auto s = layout_strides(pl.p.layout, pl.p.N, pl.p.Sq, pl.p.Dr);
  return {pl.gm.query_rope, uint64_t(u.b * s.b + u.n * s.n + row * s.s), rows, s.s, 0};
}

RowRun k_rope_run(const Plan& pl, int64_t b, int64_t n2, int64_t j0, int64_t cols) {
  const auto& p = pl.p;
  const auto s = layout_strides(p.layout, p.KV_N, p.kv_s, p.Dr);
  return {pl.gm.key_rope, uint64_t(b * s.b + n2 * s.n + (p.kv_start(b) + j0) * s.s), cols, s.s, 0};
}

uint64_t row_stat_elem(const Plan& pl, const WorkUnit& u, int64_t row) {
  const int64_t i = row - pl.p.q_start(u.b);
  return uint64_t((pl.p.q_start(u.b) * pl.p.N + u.n * pl.p.act_q[size_t(u.b)] + i) * 8);
}

std::string kv_gm(const Plan& pl, bool value, int64_t b) {
  const std::string& base = value ? pl.gm.value : pl.gm.key;
  return pl.p.kv == KvStorage::List ? base + "." + std::to_string(b) : base;
}

namespace {
// Rows of batch b's own K / V (not the prefix), dense or list: one run.
RowRun own_run(const Plan& pl, bool value, int64_t b, int64_t n2, int64_t t0, int64_t rows, int64_t dst_row) {
  const auto& p = pl.p;
  const int64_t d = value ? p.Dv : p.D;
  const bool list = p.kv == KvStorage::List;
  const auto s = layout_strides(p.layout, p.KV_N, list ? p.list_s[b] : p.kv_s, d);
  const int64_t row = p.kv_start(b) + t0;
  return {kv_gm(pl, value, b), uint64_t((list ? 0 : b) * s.b + n2 * s.n + row * s.s), rows, s.s, dst_row};
}

RowRun prefix_run(const Plan& pl, bool value, int64_t n2, int64_t j0, int64_t rows, int64_t dst_row) {
  const auto& p = pl.p;
  const auto s = layout_strides(p.layout, p.KV_N, p.prefix_s, value ? p.Dv : p.D);
  return {value ? pl.gm.value_prefix : pl.gm.key_prefix, uint64_t(n2 * s.n + j0 * s.s), rows, s.s, dst_row};
}

RowRun page_run(const Plan& pl, bool value, int64_t blk, int64_t n2, int64_t off, int64_t rows, int64_t dst_row) {
  const auto& p = pl.p;
  const int64_t d = value ? p.Dv : p.D, bs = p.block_size;
  if (p.kv == KvStorage::PagedBsH)  // (block_num, block_size, KV_N * D)
    return {value ? pl.gm.value : pl.gm.key, uint64_t(blk * bs * p.KV_N * d + off * p.KV_N * d + n2 * d), rows,
            p.KV_N * d, dst_row};
  // (block_num, KV_N, block_size, D)
  return {value ? pl.gm.value : pl.gm.key, uint64_t(blk * p.KV_N * bs * d + n2 * bs * d + off * d), rows, d, dst_row};
}
}  // namespace

std::vector<RowRun> kv_runs(const Plan& pl, bool value, int64_t b, int64_t n2, int64_t j0, int64_t cols,
                            const PageIds& pages) {
  const auto& p = pl.p;
  std::vector<RowRun> runs;
  int64_t j = j0, end = j0 + cols;
  if (j < p.prefix_len) {
    const int64_t r = std::min(end, p.prefix_len) - j;
    runs.push_back(prefix_run(pl, value, n2, j, r, 0));
    j += r;
  }
  if (j >= end) return runs;
  const bool paged = p.kv == KvStorage::PagedBsH || p.kv == KvStorage::PagedNBsD;
  if (!paged) {
    runs.push_back(own_run(pl, value, b, n2, j - p.prefix_len, end - j, j - j0));
    return runs;
  }
  for (int64_t t = j - p.prefix_len, t_end = end - p.prefix_len; t < t_end;) {
    const int64_t page = t / p.block_size, off = t % p.block_size;
    const int64_t r = std::min(t_end - t, p.block_size - off);
    runs.push_back(page_run(pl, value, pages.id(page), n2, off, r, t + p.prefix_len - j0));
    t += r;
  }
  return runs;
}

int64_t PageIds::id(int64_t page) const {
  for (const auto& [pg, id] : ids)
    if (pg == page) return id;
  return 0;  // unreachable: load() fetched every page of the block
}

void PageIds::load(sim::CoreCtx& c, const Plan& pl, int64_t b, int64_t j0, int64_t cols) {
  ids.clear();
  const auto& p = pl.p;
  if (p.kv != KvStorage::PagedBsH && p.kv != KvStorage::PagedNBsD) return;
  const int64_t t0 = std::max<int64_t>(j0 - p.prefix_len, 0), t1 = j0 + cols - p.prefix_len;
  for (int64_t page = t0 / p.block_size; page * p.block_size < t1; ++page) {
    const auto at = c.gm(pl.gm.block_table, uint64_t(b * p.max_blocks + page) * 4);
    const int64_t id = c.load_scalar(isa::DType::I32, at);
    // The vendor kernel does not validate ids either (a bad one reads outside the cache, a DMA fault); naming
    // the table element that produced the address is what lets the user find it.
    if (id < 0 || id >= p.block_num)
      throw sim::KernelFault(
          "bounds", "block_table[" + std::to_string(b) + "][" + std::to_string(page) + "] = " + std::to_string(id) +
                        " is not a block of the paged cache (block_num " + std::to_string(p.block_num) +
                        "): the K / V DMA of KV tokens " + std::to_string(p.prefix_len + page * p.block_size) +
                        ".. would read outside it");
    ids.emplace_back(page, id);
  }
}

}  // namespace npusim::op::attn
