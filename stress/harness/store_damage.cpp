#include "stress/harness/store_damage.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "stress/harness/dice.h"

namespace safetune::stress {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// The damages of one entry alone (AnotherKey is a swap of two).
constexpr Damage kInPlaceDamages[] = {Damage::Truncated, Damage::NotJson, Damage::AnotherSchema, Damage::ForeignFingerprint,
                                      Damage::WinnerOutsideTheSpace};
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
    case Damage::ForeignFingerprint: entry["fingerprint"]["device"]["driver"] = "another driver"; break;
    case Damage::WinnerOutsideTheSpace: entry["winner"] = "BLOCK=1"; break;
    default: break;
  }
  return entry.dump() + "\n";
}

std::string damaged_text(const std::string& text, const fs::path& path, Damage damage) {
  switch (damage) {
    case Damage::Truncated: return text.substr(0, text.size() / 2);
    case Damage::NotJson: return "{\"schema\": 1, \"winner\": <torn>\n";
    default: return edited(text, path, damage);
  }
}

// The winner an entry's text names, or "" when it cannot be read.
std::string winner_of(const std::string& text) {
  const Json entry = Json::parse(text, nullptr, false);
  if (entry.is_discarded() || !entry.is_object() || !entry.contains("winner") || !entry["winner"].is_string()) return "";
  return entry["winner"].get<std::string>();
}

}  // namespace

std::map<Damage, int> damage_store(const std::string& dir, std::uint64_t seed, std::uint64_t round) {
  std::vector<fs::path> paths;
  for (const auto& file : fs::directory_iterator(dir))
    if (file.is_regular_file() && file.path().extension() == ".json") paths.push_back(file.path());
  std::sort(paths.begin(), paths.end());  // the draws follow the names, not the directory's order
  Dice dice(draw_seed(seed, round, kDamageSalt));
  dice.shuffle(paths);
  std::vector<std::string> texts;
  for (const fs::path& path : paths) texts.push_back(read_all(path));
  std::map<Damage, int> done;
  std::vector<bool> touched(paths.size(), false);
  // First a swap, of two entries whose winners differ: each is then another key's entry, whose
  // winner is wrong for the key it stands for.
  for (std::size_t a = 0; a < paths.size() && done.empty(); ++a)
    for (std::size_t b = a + 1; b < paths.size() && done.empty(); ++b) {
      const std::string winner = winner_of(texts[a]);
      if (winner.empty() || winner_of(texts[b]).empty() || winner == winner_of(texts[b])) continue;
      write_all_in_place(paths[a], texts[b]);
      write_all_in_place(paths[b], texts[a]);
      touched[a] = touched[b] = true;
      done[Damage::AnotherKey] = 2;
    }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (touched[i] || dice.below(kWholeOneIn) == 0) continue;
    const Damage damage = kInPlaceDamages[dice.below(static_cast<int>(std::size(kInPlaceDamages)))];
    write_all_in_place(paths[i], damaged_text(texts[i], paths[i], damage));
    ++done[damage];
  }
  return done;
}

}  // namespace safetune::stress
