// The Redis store's views (impl/store/redis/redis_view.h): store_view_cases.h.
#include "tests/store/redis_store_kind.h"
#include "tests/store/store_view_cases.h"

namespace safetune::store_cases {

INSTANTIATE_TYPED_TEST_SUITE_P(Redis, StoreViews, testing::RedisStoreKind);
INSTANTIATE_TYPED_TEST_SUITE_P(Redis, AutotunerStoreViews, testing::RedisStoreKind);

}  // namespace safetune::store_cases
