// The faults a multi-process round injected (process_round.h), and their sum over a run.
#pragma once

namespace safetune::stress {

struct RoundFaults {
  int killed_processes = 0;  // --kill-owners: SIGKILLed mid-bench
  int damaged_entries = 0;   // --damage-store: between the generations

  RoundFaults& operator+=(const RoundFaults& more) {
    killed_processes += more.killed_processes;
    damaged_entries += more.damaged_entries;
    return *this;
  }
};

}  // namespace safetune::stress
