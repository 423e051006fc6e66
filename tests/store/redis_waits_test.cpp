// The Redis store's graph of waits (impl/store/redis/redis_waits.h): shared_waits_cases.h.
#include "tests/store/redis_store_kind.h"
#include "tests/store/shared_waits_cases.h"

namespace safetune::store_cases {

INSTANTIATE_TYPED_TEST_SUITE_P(Redis, WaitsAcrossProcesses, testing::RedisStoreKind);
INSTANTIATE_TYPED_TEST_SUITE_P(Redis, AutotunerAcrossProcesses, testing::RedisStoreKind);

}  // namespace safetune::store_cases
