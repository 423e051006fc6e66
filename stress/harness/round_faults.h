// The faults a multi-process round injected (process_round.h), and their sum over a run.
#pragma once

namespace safetune::stress {

struct RoundFaults {
  int killed_processes = 0;  // --kill-owners: SIGKILLed mid-bench
  int paused_processes = 0;  // --pause-owners: SIGSTOPped mid-bench past the lease, then continued
  int damaged_entries = 0;   // --damage-store: between the generations
  int store_restarts = 0;     // --restart-store: the store's server killed and started again
  int lost_at_power_loss = 0;  // --restart: entries lost or torn because a store skipped a durable step

  RoundFaults& operator+=(const RoundFaults& more) {
    killed_processes += more.killed_processes;
    paused_processes += more.paused_processes;
    damaged_entries += more.damaged_entries;
    lost_at_power_loss += more.lost_at_power_loss;
    store_restarts += more.store_restarts;
    return *this;
  }
};

}  // namespace safetune::stress
