// Variant packs as the threads that build them record them (shim/backend/thread_variant_packs.h):
// a pack is found with its pointers wherever it was built, on a live thread or one that ended,
// and wherever it is set, finalized or destroyed; a destroyed pack and one whose attributes
// ucudnn does not record read as unknown, and nothing else makes a pack unknown. The
// descriptors are addresses only: nothing here reaches cuDNN.
#include "shim/backend/thread_variant_packs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <thread>
#include <vector>

namespace ucudnn::shim::backend {
namespace {

using Packs = ThreadVariantPacks;

// A descriptor address of its own for each test and index.
cudnnBackendDescriptor_t descriptor(std::uintptr_t test, std::uintptr_t index) {
  return reinterpret_cast<cudnnBackendDescriptor_t>((test << 32) + (index + 1) * 16);
}

void* address(std::uintptr_t value) {
  return reinterpret_cast<void*>(value);
}

// The pack built as PyTorch builds one: ids, pointers and workspace, finalized.
void build(cudnnBackendDescriptor_t pack, std::int64_t uid, void* pointer, void* workspace) {
  Packs::created(pack);
  ASSERT_TRUE(Packs::set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 1, &uid));
  ASSERT_TRUE(
      Packs::set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 1, &pointer));
  ASSERT_TRUE(
      Packs::set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace));
  ASSERT_TRUE(Packs::finalized(pack));
}

void on_a_thread_that_ends(const std::function<void()>& step) {
  std::thread thread(step);
  thread.join();
}

TEST(ThreadVariantPacks, APackIsReadOnTheThreadThatBuiltIt) {
  const auto pack = descriptor(1, 0);
  Packs::created(pack);
  const std::int64_t uids[2] = {7, 9};
  void* pointers[2] = {address(0x7000), address(0x9000)};
  ASSERT_TRUE(Packs::set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 2, uids));
  ASSERT_TRUE(
      Packs::set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 2, pointers));
  VariantPack found;
  EXPECT_FALSE(Packs::find(pack, found)) << "not finalized yet";
  ASSERT_TRUE(Packs::finalized(pack));
  ASSERT_TRUE(Packs::find(pack, found));
  EXPECT_EQ(found.pointer(9), address(0x9000));
  EXPECT_EQ(found.pointer(7), address(0x7000));
  EXPECT_EQ(found.pointer(8), nullptr);
  EXPECT_EQ(found.workspace, nullptr);
  ASSERT_TRUE(Packs::destroyed(pack));
  EXPECT_FALSE(Packs::find(pack, found));
  EXPECT_FALSE(Packs::destroyed(pack));
}

TEST(ThreadVariantPacks, APackBuiltOnAThreadThatEndedIsFoundAndDestroyedElsewhere) {
  const auto pack = descriptor(2, 0);
  on_a_thread_that_ends([&] { build(pack, 3, address(0x3000), address(0xa000)); });
  VariantPack found;
  ASSERT_TRUE(Packs::find(pack, found));
  EXPECT_EQ(found.pointer(3), address(0x3000));
  EXPECT_EQ(found.workspace, address(0xa000));
  // Not this thread's own: found among the ended threads' packs only.
  EXPECT_FALSE(Packs::destroyed(pack));
  bool destroyed = false;
  on_a_thread_that_ends([&] { destroyed = Packs::destroyed_elsewhere(pack); });
  EXPECT_TRUE(destroyed);
  EXPECT_FALSE(Packs::find(pack, found));
  EXPECT_FALSE(Packs::destroyed_elsewhere(pack));
}

TEST(ThreadVariantPacks, ALiveThreadsPackIsSetFinalizedAndReadFromAnother) {
  const auto pack = descriptor(3, 0);
  std::atomic<int> stage{0};
  VariantPack seen_by_creator;
  bool creator_found = false;
  std::thread creator([&] {
    Packs::created(pack);
    stage = 1;
    while (stage != 2) std::this_thread::yield();
    creator_found = Packs::find(pack, seen_by_creator);
    stage = 3;
    while (stage != 4) std::this_thread::yield();  // alive while the main thread reads
  });
  while (stage != 1) std::this_thread::yield();
  const std::int64_t uid = 5;
  void* pointer = address(0x5000);
  EXPECT_FALSE(Packs::set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 1, &uid));
  EXPECT_TRUE(
      Packs::set_elsewhere(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 1, &uid));
  EXPECT_TRUE(Packs::set_elsewhere(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
                                   1, &pointer));
  EXPECT_FALSE(Packs::finalized(pack));
  EXPECT_TRUE(Packs::finalized_elsewhere(pack));
  stage = 2;
  while (stage != 3) std::this_thread::yield();
  EXPECT_TRUE(creator_found);
  EXPECT_EQ(seen_by_creator.pointer(5), address(0x5000));
  VariantPack found;
  EXPECT_TRUE(Packs::find(pack, found));  // no ASSERT: the creator waits for stage 4
  EXPECT_EQ(found.pointer(5), address(0x5000));
  // Initialized elsewhere: emptied, as cuDNN empties it.
  EXPECT_TRUE(Packs::initialized_elsewhere(pack));
  EXPECT_FALSE(Packs::find(pack, found));
  stage = 4;
  creator.join();
  EXPECT_TRUE(Packs::destroyed_elsewhere(pack));  // handed over as the creator ended
}

TEST(ThreadVariantPacks, APackWithAttributesUcudnnDoesNotRecordIsUnknown) {
  const auto pack = descriptor(4, 0);
  build(pack, 1, address(0x1000), nullptr);
  void* intermediate = address(0x2000);
  ASSERT_TRUE(Packs::set(pack, CUDNN_ATTR_VARIANT_PACK_INTERMEDIATES, CUDNN_TYPE_VOID_PTR, 1,
                         &intermediate));
  VariantPack found;
  EXPECT_FALSE(Packs::find(pack, found));
  // More tensors than a record keeps.
  const auto wide = descriptor(4, 1);
  build(wide, 1, address(0x1000), nullptr);
  std::vector<std::int64_t> uids(VariantPack::kMaxTensors + 1, 1);
  ASSERT_TRUE(Packs::set(wide, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64,
                         static_cast<std::int64_t>(uids.size()), uids.data()));
  EXPECT_FALSE(Packs::find(wide, found));
  Packs::destroyed(pack);
  Packs::destroyed(wide);
}

TEST(ThreadVariantPacks, ADestructionNoRecordKnewLeavesEveryPackKnown) {
  // Descriptors of other kinds, and packs whose records were dropped, are destroyed all the
  // time: the packs in flight on every thread stay known.
  const auto ended = descriptor(5, 0);
  on_a_thread_that_ends([&] { build(ended, 2, address(0x2000), nullptr); });
  EXPECT_FALSE(Packs::destroyed(descriptor(5, 1)));
  EXPECT_FALSE(Packs::destroyed_elsewhere(descriptor(5, 1)));
  // A thread that keeps more packs than it records forgets the oldest; destroying that one
  // touches no other pack.
  std::vector<cudnnBackendDescriptor_t> kept;
  for (std::uintptr_t i = 0; i < 65; ++i) {
    kept.push_back(descriptor(5, 10 + i));
    build(kept.back(), 3, address(0x3000 + i), nullptr);
  }
  VariantPack found;
  EXPECT_FALSE(Packs::find(kept.front(), found)) << "the oldest of 65 is forgotten";
  EXPECT_FALSE(Packs::destroyed(kept.front()));
  EXPECT_FALSE(Packs::destroyed_elsewhere(kept.front()));
  ASSERT_TRUE(Packs::find(ended, found));
  EXPECT_EQ(found.pointer(2), address(0x2000));
  for (std::size_t i = 1; i < kept.size(); ++i) {
    ASSERT_TRUE(Packs::find(kept[i], found)) << "pack " << i;
    EXPECT_EQ(found.pointer(3), address(0x3000 + i));
    EXPECT_TRUE(Packs::destroyed(kept[i]));
  }
  EXPECT_TRUE(Packs::destroyed_elsewhere(ended));
}

// Calls made as a thread ends, after its records went to the ended threads' (another
// thread-local's destructor destroying descriptors).
struct AtThreadEnd {
  cudnnBackendDescriptor_t pack = nullptr, late = nullptr;
  bool destroyed_own = true, destroyed_elsewhere = false, found_late = true;
  ~AtThreadEnd() {
    if (!pack) return;
    destroyed_own = Packs::destroyed(pack);
    destroyed_elsewhere = Packs::destroyed_elsewhere(pack);
    Packs::created(late);
    VariantPack found;
    found_late = Packs::find(late, found);
    results = *this;
    results.pack = nullptr;
  }
  static AtThreadEnd results;
};
AtThreadEnd AtThreadEnd::results;
thread_local AtThreadEnd at_thread_end;

TEST(ThreadVariantPacks, CallsAsAThreadEndsReachTheRecordsItLeft) {
  on_a_thread_that_ends([] {
    // Constructed before the thread's records, so destroyed after them.
    at_thread_end.pack = descriptor(8, 0);
    at_thread_end.late = descriptor(8, 1);
    build(at_thread_end.pack, 1, address(0x1000), nullptr);
  });
  EXPECT_FALSE(AtThreadEnd::results.destroyed_own);
  EXPECT_TRUE(AtThreadEnd::results.destroyed_elsewhere);
  EXPECT_FALSE(AtThreadEnd::results.found_late) << "a pack created as its thread ends is unknown";
  VariantPack found;
  EXPECT_FALSE(Packs::find(descriptor(8, 0), found));
}

TEST(ThreadVariantPacks, EndedThreadsKeepTheirNewestPacksOnly) {
  // Threads that end without destroying their packs: the newest 256 stay known, older ones go.
  constexpr int kThreads = 5, kPerThread = 64;
  for (int t = 0; t < kThreads; ++t)
    on_a_thread_that_ends([&] {
      for (int i = 0; i < kPerThread; ++i)
        build(descriptor(6, static_cast<std::uintptr_t>(t * kPerThread + i)), i,
              address(0x1000 + static_cast<std::uintptr_t>(i)), nullptr);
    });
  int known = 0;
  for (int i = 0; i < kThreads * kPerThread; ++i) {
    VariantPack found;
    const bool found_it = Packs::find(descriptor(6, static_cast<std::uintptr_t>(i)), found);
    EXPECT_EQ(found_it, i >= kThreads * kPerThread - 256) << "pack " << i;
    known += found_it;
  }
  EXPECT_EQ(known, 256);
  for (int i = 0; i < kThreads * kPerThread; ++i)
    Packs::destroyed_elsewhere(descriptor(6, static_cast<std::uintptr_t>(i)));
}

TEST(ThreadVariantPacks, ThreadsBuildingAndReadingAtOnceEachSeeTheirOwnPointers) {
  // Each worker builds, reads and destroys its packs, as PyTorch's forward and autograd threads
  // do, while this thread looks through every thread's records (a destruction it cannot place).
  const unsigned seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  constexpr int kWorkers = 3, kRounds = 4000;
  std::atomic<bool> done{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w)
    workers.emplace_back([&, w] {
      std::mt19937 random(seed + static_cast<unsigned>(w));
      for (int round = 0; round < kRounds; ++round) {
        const auto pack = descriptor(7, static_cast<std::uintptr_t>(w * 8 + random() % 8));
        const auto value = static_cast<std::uintptr_t>(random() % 1000 + 1);
        build(pack, w, address(value), nullptr);
        VariantPack found;
        if (!Packs::find(pack, found) || found.pointer(w) != address(value)) ++wrong;
        Packs::destroyed(pack);
      }
    });
  // It reads the workers' packs too: some it finds, mid-build or not.
  std::thread looker([&] {
    std::mt19937 random(seed);
    VariantPack found;
    while (!done) {
      Packs::destroyed_elsewhere(descriptor(7, 1000));
      if (Packs::find(descriptor(7, random() % (kWorkers * 8)), found) && found.pointer_count != 1)
        ++wrong;
    }
  });
  for (auto& worker : workers) worker.join();
  done = true;
  looker.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace ucudnn::shim::backend
