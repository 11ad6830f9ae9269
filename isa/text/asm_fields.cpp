// The field table of every instruction kind: key name, role and member, in canonical print order
// (dtype suffixes, then address operands, then the other fields in struct order). isa/README.md
// "Text form" lists the same keys with their units.
#include "isa/text/asm_fields.h"

#include <stdexcept>

namespace npusim::isa::asm_detail {

namespace {

template <class S>
struct Field {
  std::string_view name;
  Role role;
  ValueRef (*ref)(S&);
};

template <class M>
struct MemberOf;
template <class C, class V>
struct MemberOf<V C::*> {
  using Class = C;
};
template <auto M>
using ClassOf = typename MemberOf<decltype(M)>::Class;

template <auto M>
constexpr Field<ClassOf<M>> field(std::string_view name, Role role = Role::Key) {
  return {name, role, [](ClassOf<M>& s) -> ValueRef { return &(s.*M); }};
}
template <auto M>
constexpr Field<ClassOf<M>> suffix(std::string_view name) {
  return field<M>(name, Role::Suffix);
}
template <auto M>
constexpr Field<ClassOf<M>> operand(std::string_view name) {
  return field<M>(name, Role::Operand);
}
template <auto M>
constexpr Field<ClassOf<M>> always(std::string_view name) {
  return field<M>(name, Role::Always);
}
// The two halves of a VStride member: <operand>_blk and <operand>_rep.
template <auto M>
constexpr Field<ClassOf<M>> blk(std::string_view name) {
  return {name, Role::Key, [](ClassOf<M>& s) -> ValueRef { return &(s.*M).blk; }};
}
template <auto M>
constexpr Field<ClassOf<M>> rep(std::string_view name) {
  return {name, Role::Key, [](ClassOf<M>& s) -> ValueRef { return &(s.*M).rep; }};
}

// ---- MTE / cube / fixpipe ------------------------------------------------------------------------
std::span<const Field<DataCopy>> table(const DataCopy&) {
  using S = DataCopy;
  static constexpr Field<S> t[] = {operand<&S::dst>("dst"),
                                   operand<&S::src>("src"),
                                   field<&S::nburst>("nburst"),
                                   field<&S::burst_bytes>("burst_bytes"),
                                   field<&S::src_gap>("src_gap"),
                                   field<&S::dst_gap>("dst_gap"),
                                   field<&S::pad>("pad"),
                                   field<&S::pad_dtype>("pad_dtype"),
                                   field<&S::pad_value>("pad_value")};
  return t;
}
std::span<const Field<Nd2Nz>> table(const Nd2Nz&) {
  using S = Nd2Nz;
  static constexpr Field<S> t[] = {suffix<&S::dtype>("dtype"),
                                   operand<&S::dst>("dst"),
                                   operand<&S::src>("src"),
                                   field<&S::nd_num>("nd_num"),
                                   field<&S::n_value>("n_value"),
                                   field<&S::d_value>("d_value"),
                                   field<&S::src_nd_matrix_stride>("src_nd_matrix_stride"),
                                   field<&S::src_d_value>("src_d_value"),
                                   field<&S::dst_nz_c0_stride>("dst_nz_c0_stride"),
                                   field<&S::dst_nz_n_stride>("dst_nz_n_stride"),
                                   field<&S::dst_nz_matrix_stride>("dst_nz_matrix_stride")};
  return t;
}
std::span<const Field<Load2d>> table(const Load2d&) {
  using S = Load2d;
  static constexpr Field<S> t[] = {suffix<&S::dtype>("dtype"),
                                   operand<&S::dst>("dst"),
                                   operand<&S::src>("src"),
                                   field<&S::start_index>("start_index"),
                                   field<&S::repeat>("repeat"),
                                   field<&S::src_stride>("src_stride"),
                                   field<&S::dst_gap>("dst_gap"),
                                   field<&S::transpose>("transpose"),
                                   field<&S::dst_frac_gap>("dst_frac_gap")};
  return t;
}
std::span<const Field<Mmad>> table(const Mmad&) {
  using S = Mmad;
  static constexpr Field<S> t[] = {suffix<&S::a_dtype>("a_dtype"),
                                   operand<&S::c>("c"),
                                   operand<&S::a>("a"),
                                   operand<&S::b>("b"),
                                   field<&S::m>("m"),
                                   field<&S::n>("n"),
                                   field<&S::k>("k"),
                                   field<&S::init>("init"),
                                   field<&S::unit_flag>("unit_flag"),
                                   field<&S::bias>("bias"),
                                   field<&S::bias_addr>("bias_addr")};
  return t;
}
std::span<const Field<Fixpipe>> table(const Fixpipe&) {
  using S = Fixpipe;
  static constexpr Field<S> t[] = {suffix<&S::dst_dtype>("dst_dtype"),
                                   suffix<&S::src_dtype>("src_dtype"),
                                   operand<&S::dst>("dst"),
                                   operand<&S::src>("src"),
                                   field<&S::m>("m"),
                                   field<&S::n>("n"),
                                   field<&S::src_m_stride>("src_m_stride"),
                                   field<&S::dst_stride>("dst_stride"),
                                   field<&S::nz2nd>("nz2nd"),
                                   field<&S::quant>("quant"),
                                   field<&S::quant_scale>("quant_scale"),
                                   field<&S::quant_addr>("quant_addr"),
                                   field<&S::relu>("relu"),
                                   field<&S::sat>("sat")};
  return t;
}

// ---- vector --------------------------------------------------------------------------------------
std::span<const Field<VBinary>> table(const VBinary&) {
  using S = VBinary;
  static constexpr Field<S> t[] = {
      suffix<&S::dtype>("dtype"),  operand<&S::dst>("dst"),     operand<&S::src0>("src0"),
      operand<&S::src1>("src1"),   field<&S::repeat>("repeat"), field<&S::mask>("mask"),
      blk<&S::dst_s>("dst_blk"),   rep<&S::dst_s>("dst_rep"),   blk<&S::src0_s>("src0_blk"),
      rep<&S::src0_s>("src0_rep"), blk<&S::src1_s>("src1_blk"), rep<&S::src1_s>("src1_rep")};
  return t;
}
std::span<const Field<VScalar>> table(const VScalar&) {
  using S = VScalar;
  static constexpr Field<S> t[] = {suffix<&S::dtype>("dtype"),  operand<&S::dst>("dst"),     operand<&S::src>("src"),
                                   field<&S::scalar>("scalar"), field<&S::repeat>("repeat"), field<&S::mask>("mask"),
                                   blk<&S::dst_s>("dst_blk"),   rep<&S::dst_s>("dst_rep"),   blk<&S::src_s>("src_blk"),
                                   rep<&S::src_s>("src_rep")};
  return t;
}
std::span<const Field<VUnary>> table(const VUnary&) {
  using S = VUnary;
  static constexpr Field<S> t[] = {suffix<&S::dtype>("dtype"),  operand<&S::dst>("dst"),   operand<&S::src>("src"),
                                   field<&S::repeat>("repeat"), field<&S::mask>("mask"),   blk<&S::dst_s>("dst_blk"),
                                   rep<&S::dst_s>("dst_rep"),   blk<&S::src_s>("src_blk"), rep<&S::src_s>("src_rep")};
  return t;
}
// Whole reduce, block reduce and pair add share one layout: src strides plus the dst_rep field.
template <class S>
std::span<const Field<S>> reduce_table() {
  static constexpr Field<S> t[] = {suffix<&S::dtype>("dtype"),  operand<&S::dst>("dst"),      operand<&S::src>("src"),
                                   field<&S::repeat>("repeat"), field<&S::mask>("mask"),      blk<&S::src_s>("src_blk"),
                                   rep<&S::src_s>("src_rep"),   field<&S::dst_rep>("dst_rep")};
  return t;
}
std::span<const Field<VReduce>> table(const VReduce&) { return reduce_table<VReduce>(); }
std::span<const Field<VBlockReduce>> table(const VBlockReduce&) { return reduce_table<VBlockReduce>(); }
std::span<const Field<VPairAdd>> table(const VPairAdd&) { return reduce_table<VPairAdd>(); }
std::span<const Field<VBrcb>> table(const VBrcb&) {
  using S = VBrcb;
  static constexpr Field<S> t[] = {suffix<&S::dtype>("dtype"),  operand<&S::dst>("dst"),   operand<&S::src>("src"),
                                   field<&S::repeat>("repeat"), blk<&S::dst_s>("dst_blk"), rep<&S::dst_s>("dst_rep")};
  return t;
}
std::span<const Field<VDup>> table(const VDup&) {
  using S = VDup;
  static constexpr Field<S> t[] = {suffix<&S::dtype>("dtype"),  operand<&S::dst>("dst"), field<&S::value>("value"),
                                   field<&S::repeat>("repeat"), field<&S::mask>("mask"), blk<&S::dst_s>("dst_blk"),
                                   rep<&S::dst_s>("dst_rep")};
  return t;
}
std::span<const Field<VCast>> table(const VCast&) {
  using S = VCast;
  static constexpr Field<S> t[] = {suffix<&S::dst_dtype>("dst_dtype"),
                                   suffix<&S::src_dtype>("src_dtype"),
                                   operand<&S::dst>("dst"),
                                   operand<&S::src>("src"),
                                   field<&S::round>("round"),
                                   field<&S::sat>("sat"),
                                   field<&S::repeat>("repeat"),
                                   field<&S::mask>("mask"),
                                   blk<&S::dst_s>("dst_blk"),
                                   rep<&S::dst_s>("dst_rep"),
                                   blk<&S::src_s>("src_blk"),
                                   rep<&S::src_s>("src_rep")};
  return t;
}
std::span<const Field<VCmp>> table(const VCmp&) {
  using S = VCmp;
  static constexpr Field<S> t[] = {
      suffix<&S::dtype>("dtype"),  operand<&S::dst>("dst"),     operand<&S::src0>("src0"),  operand<&S::src1>("src1"),
      field<&S::op>("op"),         field<&S::repeat>("repeat"), field<&S::mask>("mask"),    blk<&S::src0_s>("src0_blk"),
      rep<&S::src0_s>("src0_rep"), blk<&S::src1_s>("src1_blk"), rep<&S::src1_s>("src1_rep")};
  return t;
}
std::span<const Field<VSel>> table(const VSel&) {
  using S = VSel;
  static constexpr Field<S> t[] = {
      suffix<&S::dtype>("dtype"),  operand<&S::dst>("dst"),     operand<&S::src0>("src0"),
      operand<&S::src1>("src1"),   operand<&S::sel>("sel"),     field<&S::scalar_mode>("scalar_mode"),
      field<&S::scalar>("scalar"), field<&S::repeat>("repeat"), field<&S::mask>("mask"),
      blk<&S::dst_s>("dst_blk"),   rep<&S::dst_s>("dst_rep"),   blk<&S::src0_s>("src0_blk"),
      rep<&S::src0_s>("src0_rep"), blk<&S::src1_s>("src1_blk"), rep<&S::src1_s>("src1_rep")};
  return t;
}
std::span<const Field<VCopy>> table(const VCopy&) {
  using S = VCopy;
  static constexpr Field<S> t[] = {suffix<&S::dtype>("dtype"),  operand<&S::dst>("dst"),   operand<&S::src>("src"),
                                   field<&S::repeat>("repeat"), field<&S::mask>("mask"),   blk<&S::dst_s>("dst_blk"),
                                   rep<&S::dst_s>("dst_rep"),   blk<&S::src_s>("src_blk"), rep<&S::src_s>("src_rep")};
  return t;
}

// ---- scalar --------------------------------------------------------------------------------------
std::span<const Field<SMov>> table(const SMov&) {
  static constexpr Field<SMov> t[] = {always<&SMov::rd>("rd"), always<&SMov::imm>("imm")};
  return t;
}
std::span<const Field<SAlu>> table(const SAlu&) {
  using S = SAlu;
  static constexpr Field<S> t[] = {always<&S::rd>("rd"), always<&S::ra>("ra"), always<&S::rb>("rb"),
                                   field<&S::use_imm>("use_imm"), field<&S::imm>("imm")};
  return t;
}
std::span<const Field<SLoad>> table(const SLoad&) {
  using S = SLoad;
  static constexpr Field<S> t[] = {suffix<&S::dtype>("dtype"), always<&S::rd>("rd"), operand<&S::addr>("addr"),
                                   field<&S::index_reg>("index_reg")};
  return t;
}
std::span<const Field<SStore>> table(const SStore&) {
  using S = SStore;
  static constexpr Field<S> t[] = {suffix<&S::dtype>("dtype"), always<&S::rs>("rs"), operand<&S::addr>("addr"),
                                   field<&S::index_reg>("index_reg")};
  return t;
}
std::span<const Field<Dcci>> table(const Dcci&) {
  using S = Dcci;
  static constexpr Field<S> t[] = {operand<&S::addr>("addr"), field<&S::all>("all")};
  return t;
}

// ---- sync: every field is printed, a bare "set_flag" would hide which pipes it couples ----------
std::span<const Field<SetFlag>> table(const SetFlag&) {
  using S = SetFlag;
  static constexpr Field<S> t[] = {always<&S::src>("src"), always<&S::dst>("dst"), always<&S::event>("event")};
  return t;
}
std::span<const Field<WaitFlag>> table(const WaitFlag&) {
  using S = WaitFlag;
  static constexpr Field<S> t[] = {always<&S::src>("src"), always<&S::dst>("dst"), always<&S::event>("event")};
  return t;
}
std::span<const Field<PipeBarrier>> table(const PipeBarrier&) {
  static constexpr Field<PipeBarrier> t[] = {always<&PipeBarrier::pipe>("pipe")};
  return t;
}
std::span<const Field<CrossSet>> table(const CrossSet&) {
  using S = CrossSet;
  static constexpr Field<S> t[] = {always<&S::mode>("mode"), always<&S::flag_id>("flag_id"), always<&S::pipe>("pipe")};
  return t;
}
std::span<const Field<CrossWait>> table(const CrossWait&) {
  static constexpr Field<CrossWait> t[] = {always<&CrossWait::flag_id>("flag_id")};
  return t;
}
std::span<const Field<SyncAll>> table(const SyncAll&) { return {}; }

}  // namespace

FieldList bind_fields(Instr& in) {
  FieldList list;
  std::visit(
      [&](auto& s) {
        const auto fields = table(s);
        if (fields.size() > FieldList::kCapacity) throw std::logic_error("asm: field table too long");
        for (const auto& f : fields) list.items[list.size++] = BoundField{f.name, f.role, f.ref(s)};
      },
      in);
  return list;
}

}  // namespace npusim::isa::asm_detail
