// `wrong-argmin`: the winner is the last config that benched successfully, not the fastest (the
// shape of a loop that overwrites `best` without comparing). Caught as R4 (attempt integrity) at
// the first tune_end whose last config is not the fastest.
#pragma once

#include "stress/subjects/mini_tuner.h"

namespace safetune::stress::subjects {

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

}  // namespace safetune::stress::subjects
