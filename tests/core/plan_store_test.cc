// The in-memory pieces the stores are built from: a plan shelf answering ranges of limits,
// and the bounded map the shim remembers plans and warnings in.
#include <gtest/gtest.h>

#include "core/lru_map.h"
#include "core/memory_store.h"
#include "core/plan_shelf.h"

namespace ucudnn {
namespace {

std::vector<Configuration> plan_named(const std::string& algorithm) {
  return {Configuration{{{"cudnn", algorithm, 8, 1.0, 0}}}};
}

PlanKey key_at(std::uint64_t limit, const std::string& subject = "k") {
  return {"gpu", subject, "powerOfTwo", limit, "WR"};
}

TEST(PlanShelf, AnswersEveryLimitOfARangeAndNothingOutside) {
  PlanShelf shelf;
  shelf.put(key_at(150), plan_named("A"), {100, 200});
  shelf.put(key_at(250), plan_named("B"), {200, LimitRange::kUnbounded});
  EXPECT_FALSE(shelf.find(key_at(99)));
  EXPECT_EQ(shelf.find(key_at(100)), plan_named("A"));
  EXPECT_EQ(shelf.find(key_at(199)), plan_named("A"));
  EXPECT_EQ(shelf.find(key_at(200)), plan_named("B"));
  EXPECT_EQ(shelf.find(key_at(LimitRange::kUnbounded)), plan_named("B"));
  EXPECT_FALSE(shelf.find(key_at(150, "other kernel")));
}

// Ranges of a subject overlap where plans were made from different measurements: the newest
// answers its whole range (the older one, starting higher, used to answer above the newer's start
// with a plan made from measurements since replaced).
TEST(PlanShelf, TheNewestOfOverlappingPlansAnswersItsWholeRange) {
  PlanShelf shelf;
  shelf.put(key_at(10), plan_named("low"), {0, 1000});
  shelf.put(key_at(500), plan_named("high"), {400, 600});
  EXPECT_FALSE(shelf.find(key_at(300))) << "the older plan over the newer's range is gone";
  EXPECT_EQ(shelf.find(key_at(500)), plan_named("high"));
  EXPECT_FALSE(shelf.find(key_at(700)));
  shelf.put(key_at(300), plan_named("newest"), {200, 450});
  EXPECT_EQ(shelf.find(key_at(420)), plan_named("newest"));
  EXPECT_FALSE(shelf.find(key_at(500)));
  shelf.put(key_at(450), plan_named("beside"), {450, 900});
  EXPECT_EQ(shelf.find(key_at(449)), plan_named("newest")) << "ranges that only touch both stay";
  EXPECT_EQ(shelf.find(key_at(450)), plan_named("beside"));
  // What is loaded from a file, newest first: an older overlapping row is not taken.
  shelf.put_if_absent(key_at(460), plan_named("older"), {440, 460});
  EXPECT_EQ(shelf.find(key_at(445)), plan_named("newest"));
  shelf.put_if_absent(key_at(950), plan_named("older, apart"), {950, LimitRange::kUnbounded});
  EXPECT_EQ(shelf.find(key_at(LimitRange::kUnbounded)), plan_named("older, apart"));
  shelf.put(key_at(5), plan_named("everything"), {0, LimitRange::kUnbounded});
  for (std::uint64_t limit : {std::uint64_t{0}, std::uint64_t{450}, LimitRange::kUnbounded})
    EXPECT_EQ(shelf.find(key_at(limit)), plan_named("everything"));
}

TEST(LimitRange, OverlapsWhereSomeLimitIsInBoth) {
  EXPECT_TRUE((LimitRange{0, 10}.overlaps({9, 20})));
  EXPECT_FALSE((LimitRange{0, 10}.overlaps({10, 20})));
  EXPECT_TRUE((LimitRange{5, 6}.overlaps({0, LimitRange::kUnbounded})));
  EXPECT_TRUE((LimitRange::exactly(LimitRange::kUnbounded).overlaps({7, LimitRange::kUnbounded})));
  EXPECT_FALSE((LimitRange::exactly(7).overlaps(LimitRange::exactly(8))));
}

TEST(PlanShelf, AnExactRangeAnswersOneLimit) {
  MemoryStore store;
  store.put_plan(key_at(64), plan_named("X"));
  EXPECT_EQ(store.find_plan(key_at(64)), plan_named("X"));
  EXPECT_FALSE(store.find_plan(key_at(63)));
  EXPECT_FALSE(store.find_plan(key_at(65)));
  store.put_plan(key_at(LimitRange::kUnbounded), plan_named("Y"));
  EXPECT_EQ(store.find_plan(key_at(LimitRange::kUnbounded)), plan_named("Y"));
}

TEST(LruMap, KeepsTheMostRecentlyUsedWithinItsCapacity) {
  LruMap<int, std::string> map(3);
  map[1] = "one";
  map[2] = "two";
  map[3] = "three";
  ASSERT_NE(map.find(1), nullptr);  // 1 is now the most recent
  map[4] = "four";                  // 2 goes
  EXPECT_EQ(map.size(), 3u);
  EXPECT_EQ(map.find(2), nullptr);
  EXPECT_EQ(*map.find(1), "one");
  EXPECT_EQ(*map.find(3), "three");
  EXPECT_EQ(*map.find(4), "four");
  EXPECT_TRUE(map.insert(5));
  EXPECT_FALSE(map.insert(5));
  EXPECT_EQ(map.find(1), nullptr);
  map.clear();
  EXPECT_EQ(map.size(), 0u);
}

TEST(LruMap, StaysBoundedHoweverManyKeysCome) {
  LruMap<int, int> map(3);
  for (int i = 0; i < 10000; ++i) map[i] = i;
  EXPECT_EQ(map.size(), 3u);
  EXPECT_EQ(*map.find(9999), 9999);
  EXPECT_EQ(map.find(9996), nullptr);
}

}  // namespace
}  // namespace ucudnn
