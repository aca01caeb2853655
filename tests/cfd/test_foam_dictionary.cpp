// The OpenFOAM dictionary writer: layout, number formatting, replacement in place, file headers.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "CfdTestUtil.hpp"
#include "racktwin/cfd/CaseWriter.hpp"
#include "racktwin/cfd/FoamDictionary.hpp"

using namespace racktwin::cfd;

TEST_CASE("foamNumber prints numbers OpenFOAM reads back exactly to 12 digits",
          "[cfd][dictionary]") {
  CHECK(foamNumber(0.0) == "0");
  CHECK(foamNumber(1.0) == "1");
  CHECK(foamNumber(-2.5) == "-2.5");
  for (double v : {1.489e-7, 1.0e5, 0.123456789012, 390.0, 6.02214076e23}) {
    const double back = std::strtod(foamNumber(v).c_str(), nullptr);
    CHECK(back == Approx(v).epsilon(1e-12));
  }
  CHECK(foamVector(1, 0, 0.5) == "(1 0 0.5)");
  CHECK(foamList({"a", "b"}) == "(a b)");
}

TEST_CASE("FoamDictionary writes nested entries in insertion order", "[cfd][dictionary]") {
  FoamDictionary d;
  d.set("application", "simpleFoam").set("endTime", 100);
  d.sub("SIMPLE").set("consistent", "yes").sub("residualControl").set("p", 1e-6);
  d.line("#include \"extra\"");
  const std::string expected =
      "application simpleFoam;\n"
      "endTime 100;\n"
      "SIMPLE\n{\n"
      "    consistent yes;\n"
      "    residualControl\n    {\n        p 1e-06;\n    }\n"
      "}\n"
      "#include \"extra\"\n";
  CHECK(d.text() == expected);
}

TEST_CASE("FoamDictionary replaces a key where it stands", "[cfd][dictionary]") {
  FoamDictionary d;
  d.set("a", 1).set("b", 2).set("c", 3);
  d.set("b", "uniform 300");
  CHECK(d.text() == "a 1;\nb uniform 300;\nc 3;\n");
  CHECK(d.value("b") == "uniform 300");
  d.sub("a").set("x", 1);  // a plain entry becomes a sub-dictionary
  CHECK(d.findSub("a") != nullptr);
  CHECK(d.value("a").empty());
  FoamDictionary copy = d;  // deep copy
  copy.sub("a").set("x", 2);
  CHECK(d.findSub("a")->value("x") == "1");
}

TEST_CASE("CaseWriter writes files with the FoamFile header of their place", "[cfd][dictionary]") {
  const auto dir = racktwin::test::cfdScratch("dictionary");
  const CaseWriter w(dir);
  FoamDictionary body;
  body.set("dimensions", "[0 0 0 1 0 0 0]").set("internalField", "uniform 300");
  w.write("0/fluid/T", "volScalarField", body);
  const std::string text = readTextFile(dir / "0/fluid/T");
  CHECK(text.find("class volScalarField;") != std::string::npos);
  CHECK(text.find("location \"0/fluid\";") != std::string::npos);
  CHECK(text.find("object T;") != std::string::npos);
  CHECK(text.find("internalField uniform 300;") != std::string::npos);
  CHECK(text.find("FoamFile\n{") < text.find("dimensions"));
}
