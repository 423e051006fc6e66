// A simulated power loss of the machine between the generations of --restart: every step of the
// store that was not made durable is undone, as the disk would have it after the machine came back.
//
// What is durable is read from the DurabilityJournal that the first generation's stores kept
// (impl/store/durability_journal.h): a file's data once it was fsynced; a name linked or renamed
// into a directory once that directory, or the one it came from, was fsynced after. So a
// publication that skipped an fsync is lost (its name was never made durable) or left torn (its
// name was, its data was not: cut to nothing, as a delayed allocation leaves it). A name that no
// journal step made is left as it is.
#pragma once

#include <string>

namespace safetune::stress {

struct PowerLoss {
  int lost_names = 0;  // links and renames undone
  int torn_files = 0;  // durable names whose data was not: cut to 0 bytes
};

// Undoes what `journal_file` shows was not durable, then empties the journal. A journal that
// does not exist is a machine that wrote nothing. std::runtime_error when a line cannot be read.
PowerLoss lose_power(const std::string& journal_file);

}  // namespace safetune::stress
