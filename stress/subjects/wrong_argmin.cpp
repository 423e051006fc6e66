// `wrong-argmin`: the winner is the last config that benched successfully, not the fastest (the
// shape of a loop that overwrites `best` without comparing). Caught as R4 (attempt integrity) at
// the first tune_end whose last config is not the fastest.
#include "stress/subjects/mini_tuner.h"
#include "stress/subjects/subjects.h"

namespace safetune::stress::subjects {
namespace {

class WrongArgmin final : public MiniTuner {
 public:
  using MiniTuner::MiniTuner;

 protected:
  int pick_winner(const std::vector<std::optional<double>>& times) const override {
    int best = -1;
    for (std::size_t i = 0; i < times.size(); ++i) {
      if (times[i]) best = static_cast<int>(i);  // BUG: no comparison of times
    }
    return best;
  }
};

}  // namespace

std::unique_ptr<Subject> make_wrong_argmin(const SubjectEnvironment& environment) {
  return std::make_unique<WrongArgmin>(environment);
}

}  // namespace safetune::stress::subjects
