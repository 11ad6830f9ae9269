// .npy files and host tensors: round trips, hand-made files (Fortran order, version 2.0, bool, uint16),
// every rejection naming the file, case conversions and the output encoding.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/host/npy.h"
#include "tests/op/case_test_support.h"

namespace npusim::op {
namespace {
using namespace casetest;

HostTensor filled(ElemType t, std::vector<int64_t> shape, const std::vector<double>& v) {
  HostTensor h = HostTensor::zeros(t, std::move(shape));
  for (int64_t i = 0; i < h.numel(); ++i) h.set(i, v[static_cast<size_t>(i) % v.size()]);
  return h;
}

std::vector<double> values_of(const HostTensor& h) {
  std::vector<double> out;
  for (int64_t i = 0; i < h.numel(); ++i) out.push_back(h.get(i));
  return out;
}

std::vector<uint8_t> le32(std::initializer_list<int32_t> v) {
  std::vector<uint8_t> b;
  for (int32_t x : v)
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(static_cast<uint32_t>(x) >> (8 * i)));
  return b;
}

TEST(HostTensor, TypeNamesRoundTripAndSizes) {
  const char* names[] = {"float16", "bfloat16", "float32", "int8",   "uint8", "int32",
                         "int64",   "bool",     "int4",    "uint16", "uint64"};
  const int bytes[] = {2, 2, 4, 1, 1, 4, 8, 1, 1, 2, 8};
  for (int i = 0; i < 11; ++i) {
    ElemType t;
    ASSERT_TRUE(parse_elem_type(names[i], t)) << names[i];
    EXPECT_EQ(static_cast<int>(t), i);
    EXPECT_EQ(elem_type_name(t), names[i]);
    EXPECT_EQ(elem_bytes(t), bytes[i]) << names[i];
  }
  ElemType t;
  EXPECT_FALSE(parse_elem_type("float64", t));
  EXPECT_FALSE(parse_elem_type("fp16", t));
}

TEST(HostTensor, SetRoundsFloatsToNearestEvenAndStoresLittleEndian) {
  HostTensor h = HostTensor::zeros(ElemType::F16, {3});
  h.set(0, 1 + std::ldexp(1, -11));  // halfway between 1 and 1 + 2^-10: even is 1
  h.set(1, 65520);                   // halfway between 65504 and 2^16: rounds to even = inf (IEEE)
  h.set(2, -0.0);
  EXPECT_EQ(h.get(0), 1.0);
  EXPECT_TRUE(std::isinf(h.get(1)));
  EXPECT_EQ((std::vector<uint8_t>{0x00, 0x3c, 0x00, 0x7c, 0x00, 0x80}), h.bytes);
  HostTensor b = HostTensor::zeros(ElemType::BF16, {1});
  b.set(0, 1 + 3 * std::ldexp(1, -8));  // halfway between 1 + 2^-7 and 1 + 2^-6: even is 1 + 2^-6
  EXPECT_EQ(b.get(0), 1 + std::ldexp(1, -6));
  HostTensor i = HostTensor::zeros(ElemType::I32, {1});
  i.set(0, 0x01020304);
  EXPECT_EQ((std::vector<uint8_t>{4, 3, 2, 1}), i.bytes);
  HostTensor l = HostTensor::zeros(ElemType::I64, {2});
  l.set(0, -9223372036854775808.0);
  l.set(1, -5);
  EXPECT_EQ(l.get(0), -9223372036854775808.0);
  EXPECT_EQ(l.get(1), -5);
}

TEST(HostTensor, IntegerSetRequiresAnIntegralInRangeValue) {
  struct Bad {
    ElemType t;
    double v;
  };
  for (const Bad& b :
       {Bad{ElemType::I8, 128}, Bad{ElemType::I8, 1.5}, Bad{ElemType::I4, -9}, Bad{ElemType::I4, 8},
        Bad{ElemType::U8, -1}, Bad{ElemType::Bool, 2}, Bad{ElemType::U16, 65536}, Bad{ElemType::I32, 2147483648.0},
        Bad{ElemType::I64, 9223372036854775808.0}, Bad{ElemType::I32, NAN}}) {
    HostTensor h = HostTensor::zeros(b.t, {1});
    EXPECT_NE(error_of([&] { h.set(0, b.v); }).find("is not a " + elem_type_name(b.t)), std::string::npos)
        << elem_type_name(b.t) << " " << b.v;
  }
  EXPECT_EQ(error_of([] { HostTensor::zeros(ElemType::F32, {2, -1}); }), "tensor shape has a negative size -1");
  HostTensor h = HostTensor::zeros(ElemType::I4, {2});
  h.set(0, -8);
  h.set(1, 7);
  EXPECT_EQ(values_of(h), (std::vector<double>{-8, 7}));
}

TEST(Npy, RoundTripsEveryType) {
  const auto dir = scratch_dir();
  const std::vector<double> fvals = {1.5, -2.25, 0.1, 65504, -0.0, 3e-5};
  for (int ti = 0; ti < 10; ++ti) {
    const auto t = static_cast<ElemType>(ti);
    const bool is_f = t == ElemType::F16 || t == ElemType::BF16 || t == ElemType::F32;
    const bool is_unsigned = t == ElemType::U8 || t == ElemType::U16 || t == ElemType::Bool;
    const std::vector<double> ivals =
        t == ElemType::Bool ? std::vector<double>{0, 1} : std::vector<double>{0, 1, 7, is_unsigned ? 3.0 : -8.0, 5};
    for (const auto& shape :
         {std::vector<int64_t>{2, 3}, std::vector<int64_t>{5}, std::vector<int64_t>{}, std::vector<int64_t>{0, 3}}) {
      const HostTensor h = filled(t, shape, is_f ? fvals : ivals);
      const std::string p = (dir / (std::to_string(ti) + ".npy")).string();
      write_npy(p, h);
      // bfloat16 comes back as its uint16 bit patterns and int4 as int8 values; the case conversion restores them.
      const HostTensor r = convert_for_case(read_npy(p), t, "x");
      EXPECT_EQ(r.type, t);
      EXPECT_EQ(r.shape, shape);
      EXPECT_EQ(r.bytes, h.bytes) << elem_type_name(t);
    }
  }
}

TEST(Npy, WritesVersion1HeaderPaddedToA64ByteBoundary) {
  const auto dir = scratch_dir();
  const std::string p = (dir / "a.npy").string();
  write_npy(p, filled(ElemType::F32, {2, 3}, {1}));
  std::ifstream f(p, std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_EQ(all.size(), 128u + 24u);  // 10 + 59-byte dict + '\n' rounds up to 128
  EXPECT_EQ(all.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(static_cast<uint8_t>(all[8]) | static_cast<uint8_t>(all[9]) << 8, 118);
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_EQ(all.substr(10, dict.size()), dict);
  EXPECT_EQ(all[127], '\n');
  EXPECT_EQ(all.find_first_not_of(' ', 10 + dict.size()), 127u);
}

TEST(Npy, ReadsFortranOrderAsCOrder) {
  const auto dir = scratch_dir();
  // a = [[1, 2, 3], [4, 5, 6]] stored column by column
  const std::string p = write_bytes(
      dir / "f.npy",
      npy_bytes(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }\n", le32({1, 4, 2, 5, 3, 6})));
  const HostTensor t = read_npy(p);
  EXPECT_EQ(t.type, ElemType::I32);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values_of(t), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  // 3-D: element (i, j, k) of a 2x3x4 array sits at i + 2j + 6k in Fortran order; store 100i + 10j + k there.
  std::vector<uint8_t> data(24);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) data[i + 2 * j + 6 * k] = static_cast<uint8_t>(100 * i + 10 * j + k);
  const HostTensor t3 = read_npy(
      write_bytes(dir / "f3.npy", npy_bytes(1, "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3, 4)}", data)));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(t3.get(12 * i + 4 * j + k), 100 * i + 10 * j + k);
}

TEST(Npy, ReadsVersion2And3Headers) {
  const auto dir = scratch_dir();
  const std::vector<uint8_t> data = {0x00, 0x3c, 0x00, 0xc0};  // fp16 1.0, -2.0
  for (int major : {2, 3}) {
    const std::string p = write_bytes(
        dir / "v.npy", npy_bytes(major, "{'descr': '<f2', 'fortran_order': False, 'shape': (2,), }      \n", data));
    const HostTensor t = read_npy(p);
    EXPECT_EQ(t.type, ElemType::F16);
    EXPECT_EQ(values_of(t), (std::vector<double>{1, -2}));
  }
}

TEST(Npy, ReadsBoolUint16AndTolerantDictSpellings) {
  const auto dir = scratch_dir();
  const HostTensor b = read_npy(
      write_bytes(dir / "b.npy", npy_bytes(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", {0, 1, 2})));
  EXPECT_EQ(b.type, ElemType::Bool);
  EXPECT_EQ(b.bytes, (std::vector<uint8_t>{0, 1, 1}));  // numpy reads any nonzero byte as True
  const HostTensor u = read_npy(write_bytes(
      dir / "u.npy",
      npy_bytes(1, "{\"shape\": (2L,), \"fortran_order\": False, \"descr\": \"<u2\"}", {0x80, 0x3f, 0xff, 0xff})));
  EXPECT_EQ(u.type, ElemType::U16);
  EXPECT_EQ(values_of(u), (std::vector<double>{0x3f80, 0xffff}));
  for (const char* d : {"|i1", "<i1", "=i1"})
    EXPECT_EQ(
        read_npy(write_bytes(
                     dir / "i.npy",
                     npy_bytes(1, std::string("{'descr': '") + d + "', 'fortran_order': False, 'shape': ()}", {0xfe})))
            .get(0),
        -2)
        << d;
  EXPECT_EQ(read_npy(write_bytes(dir / "n.npy", npy_bytes(1, "{'descr': '=i8', 'fortran_order': False, 'shape': ()}",
                                                          {5, 0, 0, 0, 0, 0, 0, 0})))
                .get(0),
            5);
}

TEST(Npy, EveryRejectionNamesTheFile) {
  const auto dir = scratch_dir();
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  struct Bad {
    std::string name;
    std::vector<uint8_t> bytes;
    std::string expect;
  };
  std::vector<uint8_t> bad_magic = npy_bytes(1, ok_dict, std::vector<uint8_t>(8));
  bad_magic[1] = 'X';
  const std::vector<Bad> cases = {
      {"f8.npy", npy_bytes(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", std::vector<uint8_t>(8)),
       "unsupported dtype '<f8'"},
      {"be.npy", npy_bytes(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", std::vector<uint8_t>(8)),
       "big-endian dtype '>f4'"},
      {"pipe.npy", npy_bytes(1, "{'descr': '|f4', 'fortran_order': False, 'shape': (2,), }", std::vector<uint8_t>(8)),
       "unsupported dtype '|f4'"},
      {"rec.npy",
       npy_bytes(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", std::vector<uint8_t>(8)),
       "structured dtypes"},
      {"magic.npy", bad_magic, "bad magic"},
      {"short.npy", {0x93, 'N', 'U'}, "bad magic"},
      {"ver.npy",
       [] {
         auto b = npy_bytes(1, "{}", {});
         b[6] = 4;
         return b;
       }(),
       "unsupported .npy format version 4.0"},
      {"trunc.npy", npy_bytes(1, ok_dict, std::vector<uint8_t>(7)),
       "truncated data: shape (2,) of <f4 needs 8 bytes, the file holds 7 bytes"},
      {"extra.npy", npy_bytes(1, ok_dict, std::vector<uint8_t>(9)), "shape/data size mismatch"},
      {"hdr.npy",
       [&] {
         auto b = npy_bytes(1, ok_dict, {});
         b.resize(30);
         return b;
       }(),
       "truncated .npy header"},
      {"nokey.npy", npy_bytes(1, "{'descr': '<f4', 'shape': (2,)}", std::vector<uint8_t>(8)), "lacks 'fortran_order'"},
      {"dup.npy", npy_bytes(1, "{'descr': '<f4', 'descr': '<f4'}", {}), "appears twice"},
      {"odd.npy", npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", {}),
       "unexpected key 'x'"},
      {"neg.npy", npy_bytes(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", {}),
       "non-negative integers"},
      {"fo.npy", npy_bytes(1, "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", {}), "True or False"},
      {"tail.npy", npy_bytes(1, ok_dict + " junk", std::vector<uint8_t>(8)), "unexpected text"},
  };
  for (const Bad& b : cases) {
    const std::string p = write_bytes(dir / b.name, b.bytes);
    const std::string err = error_of([&] { read_npy(p); });
    EXPECT_EQ(err.rfind(p + ": ", 0), 0u) << err;
    EXPECT_NE(err.find(b.expect), std::string::npos) << b.name << ": " << err;
  }
  const std::string missing = (dir / "missing.npy").string();
  EXPECT_EQ(error_of([&] { read_npy(missing); }), missing + ": cannot open .npy file (missing or unreadable)");
}

TEST(NpyConvert, Float32RoundsToHalfTypesNearestEven) {
  const double tie16 = 1 + std::ldexp(1, -11), tie16_up = 1 + 3 * std::ldexp(1, -11);
  const HostTensor f =
      filled(ElemType::F32, {5}, {tie16, tie16_up, tie16 + std::ldexp(1, -20), 65520, 1 + std::ldexp(1, -8)});
  const HostTensor h = convert_for_case(f, ElemType::F16, "query");
  EXPECT_EQ(h.type, ElemType::F16);
  EXPECT_EQ(h.get(0), 1.0);                     // tie to even
  EXPECT_EQ(h.get(1), 1 + std::ldexp(1, -9));   // tie to even (upwards)
  EXPECT_EQ(h.get(2), 1 + std::ldexp(1, -10));  // above the tie
  EXPECT_TRUE(std::isinf(h.get(3)));            // IEEE overflow, not saturation
  EXPECT_EQ(h.get(4), 1 + std::ldexp(1, -8));
  const HostTensor b = convert_for_case(f, ElemType::BF16, "query");
  EXPECT_EQ(b.get(4), 1.0);  // 1 + 2^-8 is the bf16 tie between 1 and 1 + 2^-7
  EXPECT_EQ(b.get(3), 65536.0);
}

TEST(NpyConvert, BitPatternsIntRangesAndIdentity) {
  const HostTensor u = filled(ElemType::U16, {2}, {0x3f80, 0xc000});
  const HostTensor b = convert_for_case(u, ElemType::BF16, "value");
  EXPECT_EQ(b.type, ElemType::BF16);
  EXPECT_EQ(values_of(b), (std::vector<double>{1, -2}));
  EXPECT_EQ(values_of(convert_for_case(filled(ElemType::I8, {3}, {-8, 0, 7}), ElemType::I4, "w")),
            (std::vector<double>{-8, 0, 7}));
  EXPECT_EQ(error_of([&] {
              convert_for_case(filled(ElemType::I8, {3}, {-8, 8, 7}), ElemType::I4, "inputs.w");
            }),
            "inputs.w: element 1 = 8 is out of range for int4 (the file's int8 values must be in [-8, 7])");
  EXPECT_EQ(convert_for_case(filled(ElemType::U8, {2}, {0, 1}), ElemType::Bool, "m").type, ElemType::Bool);
  EXPECT_NE(error_of([&] {
              convert_for_case(filled(ElemType::U8, {2}, {0, 2}), ElemType::Bool, "atten_mask");
            }).find("atten_mask: element 1 = 2"),
            std::string::npos);
  const HostTensor same = filled(ElemType::Bool, {2}, {1, 0});
  EXPECT_EQ(convert_for_case(same, ElemType::Bool, "m").bytes, same.bytes);
  EXPECT_EQ(error_of([&] { convert_for_case(filled(ElemType::F16, {1}, {1}), ElemType::F32, "query"); }),
            "query: the file holds float16 but the declared dtype is float32 (accepted: the same type, float32 -> "
            "float16 / bfloat16, uint16 -> bfloat16, int8 -> int4, uint8 -> bool)");
  EXPECT_NE(error_of([&] { convert_for_case(filled(ElemType::I32, {1}, {1}), ElemType::I4, "k"); }).find("holds int32"),
            std::string::npos);
}

TEST(NpyConvert, OutputEncodingWidensOnlyBf16) {
  const HostTensor b = filled(ElemType::BF16, {3}, {1.5, -3.0e38, 1e-40});
  const HostTensor o = output_encoding(b);
  EXPECT_EQ(o.type, ElemType::F32);
  EXPECT_EQ(values_of(o), values_of(b));  // exact
  for (ElemType t : {ElemType::F16, ElemType::F32, ElemType::I8}) {
    const HostTensor h = filled(t, {2}, {1, -2});
    const HostTensor e = output_encoding(h);
    EXPECT_EQ(e.type, t);
    EXPECT_EQ(e.bytes, h.bytes);
  }
}

}  // namespace
}  // namespace npusim::op
