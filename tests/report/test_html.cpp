// Text from result files into HTML: escaped, valid UTF-8, no way to end a script element; numbers
// for people.
#include <catch2/catch.hpp>

#include <string>

#include "Html.hpp"

using namespace racktwin::report;

TEST_CASE("Markup characters are escaped", "[report]") {
  CHECK(escapeHtml("<script>alert('x')</script>&\"")
        == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;");
  CHECK(escapeHtml("row1/rack01 32 \xC2\xB0" "C") == "row1/rack01 32 \xC2\xB0" "C");
}

TEST_CASE("Invalid UTF-8 becomes U+FFFD and control characters go", "[report]") {
  const std::string replacement = "\xEF\xBF\xBD";
  CHECK(sanitizeUtf8("a\xFF"
                     "b")
        == "a" + replacement + "b");
  CHECK(sanitizeUtf8("\xC0\xAF") == replacement + replacement);                    // overlong '/'
  CHECK(sanitizeUtf8("\xED\xA0\x80") == replacement + replacement + replacement);  // surrogate
  CHECK(sanitizeUtf8("\xE2\x82") == replacement + replacement);                    // cut short
  CHECK(sanitizeUtf8("\xF0\x9F\x94\xA5") == "\xF0\x9F\x94\xA5");                   // 4 bytes, valid
  CHECK(sanitizeUtf8(std::string("a\0b\x1B[31m\tc\r\nd", 13)) == "ab[31m\tc\nd");
}

TEST_CASE("JSON for a script element holds no character that could end it", "[report]") {
  const std::string json =
      jsonForScript({{"name", "</script><!-- <img src=x onerror=alert(1)> & \xFF"}});
  CHECK(json.find('<') == std::string::npos);
  CHECK(json.find('>') == std::string::npos);
  CHECK(json.find('&') == std::string::npos);
  CHECK(json.find("\\u003c/script\\u003e") != std::string::npos);
  // It reads back as the same text (invalid bytes replaced).
  const nlohmann::json back = nlohmann::json::parse(json);
  CHECK(back["name"].get<std::string>().rfind("</script><!-- <img", 0) == 0);
}

TEST_CASE("Numbers for people: about four significant digits, grouped, no exponent in range",
          "[report]") {
  CHECK(formatNumber(121329.2) == "121,329");
  CHECK(formatNumber(69.5375) == "69.54");
  CHECK(formatNumber(0.505215) == "0.5052");
  CHECK(formatNumber(-2345.7) == "-2,346");
  CHECK(formatNumber(4608.0) == "4,608");
  CHECK(formatNumber(0.0) == "0");
  CHECK(formatNumber(9.38e-13) == "9.38e-13");
  CHECK(formatNumber(2.5e7) == "2.5e+07");
  CHECK(formatNumber(std::nullopt) == "n/a");
  CHECK(shownUnit("degC") == "\xC2\xB0" "C");
  CHECK(shownUnit("kW") == "kW");
}
