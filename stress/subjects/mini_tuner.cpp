// MiniTuner (mini_tuner.h), compiled once for real threads.
#include "stress/subjects/mini_tuner.h"

namespace safetune::stress::subjects {

template class BasicMiniTuner<StdSync>;

}  // namespace safetune::stress::subjects
