#include "stress/subjects/stores/in_place_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <thread>

#include "impl/posix/fd.h"
#include "impl/posix/write_all.h"

namespace safetune::stress::subjects {

bool InPlaceStore::publish(const StoreClaim&, const EntryId& id, const std::string& text) {
  const std::string path = store_.where(id);
  const posix::Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0 && errno == EEXIST) return false;
  if (fd.get() < 0) throw StoreError("in-place store: cannot create '" + path + "': " + std::strerror(errno));
  const std::string_view all = text;
  int error = 0;
  for (std::size_t at = 0; at < all.size() && error == 0; at += kPieceBytes) {
    if (at > 0) std::this_thread::sleep_for(kBetweenPieces);
    error = posix::write_all(fd.get(), all.substr(at, kPieceBytes));
  }
  if (error != 0) throw StoreError("in-place store: cannot write '" + path + "': " + std::strerror(error));
  return true;
}

}  // namespace safetune::stress::subjects
