// --damage-store: between the generations of a --restart round, the harness damages the entries
// that the first generation published, as a disk, an editor or another version would. The second
// generation must find every damaged entry a miss (a rejected load), quarantine it and tune the
// key again, and launch no winner of a rejected entry (R12, R13).
//
// Two entries whose winners differ are swapped (each is then another key's entry, with a winner
// wrong for its key); each other entry is left whole (one in four) or gets one damage of its own.
// The draws come from the seed and the round, so that a replay damages the same entries the same
// way. The damage is written in place: it is the fault, not a publication.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace safetune::stress {

enum class Damage { Truncated, NotJson, AnotherSchema, AnotherKey, ForeignFingerprint, WinnerOutsideTheSpace };

// The entries of `dir` damaged, by kind (no entry for a kind none got). Throws std::runtime_error
// naming the file when one cannot be read or written.
std::map<Damage, int> damage_store(const std::string& dir, std::uint64_t seed, std::uint64_t round);

}  // namespace safetune::stress
