#include "stress/subjects/reference_subject.h"

#include "impl/autotuner.h"

namespace safetune::stress {
namespace {

class ReferenceSubject final : public Subject {
 public:
  explicit ReferenceSubject(const SubjectEnvironment& environment)
      : tuner_(environment.kernel, environment.space, options_from(environment)) {}

  // Calls on even streams go through the key's handle (impl/autotuner_key_handle.h), the others
  // through call(): every stress run, and ci/mutate's, judges both paths, racing on one key.
  Config call(const Invocation& inv) override {
    if (inv.stream.id() % 2 == 0) return tuner_.handle(inv.key).call(inv.stream, inv.args);
    return tuner_.call(inv);
  }
  void invalidate(std::string_view key) override { tuner_.invalidate(key); }

 private:
  static TunerOptions options_from(const SubjectEnvironment& environment) {
    TunerOptions options;
    options.wait = environment.wait;
    options.reentry = environment.reentry;
    options.fallback = environment.fallback;
    options.bench_lock = environment.bench_lock;
    options.pre_bench_hook = environment.pre_bench_hook;
    options.observer = environment.observer;
    options.results = {.store = environment.store,
                       .device = environment.device,
                       .warn = {},
                       .on_failure = environment.store_failure_fails ? StoreFailurePolicy::Fail : StoreFailurePolicy::TuneLocally};
    return options;
  }

  Autotuner tuner_;
};

}  // namespace

std::unique_ptr<Subject> make_reference_subject(const SubjectEnvironment& environment) {
  return std::make_unique<ReferenceSubject>(environment);
}

}  // namespace safetune::stress
