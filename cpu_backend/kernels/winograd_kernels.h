#pragma once
// The contract between the Winograd solvers' loops (solvers/winograd_loops.cc) and their
// micro-kernels: what one call transforms, and the set of kernel variants, one per
// instruction set, that the running CPU can execute. Keeping it apart lets the loops pick
// a variant without seeing how it is written, and lets the tests run every variant against
// the scalar reference rather than only the one picked.
#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/winograd_vector.h"

namespace ucudnn::cpu::winograd {

// A chunk of up to kMaxTiles tiles of one tile row of one image, as kLanes-channel
// vectors: the input rows under it (the band) are transposed once per channel block, each
// tile's patch is then read from the band with plain vector loads. Tiles of a chunk cover
// at most kBandColumns - 2 input columns.
constexpr int kChunkColumns = 64;
constexpr int kBandColumns = kChunkColumns + 16;
template <int kM>
constexpr int kMaxTiles = kChunkColumns / kM;

// V[position][tile][c] = (B^T d B)[position] of each tile's kA x kA patch (kA = m + 2),
// for the channel blocks [first_block, end_block); lanes past `channels` get zeros.
struct InputArgs {
  const float* in;                      // the image, channel 0
  std::int64_t channels;                // that exist, all groups
  std::int64_t first_block, end_block;  // channel blocks of kLanes
  std::int64_t plane, h, w;
  std::int64_t ih, iw;  // input row and column of the first tile's patch
  int tiles;
  float* v;  // V at position 0, the first tile, channel 0
  std::int64_t position_stride, tile_stride;
  bool stream;  // V is 64-byte aligned: store it non-temporally
};

// out = alpha (A^T M A) + beta out for each tile's m x m outputs that lie inside the
// p x q image, for the channels < `channels` of the blocks [first_block, end_block).
struct OutputArgs {
  const float* m;  // M at position 0, the first tile, channel 0
  std::int64_t position_stride, tile_stride;
  std::int64_t channels;
  std::int64_t first_block, end_block;
  float* out;  // the image, channel 0
  std::int64_t plane, p, q;
  std::int64_t oh, ow;  // output row and column of the first tile
  int tiles;
  float alpha, beta;
  bool accumulate;  // beta != 0: read the output
};

// U[position][lane] = (G g G^T)[position] of the 3x3 filter of each of `lanes` input
// channels of one output channel.
struct FilterArgs {
  const float* w;  // tap (0, 0) of the first input channel
  std::int64_t ci_stride, r_stride, s_stride;
  int lanes;  // input channels in this block
  float* u;   // U at position 0, the output channel's row, the first input channel
  std::int64_t position_stride;
  bool stream;  // a whole block, 64-byte aligned: store it non-temporally
};

// The three micro-kernels of F(m x m, 3 x 3) compiled for one instruction set.
struct KernelVariant {
  std::string_view isa;  // "avx512", "avx2", "baseline", "scalar_reference"
  void (*input)(const InputArgs&);
  void (*output)(const OutputArgs&);
  void (*filter)(const FilterArgs&);
};

// Every variant of F(m x m, 3 x 3), m = 2 or 4, that the running CPU supports, widest
// instruction set first (the baseline is always there).
std::vector<KernelVariant> supported_kernel_variants(int m);

// The variant the solvers use: the widest the CPU supports, chosen once.
const KernelVariant& selected_kernel_variant(int m);

// The portable scalar reference (winograd_reference_kernels.cc): plain loops over the
// matrices, slow, for checking the variants.
KernelVariant reference_kernel_variant(int m);

}  // namespace ucudnn::cpu::winograd
