// hipport wave emulator: fibers, block scheduler, barriers, wave-level
// rendezvous for cross-lane operations, and error reporting.
//
// Each GPU thread of the running block is a fiber (own stack, cooperative).
// Blocks run one after another.  Inside a block, waves of HIPEMU_WAVE lanes
// (threads linearised x-fastest, then y, then z) run in order; every lane of
// a wave runs until it blocks at a cross-lane op or a barrier (or exits).  A
// stalled wave resolves its pending cross-lane op; when every wave waits at the
// barrier (or has exited) the barrier is released.  See docs/emulator.md.
#pragma once
#include "config.h"
#include "vector_types.h"

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define HIPEMU_ASAN 1
#else
#define HIPEMU_ASAN 0
#endif

#if HIPEMU_ASAN
// Checked builds: emulator exit code, no leak report (programs rarely free
// everything), short reports.  ASAN_OPTIONS still overrides these.  Weak, so
// several translation units may include this header.
extern "C" __attribute__((weak)) const char* __asan_default_options() {
  return "exitcode=86:detect_leaks=0:print_legend=0:malloc_context_size=5";
}
#endif

#if !defined(__x86_64__) && !defined(HIPEMU_USE_UCONTEXT)
#define HIPEMU_USE_UCONTEXT 1
#endif
#if defined(HIPEMU_USE_UCONTEXT)
#include <ucontext.h>
#endif

// warpSize: usable at run time and in constant expressions.
constexpr int warpSize = HIPEMU_WAVE;

namespace hipemu {

constexpr int kWave = HIPEMU_WAVE;
constexpr int kMaxBlockThreads = 1024;
constexpr size_t kMaxDynShared = 64 * 1024;  // LDS per workgroup on CDNA
constexpr unsigned long long kWaveBits =
    kWave == 64 ? ~0ull : ((1ull << kWave) - 1);

// A call site, captured through default arguments at the user's call.
struct Site {
  const char* file;
  int line;
  const char* func;
  constexpr Site(const char* f = __builtin_FILE(), int l = __builtin_LINE(),
                 const char* fn = __builtin_FUNCTION())
      : file(f), line(l), func(fn) {}
};

// Symbol reference made by HIP_SYMBOL(x): address and size of the variable.
struct SymbolRef {
  const void* ptr;
  size_t size;
};

namespace detail {

enum FState : int { F_READY, F_WAVEOP, F_BARRIER, F_DONE };
enum Op : int {
  OP_SHFL, OP_SHFL_UP, OP_SHFL_DOWN, OP_SHFL_XOR,  // order matters (is_shfl)
  OP_BALLOT, OP_ACTIVEMASK, OP_SYNC, OP_MATCH_ANY, OP_MATCH_ALL, OP_REDUCE
};
enum Flags : int { FL_MASK = 1, FL_LENIENT_EXITED = 2 };
enum Reduce : int { RED_ADD, RED_MIN, RED_MAX, RED_UMIN, RED_UMAX, RED_AND, RED_OR, RED_XOR };

struct Fiber {
  void* sp = nullptr;
  char* mem = nullptr;  // mapping: guard page + stack
  size_t mem_size = 0;
  char* stack_lo = nullptr;
  size_t stack_size = 0;
  void* fake_stack = nullptr;  // ASan fiber bookkeeping
#if defined(HIPEMU_USE_UCONTEXT)
  ucontext_t uc;
#endif
  uint3 tid{0, 0, 0};
  int linear = 0, wave = 0, lane = 0;
  int state = F_DONE;
  unsigned nops = 0;  // cross-lane ops since the wave last converged (divergence heuristic)
  // pending operation (cross-lane op or barrier)
  int op = 0, param = 0, width = 0, vsize = 0, flags = 0;
  unsigned long long mask = 0, in = 0, out = 0, out2 = 0;
  Site site{nullptr, 0, nullptr};
  const char* opname = "";
};

struct State {
  Fiber* fibers = nullptr;
  int cap = 0;
  Fiber* cur = nullptr;
  void* sched_sp = nullptr;
#if defined(HIPEMU_USE_UCONTEXT)
  ucontext_t sched_uc;
#endif
  void* sched_fake = nullptr;
  const void* main_bottom = nullptr;
  size_t main_size = 0;
  uint3 bidx{0, 0, 0};
  dim3 bdim, gdim;
  int nthreads = 0, nwaves = 0, ndone = 0;
  const char* kname = "";
  const char* lfile = "";
  int lline = 0;
  void (*body)(void*) = nullptr;
  void* body_ctx = nullptr;
  volatile sig_atomic_t in_kernel = 0;
  bool cooperative = false;  // the running kernel was started by a cooperative launch
  volatile unsigned long long switches = 0;
  unsigned long long wd_last = 0;
  int wd_ticks = 0;
  int watchdog_s = -1;
  size_t stack_size = 0;
  size_t dyn_size = 0;
  bool signals_installed = false;
  int last_error = 0;
  int device = 0;
};
inline State g;

// Fixed dynamic-shared-memory buffer (guard | 64 KiB | guard); in checked
// (ASan) builds everything outside [0, dynamic size) is poisoned per launch.
constexpr size_t kDynGuard = 256;
alignas(256) inline char dyn_storage[kDynGuard + kMaxDynShared + kDynGuard];
inline void* dyn_smem() { return dyn_storage + kDynGuard; }

// ---------------------------------------------------------------- messages
inline const char* base_name(const char* p) {
  return p ? p : "?";
}

inline void vputs_err(const char* s) {
  size_t n = std::strlen(s);
  while (n) {
    ssize_t w = ::write(2, s, n);
    if (w <= 0) break;
    s += w;
    n -= (size_t)w;
  }
}

// Print "hipemu:   in kernel ..., block ..., thread ..." for fiber f.
inline void context_line(char* buf, size_t n, const Fiber* f) {
  int k = std::snprintf(buf, n, "hipemu:   in kernel '%s' (launched at %s:%d), block (%u,%u,%u)",
                        g.kname, base_name(g.lfile), g.lline, g.bidx.x, g.bidx.y,
                        g.bidx.z);
  if (f && k > 0 && (size_t)k < n)
    std::snprintf(buf + k, n - k, ", thread (%u,%u,%u) [wave %d, lane %d]\n", f->tid.x,
                  f->tid.y, f->tid.z, f->wave, f->lane);
  else if (k > 0 && (size_t)k < n)
    std::snprintf(buf + k, n - k, "\n");
}

[[noreturn]] inline void die() {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(HIPEMU_EXIT_CODE);
}

// Fatal error: message, kernel/block/thread context, source site; exit 86.
[[noreturn]] inline void fatal_at(const Fiber* f, const Site* s, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
[[noreturn]] inline void fatal_at(const Fiber* f, const Site* s, const char* fmt, ...) {
  std::fflush(stdout);
  char buf[2048];
  std::strcpy(buf, "hipemu: error: ");
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf + 15, sizeof buf - 16, fmt, ap);
  va_end(ap);
  std::strcat(buf, "\n");
  vputs_err(buf);
  if (g.in_kernel) {
    context_line(buf, sizeof buf, f);
    vputs_err(buf);
  }
  if (s && s->file) {
    std::snprintf(buf, sizeof buf, "hipemu:   at %s:%d (in %s)\n", s->file, s->line,
                  s->func ? s->func : "?");
    vputs_err(buf);
  }
  die();
}

// Describe what lane fiber o is doing (for "inactive lane" messages).
inline void describe(char* buf, size_t n, const Fiber& o) {
  switch (o.state) {
    case F_DONE:
      std::snprintf(buf, n, "lane %d (thread (%u,%u,%u)) has exited the kernel", o.lane,
                    o.tid.x, o.tid.y, o.tid.z);
      break;
    case F_BARRIER:
      std::snprintf(buf, n, "lane %d (thread (%u,%u,%u)) is waiting in %s at %s:%d", o.lane,
                    o.tid.x, o.tid.y, o.tid.z, o.opname, o.site.file, o.site.line);
      break;
    case F_WAVEOP:
      std::snprintf(buf, n,
                    "lane %d (thread (%u,%u,%u)) is at a different cross-lane call, %s at "
                    "%s:%d",
                    o.lane, o.tid.x, o.tid.y, o.tid.z, o.opname, o.site.file, o.site.line);
      break;
    default:
      std::snprintf(buf, n, "lane %d (thread (%u,%u,%u)) is running", o.lane, o.tid.x,
                    o.tid.y, o.tid.z);
  }
}

[[noreturn]] inline void unsupported(const char* what, const Site& s) {
  fatal_at(g.in_kernel ? g.cur : nullptr, &s, "unsupported construct: %s", what);
}

inline Fiber* current(const char* name, const Site& s) {
  Fiber* f = g.cur;
  if (__builtin_expect(!g.in_kernel || !f, 0))
    fatal_at(nullptr, &s, "%s called outside a kernel", name);
  return f;
}

// ---------------------------------------------------------------- contexts
#if !defined(HIPEMU_USE_UCONTEXT)
// x86-64 System V switch: push the callee-saved registers, store sp, load
// the other fiber's sp, pop, return.  MXCSR / x87 control words are NOT
// switched (ldmxcsr/fldcw are serialising and cost half the switch time):
// all fibers share the FP environment, so a kernel must not change rounding
// modes.  Weak so that several translation units may include this header.
asm(R"(
    .pushsection .text
    .weak hipemu_ctx_switch_v1
    .type hipemu_ctx_switch_v1,@function
hipemu_ctx_switch_v1:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size hipemu_ctx_switch_v1, .-hipemu_ctx_switch_v1
    .popsection
)");
}  // namespace detail
}  // namespace hipemu
extern "C" void hipemu_ctx_switch_v1(void** save_sp, void* new_sp);
namespace hipemu {
namespace detail {
#endif

inline void fiber_main();

#if HIPEMU_ASAN
inline void asan_start(void** fake, const void* bottom, size_t size) {
  __sanitizer_start_switch_fiber(fake, bottom, size);
}
inline void asan_finish(void* fake, const void** bottom, size_t* size) {
  __sanitizer_finish_switch_fiber(fake, bottom, size);
}
#else
inline void asan_start(void**, const void*, size_t) {}
inline void asan_finish(void*, const void**, size_t*) {}
#endif

#if defined(HIPEMU_USE_UCONTEXT)
inline void fiber_main_uc() { fiber_main(); }
#endif

// Prepare fiber f to start fiber_main at its next resume.
inline void ctx_init(Fiber& f) {
#if HIPEMU_ASAN
  __asan_unpoison_memory_region(f.stack_lo, f.stack_size);
#endif
#if defined(HIPEMU_USE_UCONTEXT)
  getcontext(&f.uc);
  f.uc.uc_stack.ss_sp = f.stack_lo;
  f.uc.uc_stack.ss_size = f.stack_size;
  f.uc.uc_link = nullptr;
  makecontext(&f.uc, (void (*)())fiber_main_uc, 0);
#else
  // Stagger stack tops by 64-byte lines (cache colouring): page-aligned tops
  // would all map to the same L1 set.
  size_t colour = (size_t)(f.linear & 63) * 64;
  void** sp = reinterpret_cast<void**>(f.stack_lo + f.stack_size - colour);
  *--sp = nullptr;                                   // fake return address
  *--sp = reinterpret_cast<void*>(&fiber_main);     // 'ret' target
  for (int i = 0; i < 6; ++i) *--sp = nullptr;       // rbp rbx r12-r15
  f.sp = sp;
#endif
}

inline void resume(Fiber& f) {
  g.cur = &f;
  g.switches = g.switches + 1;
  asan_start(&g.sched_fake, f.stack_lo, f.stack_size);
#if defined(HIPEMU_USE_UCONTEXT)
  swapcontext(&g.sched_uc, &f.uc);
#else
  hipemu_ctx_switch_v1(&g.sched_sp, f.sp);
#endif
  asan_finish(g.sched_fake, nullptr, nullptr);
}

// The next lane of f's wave that is ready to run (lanes run in lane order;
// the scheduler's pass over the wave skips lanes that ran meanwhile).
inline Fiber* next_ready(Fiber* f) {
  int end = (f->wave + 1) * kWave;
  if (end > g.nthreads) end = g.nthreads;
  for (Fiber* p = f + 1; p < g.fibers + end; ++p)
    if (p->state == F_READY) return p;
  return nullptr;
}

// Suspend the running fiber: switch straight to the next ready lane of the
// wave, or back to the scheduler.  `fake` is null when f leaves for good.
inline void switch_out(Fiber* f, void** fake) {
#if defined(HIPEMU_USE_UCONTEXT)
  (void)next_ready;
  asan_start(fake, g.main_bottom, g.main_size);
  if (fake)
    swapcontext(&f->uc, &g.sched_uc);
  else
    setcontext(&g.sched_uc);
#else
  if (Fiber* n = next_ready(f)) {
    g.cur = n;
    g.switches = g.switches + 1;
    asan_start(fake, n->stack_lo, n->stack_size);
    hipemu_ctx_switch_v1(&f->sp, n->sp);
  } else {
    asan_start(fake, g.main_bottom, g.main_size);
    hipemu_ctx_switch_v1(&f->sp, g.sched_sp);
  }
#endif
}

inline void yield(Fiber* f) {
  switch_out(f, &f->fake_stack);
  asan_finish(f->fake_stack, nullptr, nullptr);
}

inline void fiber_main() {
  asan_finish(nullptr, nullptr, nullptr);
  g.body(g.body_ctx);
  Fiber* f = g.cur;
  f->state = F_DONE;
  ++g.ndone;
  switch_out(f, nullptr);
  __builtin_trap();  // never resumed
}

inline size_t env_size(const char* name, size_t dflt) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  return (size_t)std::strtoull(v, nullptr, 10);
}

inline void alloc_fibers(int n) {
#if HIPEMU_ASAN
  if (!g.main_bottom) {  // bounds of the launching thread's stack, for ASan
    pthread_attr_t a;
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
      pthread_attr_getstack(&a, &addr, &size);
      pthread_attr_destroy(&a);
    }
    g.main_bottom = addr;
    g.main_size = size;
  }
#endif
  if (n <= g.cap) return;
  if (!g.stack_size) {
    size_t kb = env_size("HIPEMU_STACK_KB", HIPEMU_ASAN ? 512 : 128);
    if (kb < 16) kb = 16;
    g.stack_size = (kb * 1024 + 4095) & ~size_t(4095);
  }
  // The fiber table gets its own mapping, away from the malloc heap that
  // program buffers (hipMalloc) live in, so their overflows cannot hit it.
  size_t bytes = ((size_t)n * sizeof(Fiber) + 4095) & ~size_t(4095);
  void* tm = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (tm == MAP_FAILED) fatal_at(nullptr, nullptr, "out of host memory allocating fibers");
  Fiber* nf = static_cast<Fiber*>(tm);
  for (int i = 0; i < g.cap; ++i) nf[i] = g.fibers[i];
  const size_t page = 4096;
  for (int i = g.cap; i < n; ++i) {
    new (&nf[i]) Fiber();
    Fiber& f = nf[i];
    f.mem_size = g.stack_size + page;
    void* m = mmap(nullptr, f.mem_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (m == MAP_FAILED) fatal_at(nullptr, nullptr, "cannot map fiber stack");
    mprotect(m, page, PROT_NONE);  // guard page catches stack overflow
    f.mem = static_cast<char*>(m);
    f.stack_lo = f.mem + page;
    f.stack_size = g.stack_size;
  }
  if (g.fibers) munmap(g.fibers, ((size_t)g.cap * sizeof(Fiber) + 4095) & ~size_t(4095));
  g.fibers = nf;
  g.cap = n;
}

// ---------------------------------------------------------------- signals
inline void signal_report(const char* what) {
  char buf[1024];
  std::fflush(stdout);
  std::snprintf(buf, sizeof buf, "hipemu: error: %s\n", what);
  vputs_err(buf);
  context_line(buf, sizeof buf, g.cur);
  vputs_err(buf);
}

inline void on_fatal_signal(int sig, siginfo_t* si, void*) {
  if (!g.in_kernel) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  char what[512];
  if (sig == SIGSEGV || sig == SIGBUS) {
    const char* a = static_cast<const char*>(si->si_addr);
    for (int i = 0; i < g.cap; ++i) {
      const Fiber& f = g.fibers[i];
      if (a >= f.mem && a < f.stack_lo + 256) {
        std::snprintf(what, sizeof what,
                      "fiber stack overflow (stack is %zu KiB; set HIPEMU_STACK_KB to enlarge)",
                      g.stack_size / 1024);
        signal_report(what);
        _exit(HIPEMU_EXIT_CODE);
      }
    }
    std::snprintf(what, sizeof what,
                  "invalid memory access at address %p (signal %d); rebuild with check=True "
                  "(-fsanitize=address) for the source line",
                  si->si_addr, sig);
  } else if (sig == SIGFPE) {
    std::snprintf(what, sizeof what, "arithmetic exception (SIGFPE, e.g. integer division by zero)");
  } else if (sig == SIGILL) {
    std::snprintf(what, sizeof what, "trap / illegal instruction (SIGILL, e.g. __trap())");
  } else {
    std::snprintf(what, sizeof what, "kernel aborted (signal %d, e.g. a failed assert)", sig);
  }
  signal_report(what);
  _exit(HIPEMU_EXIT_CODE);
}

inline void on_watchdog(int) {
  if (!g.in_kernel) return;
  unsigned long long s = g.switches;
  if (s != g.wd_last) {
    g.wd_last = s;
    g.wd_ticks = 0;
    return;
  }
  if (++g.wd_ticks < g.watchdog_s) return;
  char what[256];
  std::snprintf(what, sizeof what,
                "thread made no progress for %d s of CPU time without reaching a barrier or "
                "cross-lane op (spin-wait on another thread? threads are cooperative fibers; "
                "HIPEMU_WATCHDOG=0 disables this check)",
                g.watchdog_s);
  signal_report(what);
  _exit(HIPEMU_EXIT_CODE);
}

#if HIPEMU_ASAN
inline void asan_death_callback() {
  if (!g.in_kernel) return;
  char buf[1024];
  char loc[512] = "?";
  void* pc = __asan_get_report_pc();
  if (pc) __sanitizer_symbolize_pc(pc, "%L (in %f)", loc, sizeof loc);
  const char* a = static_cast<const char*>(__asan_get_report_address());
  const char* base = static_cast<const char*>(dyn_smem());
  if (a >= dyn_storage && a < dyn_storage + sizeof(dyn_storage))
    std::snprintf(buf, sizeof buf,
                  "hipemu: error: out-of-bounds dynamic shared memory access at byte offset "
                  "%td (dynamic shared size of this launch: %zu bytes)\n",
                  a - base, g.dyn_size);
  else
    std::snprintf(buf, sizeof buf,
                  "hipemu: error: invalid memory access (out-of-bounds shared/global array, "
                  "see the AddressSanitizer report above for the variable)\n");
  vputs_err(buf);
  context_line(buf, sizeof buf, g.cur);
  vputs_err(buf);
  std::snprintf(buf, sizeof buf, "hipemu:   at %s\n", loc);
  vputs_err(buf);
}
#endif

inline void install_signals() {
  if (g.signals_installed) return;
  g.signals_installed = true;
  static char altstack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = altstack;
  ss.ss_size = sizeof altstack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_sigaction = on_fatal_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
#if !HIPEMU_ASAN
  sigaction(SIGSEGV, &sa, nullptr);
  sigaction(SIGBUS, &sa, nullptr);
  sigaction(SIGFPE, &sa, nullptr);
#else
  __sanitizer_set_death_callback(asan_death_callback);
#endif
  sigaction(SIGILL, &sa, nullptr);
  sigaction(SIGABRT, &sa, nullptr);
  struct sigaction wa{};
  wa.sa_handler = on_watchdog;
  wa.sa_flags = SA_RESTART | SA_ONSTACK;
  sigemptyset(&wa.sa_mask);
  sigaction(SIGVTALRM, &wa, nullptr);
}

inline void arm_watchdog(bool on) {
  if (g.watchdog_s < 0) g.watchdog_s = (int)env_size("HIPEMU_WATCHDOG", 30);
  if (g.watchdog_s == 0) return;
  struct itimerval it{};
  if (on) {
    it.it_interval.tv_sec = 1;
    it.it_value.tv_sec = 1;
    g.wd_ticks = 0;
    g.wd_last = g.switches;
  }
  setitimer(ITIMER_VIRTUAL, &it, nullptr);
}

// ---------------------------------------------------------------- sites
inline bool same_site(const Site& a, const Site& b) {
  return a.line == b.line &&
         (a.file == b.file || (a.file && b.file && std::strcmp(a.file, b.file) == 0)) &&
         (a.func == b.func || (a.func && b.func && std::strcmp(a.func, b.func) == 0));
}
inline bool same_op(const Fiber& a, const Fiber& b) {
  return a.op == b.op && a.opname == b.opname && same_site(a.site, b.site);
}

// Source lane of a shuffle, exactly as HIP's amd_warp_functions.h computes
// it (ds_bpermute wraps the lane index modulo the wave size).
inline int shfl_src(int op, int lane, int p, int width) {
  int idx = lane;
  switch (op) {
    case OP_SHFL: idx = (p & (width - 1)) + (lane & ~(width - 1)); break;
    case OP_SHFL_UP:
      idx = lane - p;
      if (idx < (lane & ~(width - 1))) idx = lane;
      break;
    case OP_SHFL_DOWN:
      idx = lane + p;
      if ((int)((unsigned)(lane & (width - 1)) + (unsigned)p) >= width) idx = lane;
      break;
    case OP_SHFL_XOR:
      idx = lane ^ p;
      if (idx >= ((lane + width) & ~(width - 1))) idx = lane;
      break;
  }
  return idx & (kWave - 1);
}

inline bool is_shfl(int op) { return op <= OP_SHFL_XOR; }

// Lanes a pending lane needs (to read from, or named in its mask).
inline unsigned long long needs(const Fiber& f) {
  unsigned long long r = 0;
  if (is_shfl(f.op)) r |= 1ull << shfl_src(f.op, f.lane, f.param, f.width);
  if (f.flags & FL_MASK) r |= f.mask & kWaveBits;
  return r;
}

// ---------------------------------------------------------------- resolution
[[noreturn]] inline void inactive_error(const Fiber& f, const Fiber& o, const char* how) {
  char d[512];
  describe(d, sizeof d, o);
  fatal_at(&f, &f.site, "%s %s lane %d, which is not active at this call: %s", f.opname, how,
           o.lane, d);
}

// What a read of an undefined source lane does (HIPEMU_UNDEFINED: quiet, warn or error).
enum { UNDEF_QUIET, UNDEF_WARN, UNDEF_ERROR };
inline int undefined_mode() {
  static const int mode = [] {
    const char* v = std::getenv("HIPEMU_UNDEFINED");
    if (!v || !*v || !std::strcmp(v, "quiet")) return (int)UNDEF_QUIET;
    if (!std::strcmp(v, "warn")) return (int)UNDEF_WARN;
    if (!std::strcmp(v, "error")) return (int)UNDEF_ERROR;
    std::fprintf(stderr, "hipemu: HIPEMU_UNDEFINED must be quiet, warn or error, not '%s'\n", v);
    std::exit(HIPEMU_EXIT_CODE);
  }();
  return mode;
}
// One note per call site (the first one seen) on stderr.
inline void undefined_note(const Fiber& f, int src, const char* why) {
  static Site seen[64];
  static int nseen = 0;
  for (int i = 0; i < nseen; ++i)
    if (seen[i].file == f.site.file && seen[i].line == f.site.line) return;
  if (nseen < 64) seen[nseen++] = f.site;
  std::fflush(stdout);
  std::fprintf(stderr,
               "hipemu: note: %s at %s:%d: lane %d reads lane %d, which %s; the result is "
               "undefined (all bits set)\n",
               f.opname, f.site.file ? f.site.file : "?", f.site.line, f.lane, src, why);
}

// A shuffle of lane f reads lane s, which is not in its active group.  CUDA leaves the result
// undefined when s has exited, does not exist (partial wave) or is outside the member mask:
// an undefined value (all bits set: -1, NaN), not a fault; HIPEMU_UNDEFINED=warn notes it,
// =error stops.  A lane that is alive but waits elsewhere is a divergence error.
[[gnu::noinline, gnu::cold]] inline unsigned long long undefined_read(const Fiber& f, const Fiber* F,
                                                                      int s, int cnt) {
  const bool gone = s >= cnt || F[s].state == F_DONE;
  const bool outside = (f.flags & FL_MASK) && !((f.mask >> s) & 1);
  const int mode = undefined_mode();
  if ((gone || outside) && mode != UNDEF_ERROR) {
    if (mode == UNDEF_WARN)
      undefined_note(f, s, gone ? (s >= cnt ? "does not exist" : "has exited") : "is outside the mask");
    return ~0ull;
  }
  if (s >= cnt)
    fatal_at(&f, &f.site,
             "%s reads lane %d, which does not exist (the block has only %d thread(s) in this wave)",
             f.opname, s, cnt);
  inactive_error(f, F[s], "reads");
}

// Resolve the cross-lane op of the group of lanes `gm` (all at one site) in
// the wave starting at fiber index `first`.
inline void resolve_group(int first, int cnt, unsigned long long gm) {
  Fiber* F = g.fibers + first;
  const int l0 = __builtin_ctzll(gm);
  const Fiber& lead = F[l0];
  const int op = lead.op;
  unsigned long long present = 0;  // lanes that have not exited
  for (int l = 0; l < cnt; ++l)
    if (F[l].state != F_DONE) present |= 1ull << l;

  if (lead.flags & FL_MASK) {
    for (unsigned long long m = gm; m; m &= m - 1) {
      const Fiber& f = F[__builtin_ctzll(m)];
      unsigned long long M = f.mask & kWaveBits;
      if (f.flags & FL_LENIENT_EXITED) M &= present;
      if (!((M >> f.lane) & 1))
        fatal_at(&f, &f.site, "%s: mask 0x%llx does not include the calling lane %d", f.opname,
                 f.mask, f.lane);
      unsigned long long missing = M & ~gm;
      if (missing) {
        const Fiber& o = F[__builtin_ctzll(missing)];
        char d[512];
        describe(d, sizeof d, o);
        if (o.state == F_BARRIER)
          fatal_at(&f, &f.site,
                   "deadlock: %s with mask 0x%llx waits for lane %d, but %s (no thread can "
                   "make progress)",
                   f.opname, f.mask, o.lane, d);
        fatal_at(&f, &f.site,
                 "%s: mask 0x%llx names lane %d, which is not executing this call: %s",
                 f.opname, f.mask, o.lane, d);
      }
      for (unsigned long long mm = M; mm; mm &= mm - 1) {
        const Fiber& o = F[__builtin_ctzll(mm)];
        unsigned long long Mo = o.mask & kWaveBits;
        if (o.flags & FL_LENIENT_EXITED) Mo &= present;
        if (Mo != M)
          fatal_at(&f, &f.site,
                   "%s: lanes %d and %d are both in mask 0x%llx but pass different masks "
                   "(0x%llx vs 0x%llx)",
                   f.opname, f.lane, o.lane, f.mask, f.mask, o.mask);
      }
    }
  }

  switch (op) {
    case OP_SHFL:
    case OP_SHFL_UP:
    case OP_SHFL_DOWN:
    case OP_SHFL_XOR:
      for (unsigned long long m = gm; m; m &= m - 1) {
        Fiber& f = F[__builtin_ctzll(m)];
        int s = shfl_src(op, f.lane, f.param, f.width);
        if (__builtin_expect(!((gm >> s) & 1), 0)) {
          f.out = undefined_read(f, F, s, cnt);
          continue;
        }
        f.out = F[s].in;
      }
      break;
    case OP_BALLOT: {
      unsigned long long b = 0;
      for (unsigned long long m = gm; m; m &= m - 1) {
        int l = __builtin_ctzll(m);
        if (F[l].in) b |= 1ull << l;
      }
      for (unsigned long long m = gm; m; m &= m - 1) {
        Fiber& f = F[__builtin_ctzll(m)];
        f.out = b;
        f.out2 = gm;
      }
      break;
    }
    case OP_ACTIVEMASK:
    case OP_SYNC:
      for (unsigned long long m = gm; m; m &= m - 1) F[__builtin_ctzll(m)].out = gm;
      break;
    case OP_MATCH_ANY:
    case OP_MATCH_ALL: {
      for (unsigned long long m = gm; m; m &= m - 1) {
        Fiber& f = F[__builtin_ctzll(m)];
        // *_sync: the (checked) mask; otherwise the active lanes.
        unsigned long long M = (f.flags & FL_MASK) ? (f.mask & kWaveBits) : gm, same = 0;
        for (unsigned long long mm = M; mm; mm &= mm - 1) {
          int l = __builtin_ctzll(mm);
          if (F[l].in == f.in) same |= 1ull << l;
        }
        if (op == OP_MATCH_ANY) {
          f.out = same;
        } else {
          f.out = same == M ? M : 0;
          f.out2 = same == M;
        }
      }
      break;
    }
    case OP_REDUCE:
      for (unsigned long long m = gm; m; m &= m - 1) {
        Fiber& f = F[__builtin_ctzll(m)];
        unsigned long long M = f.mask & kWaveBits;
        int red = f.param;
        unsigned r = (unsigned)F[__builtin_ctzll(M)].in;
        for (unsigned long long mm = M & (M - 1); mm; mm &= mm - 1) {
          unsigned v = (unsigned)F[__builtin_ctzll(mm)].in;
          switch (red) {
            case RED_ADD: r += v; break;
            case RED_MIN: r = (int)v < (int)r ? v : r; break;
            case RED_MAX: r = (int)v > (int)r ? v : r; break;
            case RED_UMIN: r = v < r ? v : r; break;
            case RED_UMAX: r = v > r ? v : r; break;
            case RED_AND: r &= v; break;
            case RED_OR: r |= v; break;
            case RED_XOR: r ^= v; break;
          }
        }
        f.out = r;
      }
      break;
  }
  // nops counts ops since the wave last executed one fully converged.
  const bool converged = gm == present;
  for (unsigned long long m = gm; m; m &= m - 1) {
    Fiber& f = F[__builtin_ctzll(m)];
    f.state = F_READY;
    f.nops = converged ? 0 : f.nops + 1;
  }
}

// A wave has stalled with some lanes at cross-lane ops: resolve one group.
// Lanes of one call site form the active set (exec-mask semantics).  With
// several sites pending (divergence), prefer a group whose reads/masks stay
// inside it; between two groups of one function, the earlier line (the branch
// body the hardware executes before reconverging); otherwise the group whose
// lanes completed fewer cross-lane ops since the wave last ran one fully
// converged (it is behind), then the smaller one.
inline void resolve_wave(int w) {
  const int first = w * kWave;
  const int cnt = g.nthreads - first < kWave ? g.nthreads - first : kWave;
  Fiber* F = g.fibers + first;
  unsigned long long gm[kWave];
  int lead[kWave];
  int ng = 0;
  for (int l = 0; l < cnt; ++l) {
    if (F[l].state != F_WAVEOP) continue;
    int k = 0;
    while (k < ng && !same_op(F[lead[k]], F[l])) ++k;
    if (k == ng) {
      lead[ng] = l;
      gm[ng++] = 0;
    }
    gm[k] |= 1ull << l;
  }
  if (ng == 0) return;
  int pick = 0;
  if (ng > 1) {
    bool clean[kWave];
    int nclean = 0;
    for (int k = 0; k < ng; ++k) {
      unsigned long long need = 0;
      for (unsigned long long m = gm[k]; m; m &= m - 1) need |= needs(F[__builtin_ctzll(m)]);
      clean[k] = (need & ~gm[k]) == 0;
      nclean += clean[k];
    }
    unsigned ops[kWave];
    for (int k = 0; k < ng; ++k) {
      ops[k] = ~0u;
      for (unsigned long long m = gm[k]; m; m &= m - 1)
        if (F[__builtin_ctzll(m)].nops < ops[k]) ops[k] = F[__builtin_ctzll(m)].nops;
    }
    pick = -1;
    for (int k = 0; k < ng; ++k) {
      if (nclean && !clean[k]) continue;
      if (pick < 0) {
        pick = k;
        continue;
      }
      const Site& a = F[lead[k]].site;
      const Site& b = F[lead[pick]].site;
      bool same_func = (a.func == b.func || std::strcmp(a.func, b.func) == 0) &&
                       (a.file == b.file || std::strcmp(a.file, b.file) == 0);
      bool better;
      if (same_func && a.line != b.line)
        better = a.line < b.line;
      else if (ops[k] != ops[pick])
        better = ops[k] < ops[pick];
      else
        better = __builtin_popcountll(gm[k]) < __builtin_popcountll(gm[pick]);
      if (better) pick = k;
    }
  }
  resolve_group(first, cnt, gm[pick]);
}

// ---------------------------------------------------------------- occupancy
// Lane use per kernel. Each time a wave runs, the lanes it resumes execute one segment of
// code together (up to the next cross-lane op, barrier or exit); the others are masked off
// (divergence) or absent (a block smaller than the wave). `steps` counts those segments
// and `lanes` the lanes in them, so lanes / (steps * wave) is the fraction of lane slots
// doing work; `present` counts the lanes the wave has at all (a block smaller than the wave
// leaves the rest absent, where masked-off lanes are divergence). With HIPEMU_OCCUPANCY=FILE
// set, one line per kernel is appended to FILE at exit:
// HIPEMU_LINE_BUFFERED=1: stdout goes out line by line, so a run stopped (or crashed) after a
// program printed that its own check passed still shows that line.
inline const int line_buffered = [] {
  const char* v = std::getenv("HIPEMU_LINE_BUFFERED");
  return v && *v == '1' ? std::setvbuf(stdout, nullptr, _IOLBF, 0) == 0 : 0;
}();

// "kernel<TAB>wave<TAB>steps<TAB>lanes<TAB>present".
struct Occupancy {
  char name[256];
  unsigned long long steps, lanes, present;
};
inline Occupancy occ[256];
inline int nocc = 0, occ_cur = -1, occ_on = -1;

inline void occ_write() {
  const char* path = std::getenv("HIPEMU_OCCUPANCY");
  FILE* f = path && *path ? std::fopen(path, "a") : nullptr;
  if (!f) return;
  for (int i = 0; i < nocc; ++i)
    std::fprintf(f, "%s\t%d\t%llu\t%llu\t%llu\n", occ[i].name, kWave, occ[i].steps, occ[i].lanes,
                 occ[i].present);
  std::fclose(f);
}

inline void occ_begin(const char* kname) {
  if (occ_on < 0) {
    const char* v = std::getenv("HIPEMU_OCCUPANCY");
    occ_on = v && *v;
    if (occ_on) std::atexit(occ_write);
  }
  if (!occ_on) return;
  for (int i = 0; i < nocc; ++i)
    if (std::strcmp(occ[i].name, kname) == 0) {
      occ_cur = i;
      return;
    }
  if (nocc == (int)(sizeof occ / sizeof occ[0])) {
    occ_cur = -1;  // more distinct kernels than slots: the rest go uncounted
    return;
  }
  std::snprintf(occ[nocc].name, sizeof occ[nocc].name, "%s", kname);
  occ[nocc].steps = occ[nocc].lanes = occ[nocc].present = 0;
  occ_cur = nocc++;
}

// Run wave w until every lane waits at a barrier or has exited.
inline void run_wave(int w) {
  const int first = w * kWave;
  const int last = g.nthreads - first < kWave ? g.nthreads : first + kWave;
  Fiber* F = g.fibers;
  for (;;) {
    bool pending = false;
    if (occ_cur >= 0) {  // every lane ready now runs in this pass (a lane hands on to the next)
      int active = 0;
      for (int i = first; i < last; ++i) active += F[i].state == F_READY;
      if (active) {
        ++occ[occ_cur].steps;
        occ[occ_cur].lanes += (unsigned long long)active;
        occ[occ_cur].present += (unsigned long long)(last - first);
      }
    }
    for (int i = first; i < last; ++i) {
      if (F[i].state == F_READY) resume(F[i]);
      pending |= F[i].state == F_WAVEOP;
    }
    if (!pending) return;
    resolve_wave(w);
  }
}

// All live threads wait at a barrier: check they wait at the same one.
inline void release_barrier() {
  Fiber* F = g.fibers;
  int n = g.nthreads, r = -1, waiting = 0, count = 0;
  for (int i = 0; i < n; ++i) {
    if (F[i].state != F_BARRIER) continue;
    if (r < 0) r = i;
    if (!same_site(F[i].site, F[r].site) || F[i].op != F[r].op) {
      int nr = 0, ni = 0;
      for (int j = 0; j < n; ++j) {
        if (F[j].state != F_BARRIER) continue;
        nr += same_site(F[j].site, F[r].site) && F[j].op == F[r].op;
        ni += same_site(F[j].site, F[i].site) && F[j].op == F[i].op;
      }
      fatal_at(&F[i], &F[i].site,
               "deadlock: %s not reached by all threads of the block: %d thread(s) wait in %s "
               "at %s:%d (first: thread (%u,%u,%u)) and %d thread(s) wait in %s at %s:%d "
               "(first: thread (%u,%u,%u)); no thread can make progress",
               F[r].opname, nr, F[r].opname, F[r].site.file, F[r].site.line, F[r].tid.x,
               F[r].tid.y, F[r].tid.z, ni, F[i].opname, F[i].site.file, F[i].site.line,
               F[i].tid.x, F[i].tid.y, F[i].tid.z);
    }
    ++waiting;
    count += F[i].in != 0;
  }
  unsigned long long res = 0;
  switch (F[r].op) {
    case 1: res = (unsigned)count; break;          // __syncthreads_count
    case 2: res = count == waiting; break;         // __syncthreads_and
    case 3: res = count != 0; break;               // __syncthreads_or
  }
  for (int i = 0; i < n; ++i)
    if (F[i].state == F_BARRIER) {
      F[i].out = res;
      F[i].state = F_READY;
    }
}

inline void run_block() {
  Fiber* F = g.fibers;
  for (int i = 0; i < g.nthreads; ++i) {
    ctx_init(F[i]);
    F[i].state = F_READY;
    F[i].nops = 0;
  }
  g.ndone = 0;
  for (;;) {
    for (int w = 0; w < g.nwaves; ++w) run_wave(w);
    if (g.ndone == g.nthreads) return;
    release_barrier();
  }
}

// ---------------------------------------------------------------- device ops
inline int barrier(int kind, int pred, const char* name, const Site& s) {
  Fiber* f = current(name, s);
  f->op = kind;
  f->in = pred != 0;
  f->site = s;
  f->opname = name;
  f->state = F_BARRIER;
  yield(f);
  return (int)f->out;
}

inline unsigned long long wave_op(int op, const char* name, unsigned long long in, int param,
                                  int width, unsigned long long mask, int flags, const Site& s,
                                  unsigned long long* out2 = nullptr) {
  Fiber* f = current(name, s);
  f->op = op;
  f->opname = name;
  f->in = in;
  f->param = param;
  f->width = width;
  f->mask = mask;
  f->flags = flags;
  f->site = s;
  f->state = F_WAVEOP;
  yield(f);
  if (out2) *out2 = f->out2;
  return f->out;
}

template <class T>
inline unsigned long long to_bits(const T& v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                "hipemu: cross-lane operations support trivially copyable types of at most 8 "
                "bytes");
  unsigned long long b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
inline T from_bits(unsigned long long b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

template <class T>
inline T shfl_op(int op, const char* name, T v, int p, int width, unsigned long long mask,
                 int flags, const Site& s) {
  return from_bits<T>(wave_op(op, name, to_bits(v), p, width, mask, flags, s));
}

// ---------------------------------------------------------------- launch

inline int launch_impl(const char* name, const char* file, int line, dim3 grid, dim3 block,
                        size_t shm, void (*body)(void*), void* ctx);

}  // namespace detail
}  // namespace hipemu
