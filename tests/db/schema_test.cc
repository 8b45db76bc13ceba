#include "db/schema.h"

#include <gtest/gtest.h>

#include "db/database_file.h"
#include "db_test_support.h"

namespace ucudnn::db {
namespace {

using namespace ucudnn::testing;

TEST(Schema, MigrationsAreConsecutiveFromVersionOne) {
  int expected = 1;
  for (const auto& step : migrations()) EXPECT_EQ(step.to_version, expected++);
  EXPECT_EQ(schema_version(), expected - 1);
  EXPECT_GE(schema_version(), 1);
}

TEST(Schema, ANewFileGetsTheApplicationIdAndTheSchema) {
  TempFolder folder;
  const auto path = folder.file("new.db");
  auto opened = open_database(path, Access::kReadWrite);
  ASSERT_TRUE(opened.database) << opened.failure->message;
  EXPECT_EQ(opened.database->schema_version, 0);
  auto& c = opened.database->connection;
  EXPECT_EQ(c.query_integer("PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(c.query_integer("PRAGMA user_version"), schema_version());
  EXPECT_EQ(c.query_text("PRAGMA journal_mode"), "delete");
  EXPECT_TRUE(schema_complete(c));
}

TEST(Schema, MigrationsRunInOrderAndOnlyOnce) {
  TempFolder folder;
  const Migration steps[] = {
      {1, "CREATE TABLE a (x); PRAGMA user_version = 1;"},
      {2, "ALTER TABLE a ADD COLUMN y; INSERT INTO a VALUES (1, 2); PRAGMA user_version = 2;"},
      {3, "CREATE TABLE c AS SELECT x + y AS z FROM a; PRAGMA user_version = 3;"},
  };
  auto c = raw_connection(folder.file("m.db"));
  EXPECT_EQ(migrate(c, std::span(steps).first(1)), 0);
  EXPECT_EQ(c.query_integer("PRAGMA user_version"), 1);
  EXPECT_EQ(migrate(c, steps), 1) << "from version 1, only the later steps run";
  EXPECT_EQ(c.query_integer("PRAGMA user_version"), 3);
  EXPECT_EQ(c.query_integer("SELECT z FROM c"), 3);
  EXPECT_EQ(migrate(c, steps), 3);
  EXPECT_EQ(c.query_integer("SELECT count(*) FROM a"), 1) << "nothing ran twice";
}

TEST(Schema, AFailedMigrationChangesNothing) {
  TempFolder folder;
  const Migration steps[] = {
      {1, "CREATE TABLE a (x); PRAGMA user_version = 1;"},
      {2, "CREATE TABLE b (x); THIS IS NOT SQL;"},
  };
  auto c = raw_connection(folder.file("m.db"));
  EXPECT_THROW(migrate(c, steps), sqlite::Error);
  EXPECT_EQ(c.query_integer("PRAGMA user_version"), 0);
  EXPECT_EQ(c.query_integer("SELECT count(*) FROM sqlite_schema"), 0);
}

TEST(Schema, ReadOnlyAccessNeverMigrates) {
  TempFolder folder;
  const auto path = folder.file("empty.db");
  write_file(path, "");
  auto opened = open_database(path, Access::kReadOnly);
  ASSERT_FALSE(opened.database);
  EXPECT_EQ(opened.failure->problem, FileProblem::kOlderSchema);
  EXPECT_EQ(read_file(path), "");
  EXPECT_EQ(open_database(folder.file("missing.db"), Access::kReadOnly).failure->problem,
            FileProblem::kCannotOpen);
}

// A file with ucudnn's application id and no schema version is none of ucudnn's versions, read
// only or not: said as it is, not as an empty database.
TEST(Schema, ReadOnlyAFileOfVersionZeroWithOurIdIsNamedByItsVersion) {
  TempFolder folder;
  const auto path = folder.file("zero.db");
  {
    auto raw = sqlite::Connection::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    raw.execute(("PRAGMA application_id = " + std::to_string(kApplicationId)).c_str());
  }
  auto opened = open_database(path, Access::kReadOnly);
  ASSERT_FALSE(opened.database);
  EXPECT_EQ(opened.failure->problem, FileProblem::kOlderSchema);
  EXPECT_EQ(opened.failure->message,
            "schema version 0 with ucudnn's application id, which no ucudnn writes");
}

}  // namespace
}  // namespace ucudnn::db
