#include "ordered_jobs.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <thread>

namespace gradcodec::cli {

OrderedJobs::OrderedJobs(unsigned threads) : threads_(std::max(1u, threads)) {}

void OrderedJobs::add(std::uint64_t bytes, std::function<void(unsigned threads)> work,
                      std::function<void()> finish) {
    if (threads_ == 1) {
        work(1);
        finish();
        return;
    }
    if (bytes >= kAloneBytes) {
        flush();
        work(threads_);
        finish();
        return;
    }
    pending_.push_back({bytes, std::move(work), std::move(finish), nullptr});
    pending_bytes_ += bytes;
    if (pending_bytes_ >= kBatchBytes) flush();
}

void OrderedJobs::add(std::function<void()> finish) {
    if (pending_.empty()) {
        finish();
        return;
    }
    pending_.push_back({0, nullptr, std::move(finish), nullptr});
}

// Largest jobs first, so that a big one does not start last and hold up the batch. The
// calling thread and threads - 1 std::jthreads take jobs from one counter and are joined at
// the end of the batch: no thread waits idle (or spins) while the next batch is read.
void OrderedJobs::run_pending() {
    std::vector<std::size_t> order(pending_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return pending_[a].bytes > pending_[b].bytes;
    });
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t i = next++; i < order.size(); i = next++) {
            Job& job = pending_[order[i]];
            if (!job.work) continue;
            try {
                job.work(1);
            } catch (...) {
                job.failure = std::current_exception();
            }
        }
    };
    std::vector<std::jthread> helpers;
    const std::size_t helper_count = std::min<std::size_t>(threads_, order.size()) - 1;
    for (std::size_t t = 0; t < helper_count; ++t) helpers.emplace_back(work);
    work();
}

void OrderedJobs::flush() {
    if (pending_.empty()) return;
    run_pending();
    std::vector<Job> jobs = std::move(pending_);
    pending_.clear();
    pending_bytes_ = 0;
    for (Job& job : jobs) {
        if (job.failure) std::rethrow_exception(job.failure);
        job.finish();
        job = Job{};  // frees what the job held as soon as it is written
    }
}

}  // namespace gradcodec::cli
