// Every Winograd micro-kernel variant the running CPU supports (AVX-512, AVX2, baseline),
// against the scalar reference, on random shapes and data: the solver tests only ever run
// the variant picked for this machine, so a broken narrower variant would pass them here
// and fail on another CPU. Shapes include partial tiles, partial channel blocks, padding,
// narrow images (the whole-row paths) and unaligned buffers (the plain-store paths).
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "kernels/winograd_kernels.h"
#include "support/random_seed.h"

namespace ucudnn::cpu::winograd {
namespace {

using ucudnn::testing::SeededRandom;

constexpr int kCases = 300;  // per kernel, tile size and variant
constexpr int kTileSizes[] = {2, 4};

std::int64_t round_up(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b * b;
}

// Floats at a 64-byte aligned address, or one float past one (to reach the unaligned
// paths), filled with values in [-1, 1].
class Floats {
 public:
  Floats(std::size_t count, bool aligned, SeededRandom& random) : storage_(count + 32) {
    const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
    data_ = storage_.data() + (64 - address % 64) % 64 / sizeof(float) + (aligned ? 0 : 1);
    count_ = count;
    std::uniform_real_distribution<float> uniform(-1, 1);
    for (std::size_t i = 0; i < count_; ++i) data_[i] = uniform(random.engine());
  }
  Floats(const Floats& other) : Floats(other.count_, other.aligned()) {
    std::copy(other.data_, other.data_ + count_, data_);
  }
  Floats& operator=(const Floats&) = delete;
  float* data() { return data_; }
  const float* data() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  Floats(std::size_t count, bool aligned) : storage_(count + 32), count_(count) {
    const auto address = reinterpret_cast<std::uintptr_t>(storage_.data());
    data_ = storage_.data() + (64 - address % 64) % 64 / sizeof(float) + (aligned ? 0 : 1);
  }
  bool aligned() const { return reinterpret_cast<std::uintptr_t>(data_) % 64 == 0; }

  std::vector<float> storage_;
  float* data_ = nullptr;
  std::size_t count_ = 0;
};

// Every element of `got` within a few float roundings (of the largest expected magnitude)
// of `expected`, including those neither kernel should have written. Reports the first
// few differences; false if any.
bool expect_close(const Floats& got, const Floats& expected, const std::string& what) {
  float scale = 1e-30f;
  for (std::size_t i = 0; i < expected.size(); ++i)
    scale = std::max(scale, std::fabs(expected.data()[i]));
  const float tolerance = 128 * FLT_EPSILON * scale;
  int mismatches = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const float g = got.data()[i], e = expected.data()[i];
    if (std::fabs(g - e) <= tolerance) continue;
    if (++mismatches <= 5)
      ADD_FAILURE() << what << ": element " << i << " is " << g << ", expected " << e
                    << " (tolerance " << tolerance << ")";
  }
  EXPECT_EQ(mismatches, 0) << what;
  return mismatches == 0;
}

std::string describe(const KernelVariant& variant, int m, int index) {
  return std::string(variant.isa) + " F(" + std::to_string(m) + "x" + std::to_string(m) +
         ", 3x3) case " + std::to_string(index);
}

// What the input and the output transforms' arguments share, drawn as the solver sets them:
// the channels and the range of their lane blocks a call covers; an image of 1 to 20 rows,
// narrower than one lane block or wider; the strides of the transformed tiles, padded or not.
template <typename Args>
void draw_channel_blocks(SeededRandom& random, Args& a) {
  a.channels = random.uniform(1, 3 * kLanes);
  const std::int64_t blocks = (a.channels + kLanes - 1) / kLanes;
  a.first_block = random.uniform(0, blocks - 1);
  a.end_block = random.uniform(a.first_block + 1, blocks);
}

struct ImageSize {
  std::int64_t rows, columns;
};
ImageSize draw_image_size(SeededRandom& random) {
  const std::int64_t rows = random.uniform(1, 20);
  return {rows, random.chance(0.5) ? random.uniform(1, kLanes - 1) : random.uniform(kLanes, 90)};
}

template <typename Args>
void draw_tile_strides(SeededRandom& random, Args& a) {
  a.tile_stride = round_up(a.channels, kLanes) + kLanes * random.uniform(0, 1);
  a.position_stride = a.tiles * a.tile_stride + kLanes * random.uniform(0, 2);
}

template <typename Args>
std::string describe_blocks(const Args& a, std::int64_t rows, std::int64_t columns) {
  return " (channels " + std::to_string(a.channels) + ", blocks " + std::to_string(a.first_block) +
         ".." + std::to_string(a.end_block) + ", " + std::to_string(rows) + "x" +
         std::to_string(columns) + ", tiles " + std::to_string(a.tiles);
}

// The variant's kernel and the scalar reference's on the same arguments, each writing its
// own copy of the output (`got`, `expected`).
template <typename Args>
void run_beside_reference(void (*kernel)(const Args&), void (*reference_kernel)(const Args&),
                          Args a, float* Args::*output, Floats& got, Floats& expected) {
  Args reference = a;
  a.*output = got.data(), reference.*output = expected.data();
  kernel(a);
  reference_kernel(reference);
}

TEST(WinogradKernels, EnumeratesTheVariantsTheCpuSupports) {
  for (int m : kTileSizes) {
    const std::vector<KernelVariant> variants = supported_kernel_variants(m);
    std::set<std::string_view> names;
    for (const KernelVariant& v : variants) {
      std::cout << "[ variant  ] F(" << m << "x" << m << ", 3x3) " << v.isa << "\n";
      EXPECT_TRUE(names.insert(v.isa).second) << v.isa;
      EXPECT_TRUE(v.input && v.output && v.filter) << v.isa;
    }
    ASSERT_FALSE(variants.empty());
    EXPECT_EQ(variants.back().isa, "baseline");
    EXPECT_EQ(selected_kernel_variant(m).isa, variants.front().isa);
    EXPECT_EQ(selected_kernel_variant(m).input, variants.front().input);
#if defined(__x86_64__) && defined(__GNUC__)
    EXPECT_EQ(names.count("avx512"), __builtin_cpu_supports("avx512f") ? 1u : 0u);
    EXPECT_EQ(names.count("avx2"),
              __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1u : 0u);
#endif
  }
}

TEST(WinogradKernels, InputTransformMatchesScalarReference) {
  SeededRandom random;
  for (int m : kTileSizes) {
    const int alpha = m + 2, max_tiles = kChunkColumns / m;
    for (const KernelVariant& variant : supported_kernel_variants(m))
      for (int index = 0; index < kCases; ++index) {
        InputArgs a;
        draw_channel_blocks(random, a);
        const auto [h, w] = draw_image_size(random);
        a.h = h, a.w = w, a.plane = h * w;
        a.tiles = static_cast<int>(random.uniform(1, max_tiles));
        a.ih = random.uniform(-alpha, a.h);
        // Often the padded start of a row (as a chunk at column 0 is), else anywhere.
        a.iw = random.chance(0.4) ? -random.uniform(0, 2) : random.uniform(-alpha, a.w);
        draw_tile_strides(random, a);
        a.stream = random.chance(0.5);
        const bool aligned = a.stream || random.chance(0.5);
        const Floats in(static_cast<std::size_t>(a.channels * a.plane), random.chance(0.5), random);
        Floats got(static_cast<std::size_t>(alpha * alpha * a.position_stride), aligned, random);
        Floats expected = got;
        a.in = in.data();
        run_beside_reference(variant.input, reference_kernel_variant(m).input, a, &InputArgs::v,
                             got, expected);
        if (!expect_close(got, expected,
                          describe(variant, m, index) + describe_blocks(a, a.h, a.w) + ", ih " +
                              std::to_string(a.ih) + ", iw " + std::to_string(a.iw) + ")"))
          break;  // one failing case per variant is enough to read
      }
  }
}

TEST(WinogradKernels, OutputTransformMatchesScalarReference) {
  SeededRandom random;
  std::uniform_real_distribution<float> scale(-2, 2);
  for (int m : kTileSizes) {
    const int alpha = m + 2, max_tiles = kChunkColumns / m;
    for (const KernelVariant& variant : supported_kernel_variants(m))
      for (int index = 0; index < kCases; ++index) {
        OutputArgs a;
        draw_channel_blocks(random, a);
        const auto [p, q] = draw_image_size(random);
        a.p = p, a.q = q, a.plane = p * q;
        // A chunk of tiles as the solver cuts them: within the image's tile columns, often
        // all of a narrow row (the whole-row path).
        const std::int64_t tile_rows = (a.p + m - 1) / m, tile_cols = (a.q + m - 1) / m;
        const bool whole_row = random.chance(0.3);
        const std::int64_t col = whole_row ? 0 : random.uniform(0, tile_cols - 1);
        const std::int64_t most = std::min<std::int64_t>(max_tiles, tile_cols - col);
        a.tiles = static_cast<int>(whole_row ? most : random.uniform(1, most));
        a.oh = m * random.uniform(0, tile_rows - 1), a.ow = m * col;
        draw_tile_strides(random, a);
        a.alpha = random.chance(0.3) ? 1.0f : scale(random.engine());
        a.accumulate = random.chance(0.5);
        a.beta = a.accumulate ? scale(random.engine()) : 0.0f;
        const Floats mm(static_cast<std::size_t>(alpha * alpha * a.position_stride),
                        random.chance(0.5), random);
        Floats got(static_cast<std::size_t>(a.channels * a.plane), random.chance(0.5), random);
        Floats expected = got;
        a.m = mm.data();
        run_beside_reference(variant.output, reference_kernel_variant(m).output, a,
                             &OutputArgs::out, got, expected);
        if (!expect_close(got, expected,
                          describe(variant, m, index) + describe_blocks(a, a.p, a.q) + ", oh " +
                              std::to_string(a.oh) + ", ow " + std::to_string(a.ow) + ", beta " +
                              std::to_string(a.beta) + ")"))
          break;  // one failing case per variant is enough to read
      }
  }
}

TEST(WinogradKernels, FilterTransformMatchesScalarReference) {
  SeededRandom random;
  for (int m : kTileSizes) {
    const int alpha = m + 2;
    for (const KernelVariant& variant : supported_kernel_variants(m))
      for (int index = 0; index < kCases; ++index) {
        // The taps as the solver addresses them: KCRS, or (BackwardData) rotated by 180
        // degrees with K and C swapped, so that strides may be negative or wide.
        const std::int64_t outputs = random.uniform(1, 3), output = random.uniform(0, outputs - 1);
        const bool rotated = random.chance(0.5), swapped = random.chance(0.5);
        FilterArgs a;
        a.lanes = random.chance(0.5) ? kLanes : static_cast<int>(random.uniform(1, kLanes - 1));
        a.ci_stride = swapped ? 9 * outputs : 9;
        a.r_stride = rotated ? -3 : 3, a.s_stride = rotated ? -1 : 1;
        const std::int64_t base = (swapped ? 9 * output : 9 * kLanes * output) + (rotated ? 8 : 0);
        a.stream = a.lanes == kLanes && random.chance(0.5);
        a.position_stride =
            kLanes * random.uniform(1, 3) + (a.stream ? 0 : random.uniform(0, kLanes - 1));
        const bool aligned = a.stream || random.chance(0.5);
        const Floats taps(static_cast<std::size_t>(9 * kLanes * outputs), random.chance(0.5),
                          random);
        Floats got(static_cast<std::size_t>(alpha * alpha * a.position_stride), aligned, random);
        Floats expected = got;
        a.w = taps.data() + base;
        run_beside_reference(variant.filter, reference_kernel_variant(m).filter, a, &FilterArgs::u,
                             got, expected);
        if (!expect_close(got, expected,
                          describe(variant, m, index) + " (lanes " + std::to_string(a.lanes) +
                              (rotated ? ", rotated" : "") + (swapped ? ", K and C swapped" : "") +
                              (a.stream ? ", streamed" : "") + ")"))
          break;  // one failing case per variant is enough to read
      }
  }
}

}  // namespace
}  // namespace ucudnn::cpu::winograd
