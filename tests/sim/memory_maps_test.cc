// Issue 20 item 27: `--reduction full` at 8,192 GPUs aborted inside SimGrid ("Failed to protect stack") when the
// actors' stacks exhausted vm.max_map_count; the replay now checks up front and says what to do.
#include <gtest/gtest.h>

#include "sim/memory_maps.h"

namespace zerosim::sim {
namespace {

TEST(MemoryMaps, TooManyActorsForTheMapLimitIsAClearError) {
  // 8,192 ranks x 5 queues against Linux's default limit of 65,530.
  const Status st = CheckMemoryMaps(8192 * 5, 65530);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("vm.max_map_count"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("--reduction classes"), std::string::npos) << st.message();
  EXPECT_TRUE(CheckMemoryMaps(1024 * 5, 65530).ok());
  EXPECT_TRUE(CheckMemoryMaps(8192 * 5, 0).ok());  // unknown limit: no check
  EXPECT_GT(ReadMaxMapCount(), 0);                  // Linux exposes it
}

}  // namespace
}  // namespace zerosim::sim
