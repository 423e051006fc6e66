#include "stress/harness/store_damage.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

namespace safetune::stress {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr Damage kDamages[] = {Damage::Truncated,     Damage::NotJson,          Damage::AnotherSchema,
                               Damage::AnotherKey,    Damage::ForeignFingerprint, Damage::WinnerOutsideTheSpace};
// One entry in this many is left whole: the second generation then loads some and tunes others.
constexpr int kWholeOneIn = 4;

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw std::runtime_error("--damage-store: cannot read " + path.string());
  return text.str();
}

void write_all_in_place(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error("--damage-store: cannot write " + path.string());
}

// The entry's JSON with one field changed; the text stays a whole, well-formed entry.
std::string edited(const std::string& text, const fs::path& path, Damage damage) {
  Json entry = Json::parse(text, nullptr, false);
  if (entry.is_discarded() || !entry.is_object()) throw std::runtime_error("--damage-store: " + path.string() + " is no entry");
  switch (damage) {
    case Damage::AnotherSchema: entry["schema"] = entry.value("schema", 1) + 1; break;
    case Damage::AnotherKey: entry["key"] = entry.value("key", std::string()) + "-of-another-entry"; break;
    case Damage::ForeignFingerprint: entry["fingerprint"]["device"]["driver"] = "another driver"; break;
    case Damage::WinnerOutsideTheSpace: entry["winner"] = "BLOCK=1"; break;
    default: break;
  }
  return entry.dump() + "\n";
}

std::string damaged(const std::string& text, const fs::path& path, Damage damage) {
  switch (damage) {
    case Damage::Truncated: return text.substr(0, text.size() / 2);
    case Damage::NotJson: return "{\"schema\": 1, \"winner\": <torn>\n";
    default: return edited(text, path, damage);
  }
}

}  // namespace

std::string damage_name(Damage damage) {
  switch (damage) {
    case Damage::Truncated: return "truncated";
    case Damage::NotJson: return "not JSON";
    case Damage::AnotherSchema: return "another schema";
    case Damage::AnotherKey: return "another key";
    case Damage::ForeignFingerprint: return "foreign fingerprint";
    case Damage::WinnerOutsideTheSpace: return "winner outside the space";
  }
  return "?";
}

std::map<Damage, int> damage_store(const std::string& dir, std::uint64_t seed, std::uint64_t round) {
  std::vector<fs::path> entries;
  for (const auto& file : fs::directory_iterator(dir))
    if (file.is_regular_file() && file.path().extension() == ".json") entries.push_back(file.path());
  std::sort(entries.begin(), entries.end());  // the draws follow the names, not the directory's order
  std::seed_seq seeds{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                      static_cast<std::uint32_t>(round), static_cast<std::uint32_t>(round >> 32), 0xda3a6eu};
  std::mt19937_64 draws(seeds);
  std::map<Damage, int> done;
  for (const fs::path& path : entries) {
    if (std::uniform_int_distribution<int>(1, kWholeOneIn)(draws) == 1) continue;
    const Damage damage = kDamages[std::uniform_int_distribution<std::size_t>(0, std::size(kDamages) - 1)(draws)];
    write_all_in_place(path, damaged(read_all(path), path, damage));
    ++done[damage];
  }
  return done;
}

}  // namespace safetune::stress
