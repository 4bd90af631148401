// The process pool (sim/process_pool.h): results in task order whatever the worker count, points handed out
// one at a time (a slow task does not hold back the tasks behind it), a dead child named with its task, a
// task's error passed through, one fresh process per task for SimGrid.
#include "sim/process_pool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

namespace zerosim::sim {
namespace {

// Runs `tasks` tasks of `work` and returns the delivered (task, bytes) pairs in delivery order.
std::vector<std::pair<size_t, std::string>> Collect(size_t tasks, const PoolOptions& o,
                                                    const std::function<StatusOr<std::string>(size_t)>& work,
                                                    Status* status) {
  std::vector<std::pair<size_t, std::string>> got;
  *status = RunPool(tasks, o, work, [&](size_t i, std::string bytes) {
    got.emplace_back(i, std::move(bytes));
    return Status::Ok();
  });
  return got;
}

TEST(ProcessPool, DeliversInTaskOrderForAnyWorkerCount) {
  // Later tasks finish first (task i sleeps (12 - i) ms), yet delivery is 0, 1, 2, ...
  const auto work = [](size_t i) -> StatusOr<std::string> {
    std::this_thread::sleep_for(std::chrono::milliseconds(12 - static_cast<int>(i)));
    return "task " + std::to_string(i) + ";";
  };
  for (int workers : {1, 3, 12}) {
    PoolOptions o;
    o.workers = workers;
    Status st;
    const auto got = Collect(12, o, work, &st);
    ASSERT_TRUE(st.ok()) << st.message();
    ASSERT_EQ(got.size(), 12u);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].first, i);
      EXPECT_EQ(got[i].second, "task " + std::to_string(i) + ";");
    }
  }
}

TEST(ProcessPool, HandsOutTasksOneAtATime) {
  // Task 0 takes 1.5 s, the 20 others 10 ms each. Two workers: with dynamic handout the worker that took
  // task 0 is still busy with it while the other runs all 20; with static striding (worker w takes every
  // second task) tasks 2, 4, ... would wait behind task 0 in its worker.
  PoolOptions o;
  o.workers = 2;
  Status st;
  const auto got = Collect(
      21, o,
      [](size_t i) -> StatusOr<std::string> {
        std::this_thread::sleep_for(std::chrono::milliseconds(i == 0 ? 1500 : 10));
        return std::to_string(getpid());
      },
      &st);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(got.size(), 21u);
  for (size_t i = 1; i < got.size(); ++i) {
    EXPECT_NE(got[i].second, got[0].second) << "task " << i << " ran in the worker of the slow task 0";
  }
}

TEST(ProcessPool, ADeadWorkerIsAnErrorNamingItsTask) {
  PoolOptions o;
  o.workers = 3;
  o.child_name = "sweep worker";
  o.task_name = [](size_t i) { return "point " + std::to_string(100 + i); };
  Status st;
  (void)Collect(
      6, o,
      [](size_t i) -> StatusOr<std::string> {
        if (i == 4) raise(SIGKILL);
        return std::string("ok");
      },
      &st);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("sweep worker died of signal 9 while running point 104"), std::string::npos)
      << st.message();
}

TEST(ProcessPool, ATasksErrorIsPassedThrough) {
  PoolOptions o;
  o.workers = 2;
  Status st;
  (void)Collect(
      4, o,
      [](size_t i) -> StatusOr<std::string> {
        if (i == 2) return Status::Error("point 2, ZeRO++: broken invariant");
        return std::string("ok");
      },
      &st);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "point 2, ZeRO++: broken invariant");
}

TEST(ProcessPool, ProcessPerTaskRunsEachTaskInAFreshChild) {
  PoolOptions o;
  o.workers = 2;
  o.process_per_task = true;
  Status st;
  const auto got = Collect(
      5, o, [](size_t) -> StatusOr<std::string> { return std::to_string(getpid()); }, &st);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(got.size(), 5u);
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NE(got[i].second, std::to_string(getpid()));
    for (size_t j = 0; j < i; ++j) EXPECT_NE(got[i].second, got[j].second) << "tasks " << j << " and " << i;
  }
}

TEST(ProcessPool, ADeliverErrorStopsThePool) {
  PoolOptions o;
  o.workers = 2;
  size_t delivered = 0;
  const Status st = RunPool(
      8, o, [](size_t) -> StatusOr<std::string> { return std::string("x"); },
      [&](size_t i, std::string) {
        ++delivered;
        return i == 3 ? Status::Error("disk full") : Status::Ok();
      });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "disk full");
  EXPECT_EQ(delivered, 4u);
}

}  // namespace
}  // namespace zerosim::sim
