// A table column's dataset name (core/ResultTable.hpp): HDF5 names cannot hold '/', so column
// names made from ids are percent-encoded (RFC 3986) and decoded by readers.
#include <catch2/catch.hpp>

#include <string>

#include "racktwin/core/ResultTable.hpp"

using racktwin::core::tableColumnName;
using racktwin::core::tableLinkName;

TEST_CASE("a column's dataset name holds no '/' and reads back as the column's name", "[core]") {
  CHECK(tableLinkName("pue") == "pue");
  CHECK(tableLinkName("mv_feeder_hall1/mv-feeder_current_max_A")
        == "mv_feeder_hall1%2Fmv-feeder_current_max_A");
  CHECK(tableLinkName("100%/x%2F") == "100%25%2Fx%252F");
  for (const std::string name : {"pue", "a/b/c", "%", "%2F", "/%25/", "x%2", "%%//", ""}) {
    INFO(name);
    const std::string link = tableLinkName(name);
    CHECK(link.find('/') == std::string::npos);
    CHECK(tableColumnName(link) == name);
  }
  // Lower-case hex decodes too; a '%' not followed by 25 or 2F stays as it is.
  CHECK(tableColumnName("a%2fb") == "a/b");
  CHECK(tableColumnName("50%") == "50%");
  CHECK(tableColumnName("%41") == "%41");
}
