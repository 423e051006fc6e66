// The header line: format, version, policy, config spaces, white_box, seq_scope, fresh_store,
// live_owners. Unknown top-level fields are ignored (reference traces keep their expected verdict
// there), but inside "policy" every field must be one the format knows, so that a typo such as
// "wiat" is an error, not a default.
#include <algorithm>
#include <set>

#include "trace_schema.h"

namespace safetune::model::schema {

using namespace json;

namespace {

constexpr std::string_view kFormat = "safetune-trace";
constexpr std::int64_t kVersion = 1;

// "\"a\" or \"b\"": the names a policy field may hold, for its error message.
std::string quoted_alternatives(const std::array<std::string_view, 2>& names) {
  return "\"" + std::string(names[0]) + "\" or \"" + std::string(names[1]) + "\"";
}

WaitPolicy read_wait(Value value) {
  if (auto wait = parse_wait_policy(as_string(value, "policy.wait"))) return *wait;
  fail_field("policy.wait", shown(value) + " is not " + quoted_alternatives(kWaitPolicyNames));
}

ReentryPolicy read_reentry(Value value) {
  if (auto reentry = parse_reentry_policy(as_string(value, "policy.reentry"))) return *reentry;
  fail_field("policy.reentry", shown(value) + " is not " + quoted_alternatives(kReentryPolicyNames));
}

void read_fallback(Value value, Policy& policy) {
  if (value.is_string()) {
    policy.fallback = as_config(value, "policy.fallback");
    return;
  }
  if (!value.is_object())
    fail_field("policy.fallback", shown(value) + " is not a config string or an object mapping kernels to configs");
  for (auto [kernel, config] : as_object(value, "policy.fallback")) {
    const std::string path = "policy.fallback." + std::string(kernel);
    if (policy.fallback_by_kernel.contains(std::string(kernel))) fail(field(path) + " appears more than once");
    policy.fallback_by_kernel[std::string(kernel)] = as_config(config, path);
  }
}

void require_fallback_if_used(const Policy& policy) {
  if (!policy.needs_fallback() || policy.fallback || !policy.fallback_by_kernel.empty()) return;
  const char* which = policy.wait == WaitPolicy::Fallback ? "policy.wait" : "policy.reentry";
  fail(field("policy.fallback") + " is missing, but " + which + " is \"fallback\", which needs a fallback config");
}

Policy read_policy(const std::optional<Value>& value) {
  Policy policy;
  if (!value) return policy;
  const Object object = as_object(*value, "policy");
  const auto fields = collect(object, std::array<std::string_view, 3>{"wait", "reentry", "fallback"}, "policy.",
                              [](std::string_view name) {
                                fail(field("policy." + std::string(name)) +
                                     " is not a policy field (the policy has wait, reentry and fallback)");
                              });
  if (fields[0]) policy.wait = read_wait(*fields[0]);
  if (fields[1]) policy.reentry = read_reentry(*fields[1]);
  if (fields[2]) read_fallback(*fields[2], policy);
  require_fallback_if_used(policy);
  return policy;
}

std::vector<std::string> read_config_space(Value value, const std::string& path) {
  const Array array = as_array(value, path, "an array of config strings");
  if (array.size() == 0) fail(field(path) + " is empty (a kernel needs at least one config)");
  std::vector<std::string> space;
  std::set<std::string> seen;
  for (Value item : array) {
    const std::string item_path = path + "[" + std::to_string(space.size()) + "]";
    std::string config = as_config(item, item_path);
    if (!seen.insert(config).second) {
      const auto first = std::find(space.begin(), space.end(), config) - space.begin();
      fail_field(item_path, shown(item) + " repeats " + path + "[" + std::to_string(first) + "]");
    }
    space.push_back(std::move(config));
  }
  return space;
}

std::map<std::string, std::vector<std::string>> read_configs(const std::optional<Value>& value) {
  std::map<std::string, std::vector<std::string>> configs;
  if (!value) return configs;
  for (auto [kernel, space] : as_object(*value, "configs")) {
    const std::string path = "configs." + std::string(kernel);
    if (configs.contains(std::string(kernel))) fail(field(path) + " appears more than once");
    configs[std::string(kernel)] = read_config_space(space, path);
  }
  return configs;
}

// A per-kernel fallback must name a kernel whose config space the header lists, when it lists any.
void require_known_fallback_kernels(const Header& header) {
  if (header.configs.empty()) return;
  for (const auto& [kernel, config] : header.policy.fallback_by_kernel)
    if (!header.configs.contains(kernel))
      fail(field("policy.fallback." + kernel) + " names a kernel that \"configs\" does not list");
}

}  // namespace

Header read_header(Object object) {
  const auto fields = collect(object, std::array<std::string_view, 8>{"format", "version", "policy", "configs", "white_box", "seq_scope", "fresh_store",
                                                                     "live_owners"},
                              "", [](std::string_view) {});
  std::string_view format;
  if (fields[0]->get(format) || format != kFormat) fail_field("format", shown(*fields[0]) + " is not \"safetune-trace\"");
  if (!fields[1]) fail(field("version") + " is missing");
  std::int64_t version = 0;
  if (fields[1]->type() != simdjson::dom::element_type::INT64 || fields[1]->get(version) || version != kVersion)
    fail_field("version", shown(*fields[1]) + " is not supported (this reader reads version 1)");
  Header header;
  header.present = true;
  header.policy = read_policy(fields[2]);
  header.configs = read_configs(fields[3]);
  require_known_fallback_kernels(header);
  if (fields[4]) header.white_box = as_bool(*fields[4], "white_box");
  // "global": the processes of one run shared one seq counter, so their files merge by seq
  // (docs/trace-format.md, "Several processes"); any other scope merges by t_ns.
  if (fields[5]) header.global_seq = as_string(*fields[5], "seq_scope") == "global";
  if (fields[6]) header.fresh_store = as_bool(*fields[6], "fresh_store");
  if (fields[7]) header.live_owners = as_bool(*fields[7], "live_owners");
  return header;
}

}  // namespace safetune::model::schema
