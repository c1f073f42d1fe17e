// [SECTION] The persistent thread pool behind the batched API (gelu/kernels.hpp): thread_count() − 1 workers
// and the calling thread take chunks of one job from an atomic offset, large ones first and smaller towards
// the end. One job at a time; a second caller, a
// nested call or a call from a worker runs inline instead of waiting, so nothing here can deadlock on itself.
#include "parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gelu/kernels.hpp"
#include "gelu/numio.hpp"

namespace gelu {
namespace {

thread_local bool t_in_pool_thread = false;

/// GELU_THREADS as a thread count, or 0 when unset or not a whole number in [1, kMaxThreads].
int threads_from_environment() {
  const char* s = std::getenv("GELU_THREADS");
  if (!s || *s < '0' || *s > '9') return 0;  // no sign, no space, no "+4"
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(s, &end, 10);
  if (errno || *end != '\0' || v < 1 || v > kMaxThreads) return 0;
  return static_cast<int>(v);
}

int default_thread_count() {
  static const int n = [] {
    if (const int v = threads_from_environment()) return v;
    const unsigned hc = std::thread::hardware_concurrency();
    return hc >= 1 ? static_cast<int>(hc) : 1;
  }();
  return n;
}

std::atomic<int> g_thread_override{0};

}  // namespace

std::string thread_setting_problem() {
  const char* s = std::getenv("GELU_THREADS");
  if (!s || threads_from_environment() > 0) return "";
  return "GELU_THREADS=" + quote(s, 40) + " is not a whole number of threads from 1 to " +
         std::to_string(kMaxThreads) + " (unset it to use every core, " +
         std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " here)";
}

namespace {

/// Spins up to `budget` for `done` (cheap hand-offs between back-to-back calls), without sleeping.
template <class Pred>
bool spin_for(Pred done, std::chrono::microseconds budget) {
  const auto until = std::chrono::steady_clock::now() + budget;
  for (int i = 0;; ++i) {
    if (done()) return true;
    if ((i & 63) == 63 && std::chrono::steady_clock::now() >= until) return false;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}

constexpr std::chrono::microseconds kSpin{50};

class Pool {
 public:
  static Pool& instance() {
    static Pool pool;
    return pool;
  }
  ~Pool() { resize(0); }

  /// Runs the job if no other job is running; returns false (and does nothing) otherwise.
  bool try_run(std::size_t n, std::size_t chunk, std::size_t min_chunk, int threads,
               const std::function<void(std::size_t, std::size_t)>& fn, const std::atomic<bool>* cancel,
               bool* completed) {
    std::unique_lock<std::mutex> run(run_mu_, std::try_to_lock);
    if (!run.owns_lock()) return false;
    resize(threads - 1);
    {
      std::lock_guard<std::mutex> lk(mu_);
      fn_ = &fn;
      cancel_ = cancel;
      n_ = n;
      chunk_ = chunk;
      min_chunk_ = min_chunk;
      ways_ = static_cast<std::size_t>(threads);
      next_.store(0, std::memory_order_relaxed);
      stop_.store(false, std::memory_order_relaxed);
      skipped_.store(false, std::memory_order_relaxed);
      error_ = nullptr;
      open_ = true;
      generation_.store(generation_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }
    work_cv_.notify_all();
    t_in_pool_thread = true;  // a nested parallel_for from fn on this thread runs inline
    work();
    t_in_pool_thread = false;
    // Close the job: workers that have not joined yet will not; wait for those that did.
    std::unique_lock<std::mutex> lk(mu_);
    open_ = false;
    if (joined_ > 0) {
      lk.unlock();
      spin_for([&] { return joined_atomic_.load(std::memory_order_acquire) == 0; }, kSpin);
      lk.lock();
      done_cv_.wait(lk, [&] { return joined_ == 0; });
    }
    fn_ = nullptr;
    std::exception_ptr error = error_;
    error_ = nullptr;
    *completed = !skipped_.load(std::memory_order_relaxed);
    lk.unlock();
    run.unlock();
    if (error) std::rethrow_exception(error);
    return true;
  }

 private:
  Pool() = default;

  /// The end of the chunk that starts at `begin`: chunk_ while much is left, then half of what is left per
  /// thread (multiples of 16, not below min_chunk_), and the rest whole when it is less than one more chunk.
  /// Equal chunks left the faster of two cores idle for up to one chunk at the end, where a shared VM's two
  /// cores ran f at different speeds (docs/performance.md, "Threads").
  std::size_t chunk_end(std::size_t begin) const {
    const std::size_t left = n_ - begin;
    const std::size_t size = std::clamp((left / (2 * ways_) + 15) / 16 * 16, min_chunk_, chunk_);
    return left < size + min_chunk_ ? n_ : begin + size;
  }

  /// Takes chunks until none is left (or the job is stopped).
  void work() {
    for (;;) {
      if (stop_.load(std::memory_order_relaxed) || (cancel_ && cancel_->load(std::memory_order_relaxed))) {
        if (next_.load(std::memory_order_relaxed) < n_) skipped_.store(true, std::memory_order_relaxed);
        return;
      }
      std::size_t begin = next_.load(std::memory_order_relaxed), end = 0;
      do {
        if (begin >= n_) return;
        end = chunk_end(begin);
      } while (!next_.compare_exchange_weak(begin, end, std::memory_order_relaxed));
      try {
        (*fn_)(begin, end);
      } catch (...) {
        std::lock_guard<std::mutex> lk(error_mu_);
        if (!error_) error_ = std::current_exception();
        stop_.store(true, std::memory_order_relaxed);
      }
    }
  }

  /// `seen`: the generation when the thread was created (read before the next job is published, so a worker
  /// that starts late still sees that job).
  void worker_main(std::uint64_t seen) {
    t_in_pool_thread = true;
    for (;;) {
      spin_for([&] { return generation_.load(std::memory_order_acquire) != seen; }, kSpin);
      std::unique_lock<std::mutex> lk(mu_);
      work_cv_.wait(lk, [&] { return shutdown_ || generation_.load(std::memory_order_relaxed) != seen; });
      if (shutdown_) return;
      seen = generation_.load(std::memory_order_relaxed);
      if (!open_) continue;  // the caller finished the job alone
      ++joined_;
      joined_atomic_.store(joined_, std::memory_order_release);
      lk.unlock();
      work();
      lk.lock();
      joined_atomic_.store(--joined_, std::memory_order_release);
      if (joined_ == 0) done_cv_.notify_one();
    }
  }

  /// Sets the number of worker threads (only while no job runs: run_mu_ is held, or from the destructor).
  void resize(int workers) {
    if (workers < 0) workers = 0;
    if (static_cast<std::size_t>(workers) == threads_.size()) return;
    {
      std::lock_guard<std::mutex> lk(mu_);
      shutdown_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    shutdown_ = false;
    const std::uint64_t g = generation_.load(std::memory_order_acquire);
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this, g] { worker_main(g); });
  }

  std::mutex run_mu_;  // held by the caller for the whole job
  std::mutex mu_;      // job fields, joined_, open_, shutdown_
  std::mutex error_mu_;
  std::condition_variable work_cv_, done_cv_;
  std::vector<std::thread> threads_;
  std::atomic<std::uint64_t> generation_{0};
  bool shutdown_ = false;
  bool open_ = false;
  int joined_ = 0;
  std::atomic<int> joined_atomic_{0};
  // The current job.
  const std::function<void(std::size_t, std::size_t)>* fn_ = nullptr;
  const std::atomic<bool>* cancel_ = nullptr;
  std::size_t n_ = 0, chunk_ = 16, min_chunk_ = 16, ways_ = 1;
  std::atomic<std::size_t> next_{0};  // where the next chunk starts
  std::atomic<bool> stop_{false}, skipped_{false};
  std::exception_ptr error_;
};

/// Runs the chunks in order on the calling thread, with the same stop rules as the pool.
bool run_inline(std::size_t n, std::size_t chunk, const std::function<void(std::size_t, std::size_t)>& fn,
                const std::atomic<bool>* cancel) {
  for (std::size_t b = 0; b < n; b += chunk) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return false;
    fn(b, std::min(n, b + chunk));
  }
  return true;
}

}  // namespace

int thread_count() {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  return 1;  // the web build has no threads (they need cross-origin isolation, which static hosts cannot
             // give)
#endif
  const int o = g_thread_override.load(std::memory_order_relaxed);
  return o > 0 ? o : default_thread_count();
}

void set_thread_count(int n) {
  g_thread_override.store(n > 0 ? n : 0, std::memory_order_relaxed);
}

bool parallel_for(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& fn,
                  const std::atomic<bool>* cancel) {
  if (n == 0) return true;
  grain = std::max<std::size_t>(16, (grain + 15) / 16 * 16);
  const int threads = thread_count();
  if (threads <= 1 || n < 2 * grain || t_in_pool_thread) return run_inline(n, n, fn, cancel);
  // Chunks of at most a quarter of a thread's share (a descheduled thread on a shared machine delays the call
  // by one such chunk at most), shrinking towards the end to an eighth of that but not below kMinTail
  // elements (Pool::chunk_end; smaller chunks cost more in hand-outs than they save: the two-thread copy at
  // 256K took 1.2x as long with chunks down to 2K), each a multiple of 16 elements so every chunk but the
  // last starts 64-byte aligned with the array.
  constexpr std::size_t kMinTail = std::size_t(1) << 16;
  const std::size_t per =
      (n + static_cast<std::size_t>(threads) * 4 - 1) / (static_cast<std::size_t>(threads) * 4);
  const std::size_t chunk = std::max(grain, (per + 15) / 16 * 16);
  const std::size_t min_chunk = std::min(chunk, std::max({grain, (chunk / 8 + 15) / 16 * 16, kMinTail}));
  bool completed = true;
  if (Pool::instance().try_run(n, chunk, min_chunk, threads, fn, cancel, &completed)) return completed;
  return run_inline(n, n, fn, cancel);
}

}  // namespace gelu
