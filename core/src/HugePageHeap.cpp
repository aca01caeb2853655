#include "racktwin/core/HugePageHeap.hpp"

#include <cstdlib>
#include <string_view>

#include "racktwin/core/SiteSpec.hpp"

#if defined(__linux__) && defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) \
    && !defined(__SANITIZE_THREAD__)
#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#endif

namespace racktwin::core {

std::size_t reserveHugePageHeap(std::size_t bytes) noexcept {
  // The sanitizers replace malloc: the heap below is not the one they allocate from.
#if defined(__linux__) && defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) \
    && !defined(__SANITIZE_THREAD__)
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  constexpr int kMmapThreshold = 32 << 20;  // glibc's largest on 64-bit systems
  constexpr int kGlibcMmapMax = 65536;      // glibc's default M_MMAP_MAX
  if (bytes < kHugePage) return 0;
  // Blocks below the threshold come from the heap (not each from a map of its own, which would
  // not be marked), and the heap is never trimmed (-1: mallopt(3); a range trimmed and grown
  // again would not be marked).
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, -1);
  // One block of `bytes` taken from the heap itself (maps off while it is asked for) and freed
  // at once: the heap's top now spans it and, never trimmed, keeps it. Only glibc's chunk headers
  // are written, so the range costs address space until it is used. volatile: the compiler may
  // otherwise drop a malloc freed unused.
  mallopt(M_MMAP_MAX, 0);
  void* volatile block = std::malloc(bytes);
  // Its address is taken before it is freed (a freed pointer's value is not to be used).
  const auto begin = reinterpret_cast<std::uintptr_t>(static_cast<void*>(block));
  std::free(block);
  mallopt(M_MMAP_MAX, kGlibcMmapMax);
  if (begin == 0) return 0;
  // The block's whole 2 MiB pages: what the next allocations are carved from.
  const std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHugePage - 1);
  if (last <= first) return 0;
  if (madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) != 0) return 0;
  return last - first;
#else
  (void)bytes;
  return 0;
#endif
}

std::size_t reserveHugePageHeapFor(const SiteSpec& site) noexcept {
  const char* setting = std::getenv("RACKTWIN_HUGE_PAGES");
  if (setting == nullptr || std::string_view(setting) != "1") return 0;
  const std::size_t gpus = gpuCount(site);
  return gpus >= kHugePageHeapGpus ? reserveHugePageHeap(gpus * kHeapPerGpu) : 0;
}

}  // namespace racktwin::core
