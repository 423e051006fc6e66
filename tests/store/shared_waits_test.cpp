// The directory store's graph of waits (impl/store/directory_waits.h): shared_waits_cases.h.
#include "tests/store/shared_waits_cases.h"
#include "tests/store/store_kinds.h"

namespace safetune::store_cases {

INSTANTIATE_TYPED_TEST_SUITE_P(Directory, WaitsAcrossProcesses, testing::DirectoryStoreKind);
INSTANTIATE_TYPED_TEST_SUITE_P(Directory, AutotunerAcrossProcesses, testing::DirectoryStoreKind);

}  // namespace safetune::store_cases
