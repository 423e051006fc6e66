// short_key_hash: equal keys hash equal wherever their bytes live, and every byte and the length
// take part (a hash that ignored a byte would put every shape differing there in one bucket).
// short_key_equal: exactly ==, at every length, whichever byte differs.
#include "impl/short_key_hash.h"

#include <gtest/gtest.h>

#include <string>

namespace safetune {
namespace {

std::string key_of_length(std::size_t length) {
  std::string key;
  for (std::size_t i = 0; i < length; ++i) key += static_cast<char>('a' + i % 26);
  return key;
}

TEST(ShortKeyHash, EqualKeysHashEqualWhereverTheyAreStored) {
  for (std::size_t length = 0; length <= 40; ++length) {
    const std::string key = key_of_length(length);
    const std::string copy = std::string(" ") + key;  // same bytes at another alignment
    EXPECT_EQ(short_key_hash(key), short_key_hash(std::string_view(copy).substr(1))) << key;
  }
}

TEST(ShortKeyHash, EveryByteOfTheKeyChangesTheHash) {
  for (std::size_t length = 1; length <= 40; ++length) {
    const std::string key = key_of_length(length);
    for (std::size_t at = 0; at < length; ++at) {
      std::string changed = key;
      changed[at] = static_cast<char>(changed[at] ^ 0x10);
      EXPECT_NE(short_key_hash(key), short_key_hash(changed)) << "length " << length << " byte " << at;
    }
  }
}

TEST(ShortKeyHash, ALongerKeyOfZeroBytesHashesDifferently) {
  EXPECT_NE(short_key_hash(std::string_view()), short_key_hash(std::string(1, '\0')));
  EXPECT_NE(short_key_hash(std::string(3, '\0')), short_key_hash(std::string(4, '\0')));
  EXPECT_NE(short_key_hash(std::string(8, '\0')), short_key_hash(std::string(9, '\0')));
}

TEST(ShortKeyEqual, EqualKeysAreEqualWhereverTheyAreStored) {
  for (std::size_t length = 0; length <= 40; ++length) {
    const std::string key = key_of_length(length);
    const std::string copy = std::string(" ") + key;
    EXPECT_TRUE(short_key_equal(key, std::string_view(copy).substr(1))) << key;
  }
}

TEST(ShortKeyEqual, ADifferenceInAnyByteOrInTheLengthIsSeen) {
  for (std::size_t length = 1; length <= 40; ++length) {
    const std::string key = key_of_length(length);
    for (std::size_t at = 0; at < length; ++at) {
      std::string changed = key;
      changed[at] = static_cast<char>(changed[at] ^ 0x20);
      EXPECT_FALSE(short_key_equal(key, changed)) << key << " at " << at;
    }
    EXPECT_FALSE(short_key_equal(key, key.substr(0, length - 1))) << key;
    EXPECT_FALSE(short_key_equal(key.substr(0, length - 1), key)) << key;
  }
  EXPECT_TRUE(short_key_equal("", ""));
}

}  // namespace
}  // namespace safetune
