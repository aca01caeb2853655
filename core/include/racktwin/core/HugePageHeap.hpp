#pragma once
// The C heap of a large run on transparent huge pages.
//
// A site of 10^5 GPUs streams some 80 MB of state a step through hundreds of small arrays (a
// coolant loop's cells, dies and flow program, each GPU's values). On 4 KiB pages that is some
// 20,000 pages a step, far beyond the processor's TLB, and on a virtual machine every TLB miss
// walks two page tables; on 2 MiB pages it is some 40. Under the kernel's "madvise" policy for
// transparent huge pages (common, and this development machine's) only anonymous memory marked
// MADV_HUGEPAGE gets them, so a program that wants them marks its memory before it touches it.
#include <cstddef>

namespace racktwin::core {

struct SiteSpec;

/// Grows the process's heap (glibc's main arena) by about `bytes`, marks that range for
/// transparent huge pages and keeps it: allocations below 32 MiB are then carved from it, and
/// freed memory is never returned to the system. The range is only reserved: a page costs memory
/// when it is first touched. Its first whole 2 MiB page starts up to 2 MiB past the heap's old
/// top, so the first allocations after the call may still take small pages. Call it once,
/// before the large allocations, from the thread that makes them. Returns the bytes marked: 0
/// where nothing could be marked (not Linux with glibc, a sanitizer's allocator, a refused
/// madvise, `bytes` under 2 MiB). The results do not depend on it; the heap's settings (the map
/// threshold, no trimming) stay even when nothing could be marked.
std::size_t reserveHugePageHeap(std::size_t bytes) noexcept;

/// Sites of at least this many GPUs may run on a huge-page heap (reserveHugePageHeapFor);
/// smaller ones keep their state within the caches' reach.
constexpr std::size_t kHugePageHeapGpus = 10'000;
/// The heap a run takes per GPU, a little above the peak measured on the shipped sites (some
/// 8.8 KB a GPU at 100,008 GPUs and 8.1 KB at 301,824, the result file's buffers included).
constexpr std::size_t kHeapPerGpu = 10 * 1024;

/// reserveHugePageHeap for a run of `site` when the environment sets RACKTWIN_HUGE_PAGES=1:
/// kHeapPerGpu a GPU from kHugePageHeapGpus GPUs, else nothing. Returns the bytes marked.
///
/// Off by default because a huge page's first touch can cost more than its TLB saves. On the
/// development machine (a virtual machine whose free huge pages the host has not backed) a
/// fresh huge page is zeroed at about 0.45 GB/s against some 2.6 GB/s for small pages: the
/// 300k site's 2.4 GB cost some 5 s more to set up, while its steps were 5-11 % faster. A long
/// study, or a machine whose huge pages are cheap to fault, gains; a short run may lose.
std::size_t reserveHugePageHeapFor(const SiteSpec& site) noexcept;

}  // namespace racktwin::core
