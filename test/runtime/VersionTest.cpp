#include "runtime/Version.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>

TEST(Version, IdIs32HexDigits) {
  std::string id = fuse::versionId();
  ASSERT_EQ(id.size(), 32u);
  for (char c : id)
    EXPECT_TRUE(std::isxdigit(static_cast<unsigned char>(c)) &&
                !std::isupper(static_cast<unsigned char>(c)))
        << id;
}
