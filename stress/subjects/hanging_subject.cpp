#include "stress/subjects/hanging_subject.h"

#include <condition_variable>
#include <mutex>

namespace safetune::stress {
namespace {

class HangingSubject final : public Subject {
 public:
  // Blocks forever: nothing ever notifies `never_`. The watchdog ends the process.
  Config call(const Invocation&) override {
    std::unique_lock lock(mutex_);
    never_.wait(lock, [] { return false; });
    return {};
  }
  void invalidate(std::string_view) override {}

 private:
  std::mutex mutex_;
  std::condition_variable never_;
};

}  // namespace

std::unique_ptr<Subject> make_hanging_subject(const SubjectEnvironment&) {
  return std::make_unique<HangingSubject>();
}

}  // namespace safetune::stress
