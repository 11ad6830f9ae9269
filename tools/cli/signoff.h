#pragma once
// The numerics sign-off pieces of run / check / diff: inputs saved for replay on a board or in numpy, expected
// tensors read in an output's dtype, and the JSON forms of the accuracy and bit-comparison reports.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/accuracy/accuracy.h"
#include "kernels/accuracy/bit_compare.h"
#include "kernels/host/case_file.h"
#include "tools/cli/options.h"

namespace npusim::cli {

// OUT/inputs/NAME.npy for every input in its declared dtype's encoding (bf16 as uint16 bit patterns plus a float32
// twin NAME.f32.npy; tensor-list entries NAME.K.npy), and OUT/replay.yaml: the case with every input read from
// those files and the tiling as used, so the run replays bit for bit. Generated inputs without data (timing
// mode) are generated here.
void save_inputs(const op::CaseFile& c, const std::vector<std::pair<std::string, int64_t>>& tiling,
                 const std::string& out);

// An expected tensor from a .npy file in `type` (float32 files are rounded to fp16 / bf16 with RNE, uint16 files
// are bf16 bit patterns; see convert_for_case). Throws InputError naming the file.
op::HostTensor load_expected(const std::string& path, op::ElemType type);

nlohmann::json accuracy_json(const op::AccuracyReport& r);
nlohmann::json bits_json(const op::BitCompare& r);

// --ulp N / --atol X of check --expect and diff (InputError for a negative value or one without a comparison).
void add_tolerance_options(po::options_description& desc, op::BitTolerance& t);
void check_tolerance(const po::variables_map& vm, const op::BitTolerance& t, bool comparing, const std::string& needs);

// How a mismatch breakdown reads an output of a case: FIA's attention_out in BSH as (B, S, N, D) and in BSND (also
// BNSD_BSND's output) grouped by (b, n); nullopt = by leading indices.
std::optional<op::GroupView> output_view(const op::CaseFile& c, const std::string& output,
                                         const std::vector<int64_t>& shape);

}  // namespace npusim::cli
