// core::reserveHugePageHeap: the grown heap is marked for transparent huge pages (the kernel's
// own view of the mapping, /proc/self/smaps) and later allocations come from it; sites below
// kHugePageHeapGpus, and every site unless RACKTWIN_HUGE_PAGES=1, keep the system's pages.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "racktwin/core/HugePageHeap.hpp"
#include "racktwin/core/SiteSpec.hpp"

namespace {

#if defined(__linux__) && defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) \
    && !defined(__SANITIZE_THREAD__)
constexpr bool kHeapCanBeMarked = true;
#else
constexpr bool kHeapCanBeMarked = false;  // another allocator, or no madvise
#endif

/// The VmFlags of the mapping that holds `address`, from /proc/self/smaps ("" when none does).
std::string vmFlagsAt(const void* address) {
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    const auto dash = line.find('-');
    const auto space = line.find(' ');
    if (dash != std::string::npos && space != std::string::npos && dash < space
        && line.find_first_not_of("0123456789abcdef") == dash) {
      const std::uintptr_t begin = std::stoull(line.substr(0, dash), nullptr, 16);
      const std::uintptr_t end = std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16);
      inside = begin <= a && a < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return {};
}

bool markedForHugePages(const void* address) {
  std::istringstream flags(vmFlagsAt(address));
  std::string flag;
  while (flags >> flag) {
    if (flag == "hg") return true;  // MADV_HUGEPAGE (proc(5))
  }
  return false;
}

racktwin::core::SiteSpec siteOfRacks(std::size_t racks) {
  racktwin::core::SiteSpec site;
  site.racks.resize(racks);  // the default rack type: 18 compute trays of 4 GPUs
  return site;
}

}  // namespace

TEST_CASE("The heap grown for huge pages is marked so and serves the allocations that follow",
          "[core][memory]") {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  const std::size_t marked = racktwin::core::reserveHugePageHeap(64 * kMiB);
  if (!kHeapCanBeMarked) {
    CHECK(marked == 0);
    return;
  }
  // Both ends are rounded to 2 MiB pages.
  CHECK(marked >= 60 * kMiB);
  CHECK(marked <= 64 * kMiB);
  CHECK(marked % (2 * kMiB) == 0);
  // The marked range begins at the first 2 MiB boundary past the heap's old top: a lead block of
  // 2 MiB takes what lies before it. Then a block of a GPU array's size (100,000 values) and one
  // just below glibc's map threshold (32 MiB) land in the marked heap, not in maps of their own.
  // (Small blocks may reuse chunks freed earlier anywhere in the heap.)
  std::vector<char> lead(2 * kMiB, 0);
  std::vector<double> array(100'000, 1.0), large(3'000'000, 1.0);
  INFO(vmFlagsAt(array.data()));
  CHECK(markedForHugePages(array.data()));
  CHECK(markedForHugePages(large.data()));
}

TEST_CASE("Only RACKTWIN_HUGE_PAGES=1 puts a site of 10,000 GPUs or more on huge pages",
          "[core][memory]") {
  using racktwin::core::kHeapPerGpu;
  using racktwin::core::reserveHugePageHeapFor;
  REQUIRE(unsetenv("RACKTWIN_HUGE_PAGES") == 0);
  CHECK(reserveHugePageHeapFor(siteOfRacks(139)) == 0);  // 10,008 GPUs, the default: off
  REQUIRE(setenv("RACKTWIN_HUGE_PAGES", "0", 1) == 0);
  CHECK(reserveHugePageHeapFor(siteOfRacks(139)) == 0);
  REQUIRE(setenv("RACKTWIN_HUGE_PAGES", "1", 1) == 0);
  CHECK(reserveHugePageHeapFor(siteOfRacks(138)) == 0);  // 9,936 GPUs: too few
  const std::size_t marked = reserveHugePageHeapFor(siteOfRacks(139));
  REQUIRE(unsetenv("RACKTWIN_HUGE_PAGES") == 0);
  if (kHeapCanBeMarked) {
    const std::size_t asked = 10'008 * kHeapPerGpu;
    CHECK(marked <= asked);
    CHECK(marked + (std::size_t{4} << 20) >= asked);
  } else {
    CHECK(marked == 0);
  }
}
