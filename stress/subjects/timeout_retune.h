// `timeout-retune`: future-single-flight (future_single_flight.h) whose waiters give up on a
// slow owner and tune the key again themselves. The team's version waited 2 ms; an attempt on
// the sim device takes well under that, so this one waits 100 us, which most attempts of the
// default space outlast: the duplicate tuning (R2, or R3 once the owner has published) shows in
// every run in which a waiter waits.
#pragma once

#include <chrono>

#include "stress/subjects/future_single_flight.h"

namespace safetune::stress::subjects {

class TimeoutRetune final : public FutureSingleFlight {
 public:
  explicit TimeoutRetune(const SubjectEnvironment& environment)
      : FutureSingleFlight(environment, std::chrono::microseconds(100)) {}
};

}  // namespace safetune::stress::subjects
