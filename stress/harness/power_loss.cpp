#include "stress/harness/power_loss.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <vector>

namespace safetune::stress {
namespace {

namespace fs = std::filesystem;

// A link or rename, durable once a directory it touched was synced after it.
struct NameStep {
  bool rename = false;
  std::string from;
  std::string to;
  bool durable = false;
};

struct Journal {
  std::set<std::string> synced_files;
  std::vector<NameStep> name_steps;
};

std::string parent_of(const std::string& path) { return fs::path(path).parent_path().string(); }

bool is_text(const nlohmann::json& step, const char* field) { return step.contains(field) && step.at(field).is_string(); }

// Adds one line's step; false when the line is no step of durability_journal.h.
bool add_step(Journal& journal, const nlohmann::json& step) {
  if (!step.is_object() || !is_text(step, "step") || !is_text(step, "path")) return false;
  const std::string kind = step.at("step");
  const std::string path = step.at("path");
  if (kind == "synced") {
    journal.synced_files.insert(path);
  } else if (kind == "linked" || kind == "renamed") {
    if (!is_text(step, "to")) return false;
    journal.name_steps.push_back({.rename = kind == "renamed", .from = path, .to = step.at("to"), .durable = false});
  } else if (kind == "synced_directory") {
    for (NameStep& name : journal.name_steps)
      if (parent_of(name.from) == path || parent_of(name.to) == path) name.durable = true;
  } else {
    return false;
  }
  return true;
}

Journal read_journal(const std::string& file) {
  Journal journal;
  std::ifstream in(file);
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    if (!add_step(journal, nlohmann::json::parse(text, nullptr, false)))
      throw std::runtime_error("durability journal " + file + ", line " + std::to_string(line) +
                               ": not a step (synced, linked, renamed or synced_directory, with its paths)");
  }
  return journal;
}

}  // namespace

PowerLoss lose_power(const std::string& journal_file) {
  if (!fs::exists(journal_file)) return {};
  const Journal journal = read_journal(journal_file);
  PowerLoss loss;
  // Where each name's data came from: the file that was written (and maybe synced) before it
  // was linked, followed through renames.
  std::map<std::string, std::string> data_of;
  for (const NameStep& step : journal.name_steps) {
    const auto source = data_of.find(step.from);
    data_of[step.to] = source != data_of.end() && step.rename ? source->second : step.from;
    if (step.rename) data_of.erase(step.from);
  }
  // Undone latest first, so that a rename undone finds its name where the next step left it.
  for (auto step = journal.name_steps.rbegin(); step != journal.name_steps.rend(); ++step) {
    if (step->durable || !fs::exists(step->to)) continue;
    if (step->rename) {
      fs::rename(step->to, step->from);
      if (const auto source = data_of.find(step->to); source != data_of.end()) data_of[step->from] = source->second;
    } else {
      fs::remove(step->to);
    }
    data_of.erase(step->to);
    ++loss.lost_names;
  }
  for (const auto& [name, source] : data_of) {
    if (journal.synced_files.contains(source) || !fs::exists(name) || fs::file_size(name) == 0) continue;
    fs::resize_file(name, 0);
    ++loss.torn_files;
  }
  std::ofstream(journal_file, std::ios::trunc);
  return loss;
}

}  // namespace safetune::stress
