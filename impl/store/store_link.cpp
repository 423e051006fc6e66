#include "impl/store/store_link.h"

#include <atomic>
#include <iostream>
#include <variant>

namespace safetune {

struct StoreLink::FailureWarned {
  std::atomic<bool> value{false};
};

StoreLink::StoreLink(const StoreOptions& options, const std::string& kernel, const ConfigSpace& space)
    : store_(options.store),
      waits_(store_ != nullptr ? store_->waits() : nullptr),
      warn_(options.warn),
      on_failure_(options.on_failure),
      space_(space),
      fingerprint_(fingerprint_of(kernel, space, options.device)),
      failure_warned_(std::make_unique<FailureWarned>()) {}

StoreLink::~StoreLink() = default;

EntryId StoreLink::id_of(std::string_view key) const {
  return {.kernel = fingerprint_.kernel, .key = std::string(key), .device = fingerprint_.device.name};
}

StoreLookup StoreLink::lookup(const EntryId& id) const {
  const std::optional<std::string> text = store_->read(id);
  if (!text) return {};
  auto decoded = decode_entry(*text, id.key, fingerprint_, space_);
  if (auto* rejected = std::get_if<EntryRejected>(&decoded))
    return {.kind = StoreLookup::Rejected, .reason = rejected->reason, .rejected_winner = rejected->winner};
  const Config winner = Config::parse(std::get<StoredEntry>(decoded).winner);
  return {.kind = StoreLookup::Hit, .winner = *space_.index_of(winner)};
}

bool StoreLink::publish(const StoreClaim& claim, const EntryId& id, std::size_t winner,
                        const std::vector<BenchTime>& times) const {
  const StoredEntry entry{.key = id.key, .fingerprint = fingerprint_, .winner = space_[winner].str(), .times = times};
  return store_->publish(claim, id, encode_entry(entry));
}

void StoreLink::warn_rejected(const EntryId& id, const std::string& reason) const noexcept {
  try {
    const std::string message = "safetune: warning: results store entry " + store_->where(id) + " (kernel '" + id.kernel +
                                "', key '" + id.key + "') is not used: " + reason + "; it is quarantined and the key is tuned again";
    if (warn_) warn_(message);
    else std::cerr << message << '\n';
  } catch (...) {
  }
}

void StoreLink::warn_failure(const char* what) const noexcept {
  if (failure_warned_->value.exchange(true)) return;
  try {
    const std::string message = std::string("safetune: warning: ") + what +
                                "; tuning locally (this process's winners are not shared while the store fails)";
    if (warn_) warn_(message);
    else std::cerr << message << '\n';
  } catch (...) {
  }
}

}  // namespace safetune
