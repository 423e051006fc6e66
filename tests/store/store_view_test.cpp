// The directory store's views (OFD locks on byte 1 of an entry's lock file): store_view_cases.h.
#include "tests/store/store_kinds.h"
#include "tests/store/store_view_cases.h"

namespace safetune::store_cases {

INSTANTIATE_TYPED_TEST_SUITE_P(Directory, StoreViews, testing::DirectoryStoreKind);
INSTANTIATE_TYPED_TEST_SUITE_P(Directory, AutotunerStoreViews, testing::DirectoryStoreKind);

}  // namespace safetune::store_cases
