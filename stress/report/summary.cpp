#include "stress/report/summary.h"

#include <ostream>

#include "model/violation.h"

namespace safetune::stress {

nlohmann::json violations_json(const std::vector<model::Violation>& violations) {
  nlohmann::json list = nlohmann::json::array();
  for (const model::Violation& violation : violations) {
    const std::int64_t seq = violation.seqs.empty() ? 0 : violation.seqs.back();
    list.push_back({{"rule", std::string(model::rule_id(violation.rule))},
                    {"seq", seq},
                    {"seqs", violation.seqs},
                    {"message", violation.message}});
  }
  return list;
}

nlohmann::json stats_json(const model::TraceStats& stats) {
  return {{"calls", stats.calls},
          {"attempts", stats.attempts},
          {"successful_tunings", stats.successful_tunings},
          {"duplicate_tunings", stats.duplicate_tunings},
          {"benches", stats.benches},
          {"failed_benches", stats.failed_benches},
          {"errors", stats.errors},
          {"hung_calls", stats.hung_calls},
          {"loads", stats.loads},
          {"rejected_loads", stats.rejected_loads},
          {"abandoned_attempts", stats.abandoned_attempts},
          {"lost_leases", stats.lost_leases}};
}

nlohmann::json violation_counts_json(const model::CheckResult& result) {
  nlohmann::json totals = nlohmann::json::object();
  for (std::size_t i = 0; i < model::kRuleCount; ++i)
    if (result.violation_totals[i] > 0)
      totals[std::string(model::rule_id(model::kRules[i]))] = result.violation_totals[i];
  return {{"violations", violations_json(result.violations)},
          {"violations_total", result.violations_total()},
          {"violation_totals", std::move(totals)},
          {"truncated", result.truncated()}};
}

nlohmann::json check_json(const model::CheckResult& result) {
  nlohmann::json json = violation_counts_json(result);
  json.update({{"verdict", result.incomplete ? "incomplete" : result.ok() ? "pass" : "fail"},
               {"events", result.events},
               {"stats", stats_json(result.stats)}});
  if (result.incomplete) json["incomplete"] = *result.incomplete;
  return json;
}

nlohmann::json stress_json(const StressSummary& summary) {
  const StressOptions& options = summary.options;
  nlohmann::json json = stats_json(summary.stats);
  json["total_calls"] = summary.stats.calls;  // every call, nested and re-entrant included
  json.update({{"subject", options.subject},
               {"device", options.device},
               {"seed", options.seed},
               {"threads", options.shape.threads},
               {"keys", options.shape.keys},
               {"configs", options.shape.configs},
               {"calls", options.shape.calls},
               {"mix", options.mix_name},
               {"scenario", {{"mix", options.mix_name},
                             {"wait", options.wait_name},
                             {"reentry", options.reentry_name}}},
               {"rounds", summary.rounds},
               {"processes", options.processes},
               {"hosts", options.hosts},
               {"store", options.store ? nlohmann::json(*options.store) : nlohmann::json(nullptr)},
               {"store_down", options.store_down},
               {"store_failure", options.store_failure_fails ? "fail" : "tune-locally"},
               {"restart_store", options.restart_store},
               {"own_redis", options.own_redis},
               {"store_restarts", summary.faults.store_restarts},
               {"restart", options.restart},
               {"kill_owners", options.kill_owners},
               {"killed_processes", summary.faults.killed_processes},
               {"pause_owners", options.pause_owners},
               {"paused_processes", summary.faults.paused_processes},
               {"stall_owners", options.stall_owners},
               {"damage_store", options.damage_store},
               {"damaged_entries", summary.faults.damaged_entries},
               {"lost_at_power_loss", summary.faults.lost_at_power_loss},
               {"verdict", summary.verdict()},
               {"elapsed_s", summary.elapsed_s}});
  json.update(violation_counts_json(summary.result));
  if (summary.incomplete) json["incomplete"] = *summary.incomplete;
  return json;
}

void write_stress_text(std::ostream& out, const StressSummary& summary) {
  const StressOptions& options = summary.options;
  const model::TraceStats& stats = summary.stats;
  out << "subject: " << options.subject << "\ndevice: " << options.device << "\nseed: " << options.seed
      << "\nthreads: " << options.shape.threads << "\nkeys: " << options.shape.keys
      << "\nconfigs: " << options.shape.configs << "\nscenario: --mix " << options.mix_name
      << " --wait " << options.wait_name << " --reentry " << options.reentry_name
      << "\ncalls: " << options.shape.calls
      << " per thread per round (" << stats.calls << " in all, " << summary.rounds << " round(s))"
      << (options.forks_workers()
              ? "\nprocesses: " + std::to_string(options.processes) +
                    (options.hosts > 1 ? " on each of " + std::to_string(options.hosts) + " hosts" : "") +
                    (options.restart ? " (and a restart)" : "") +
                    "\nstore: " + (options.store_down      ? std::string("a Redis server that is not there (--store-down): each process judged on its own")
                     : options.restart_store ? std::string("a redis-server of the run's own, killed and started again between the generations (") +
                                                   std::to_string(summary.faults.store_restarts) + " restart(s))"
                     : options.own_redis     ? std::string("a redis-server of the run's own (--own-redis)")
                                             : options.store.value_or("none (each process in memory)")) +
                    (options.store_failure_fails ? "; store-failure policy fail" : "") +
                    "\nfaults: " + std::to_string(summary.faults.killed_processes) + " process(es) killed mid-bench, " +
                    std::to_string(summary.faults.paused_processes) + " paused mid-bench, " +
                    std::to_string(summary.faults.damaged_entries) + " entries damaged, " +
                    std::to_string(summary.faults.lost_at_power_loss) + " lost or torn at the restart's power loss" +
                    "\nloads: " + std::to_string(stats.loads) + " (" + std::to_string(stats.rejected_loads) + " rejected)"
              : std::string())
      << "\nattempts: " << stats.attempts << "\nsuccessful_tunings: " << stats.successful_tunings
      << "\nduplicate_tunings: " << stats.duplicate_tunings << "\nbenches: " << stats.benches
      << "\nerrors: " << stats.errors << "\nhung_calls: " << stats.hung_calls
      << "\nviolations: " << summary.result.violations_total()
      << (summary.result.truncated() ? " (truncated: " + std::to_string(summary.result.violations.size()) + " listed)" : "")
      << "\nverdict: " << summary.verdict()
      << "\nelapsed: " << summary.elapsed_s << " s\n";
  if (summary.incomplete) out << "incomplete: " << *summary.incomplete << '\n';
}

void accumulate(model::TraceStats& total, const model::TraceStats& more) {
  total.calls += more.calls;
  total.attempts += more.attempts;
  total.successful_tunings += more.successful_tunings;
  total.duplicate_tunings += more.duplicate_tunings;
  total.benches += more.benches;
  total.failed_benches += more.failed_benches;
  total.errors += more.errors;
  total.hung_calls += more.hung_calls;
  total.loads += more.loads;
  total.rejected_loads += more.rejected_loads;
  total.abandoned_attempts += more.abandoned_attempts;
  total.lost_leases += more.lost_leases;
}

}  // namespace safetune::stress
