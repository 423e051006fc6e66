#include "stress/subjects/stores/store_subject.h"

#include "stress/subjects/reference_subject.h"

namespace safetune::stress::subjects {
namespace {

class ReferenceOverStore final : public Subject {
 public:
  ReferenceOverStore(const SubjectEnvironment& environment, std::unique_ptr<ResultsStore> store)
      : store_(std::move(store)), tuner_(make_reference_subject(with_store(environment, *store_))) {}

  Config call(const Invocation& inv) override { return tuner_->call(inv); }
  void invalidate(std::string_view key) override { tuner_->invalidate(key); }

 private:
  static SubjectEnvironment with_store(const SubjectEnvironment& environment, ResultsStore& store) {
    SubjectEnvironment with = environment;
    with.store = &store;
    return with;
  }

  const std::unique_ptr<ResultsStore> store_;  // first: outlives the autotuner that uses it
  const std::unique_ptr<Subject> tuner_;
};

}  // namespace

std::unique_ptr<Subject> make_reference_over(const SubjectEnvironment& environment, std::unique_ptr<ResultsStore> store) {
  return std::make_unique<ReferenceOverStore>(environment, std::move(store));
}

}  // namespace safetune::stress::subjects
