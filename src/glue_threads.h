// Chains on threads of R's process, for potentials written in C++ alone (a GLM): no fork, so
// no copy of the session's memory and no full garbage collection before it, no result
// serialised back, and a session with other packages loaded pays nothing for them. Each
// worker thread has a potential of its own (its buffers are written in every evaluation) and
// takes the next chain when it is free; a chain's draws depend on its seed and id alone
// (driver/chain_streams.hpp), so they are those of the same chain run anywhere else.
// R's thread keeps every R call: it reads the configs before the threads start, prints their
// progress lines, polls for Ctrl-C (a flag the chains read: driver/run_chain.hpp polls it)
// and turns the outputs into R lists after they end.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#ifndef _WIN32
#include <pthread.h>
#endif

#include "glue_registry.h"

namespace vhmc_glue {

// The chains' side of the host: progress lines queued for R's thread, Ctrl-C as a flag.
class ThreadHost {
 public:
  vhmc::Callbacks callbacks() {
    vhmc::Callbacks cb;
    cb.log = [this](const std::string& s) {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_ += s;
    };
    cb.interrupted = [this] { return stop_.load(std::memory_order_relaxed); };
    return cb;
  }
  void chain_done() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    wake_.notify_one();
  }
  // On R's thread until `n` chains are done: prints queued lines and polls for Ctrl-C every
  // 20 ms (the chains see it at their next poll).
  void serve(int n) {
    std::unique_lock<std::mutex> lock(mutex_);
    while (done_ < n) {
      wake_.wait_for(lock, std::chrono::milliseconds(20));
      std::string lines;
      lines.swap(pending_);
      lock.unlock();
      if (!lines.empty()) Rcpp::Rcout << lines;
      if (!stop_.load() && user_interrupted()) stop_.store(true);
      lock.lock();
    }
    if (!pending_.empty()) Rcpp::Rcout << pending_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string pending_;
  int done_ = 0;
  std::atomic<bool> stop_{false};
};

// Signals meant for R (Ctrl-C, the profiler's clock, a child's exit) go to R's thread: a
// worker thread blocks them.
inline void leave_signals_to_r() {
#ifndef _WIN32
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGINT, SIGPROF, SIGCHLD, SIGALRM, SIGPIPE, SIGUSR1, SIGUSR2}) sigaddset(&set, s);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
#endif
}

// Each chain's inputs, read on R's thread. With `draws` (R's array of saved iterations x
// chains x d, or null) each chain saves into its slice of it.
struct ThreadInputs {
  std::vector<vhmc::ChainConfig> cfg;
  std::vector<vhmc::FitExtras> x;
  std::vector<vhmc::Vec> init;
  ThreadInputs(const Rcpp::List& extras, const Rcpp::List& inits, const Rcpp::List& runs, double* draws) {
    const R_xlen_t n = runs.size();
    for (R_xlen_t i = 0; i < n; ++i) {
      cfg.push_back(chain_config(runs[i]));
      x.push_back(fit_extras(extras[i]));
      init.push_back(Rcpp::as<vhmc::Vec>(inits[i]));
      if (!draws) continue;
      const Eigen::Index saved = vhmc::saved_count(cfg.back());
      cfg.back().draws_to = draws + i * saved;
      cfg.back().draws_stride = saved * n;
    }
  }
};

// A chain's saved draws (`rows` of them, coordinate j at stride j), mapped in place on the
// chain's thread once it has ended.
template <class P>
using SliceMap = std::function<void(const P&, double*, Eigen::Index rows, Eigen::Index stride)>;

// The chains of `runs` (each a run list as R's fit_chains() makes it, with its extras and
// initial values) on one thread per potential; returns each chain's output list, in order.
// With `draws`, the chains save into it (ThreadInputs) and `finish` maps each chain's slice.
template <class P, template <class> class Samplers = AllSamplers>
Rcpp::List run_registered_threads(const std::vector<P*>& potentials, const Rcpp::List& config,
                                  const Rcpp::List& extras, const Rcpp::List& inits, const Rcpp::List& runs,
                                  double* draws = nullptr, const SliceMap<P>& finish = nullptr) {
  const Rcpp::CharacterVector cls = config.attr("class");
  const ChainRunner<P> chain = Samplers<P>::find(Rcpp::as<std::string>(cls[0]))(config);
  const int n = static_cast<int>(runs.size());
  const ThreadInputs in(extras, inits, runs, draws);
  std::vector<vhmc::ChainOutput> out(n);
  ThreadHost host;
  std::atomic<int> next{0};
  auto work = [&](P* potential) {
    leave_signals_to_r();
    vhmc::Callbacks cb = host.callbacks();
    for (int i; (i = next.fetch_add(1)) < n; host.chain_done()) {
      try {
        out[i] = chain(*potential, in.x[i], in.cfg[i], in.init[i], cb);
        if (finish && out[i].draws_to && out[i].error.empty() && !out[i].interrupted)
          finish(*potential, out[i].draws_to, vhmc::saved_count(in.cfg[i]), out[i].draws_stride);
      } catch (const std::exception& e) {  // run_chain() catches a chain's errors; this is a last net
        out[i].error = e.what();
      } catch (...) {
        out[i].error = "an unknown C++ exception";
      }
    }
  };
  std::vector<std::thread> threads;
  for (P* p : potentials) {
    try {
      threads.emplace_back(work, p);
    } catch (const std::system_error&) {  // the system gives no more threads: those started take every chain
      break;
    }
  }
  if (threads.empty()) Rcpp::stop("the system could not start a thread for the chains; run with cores = 1");
  host.serve(n);
  for (auto& t : threads) t.join();
  Rcpp::List res(n);
  for (int i = 0; i < n; ++i) res[i] = output_to_r(out[i]);
  return res;
}

}  // namespace vhmc_glue
