#include "ordered_jobs.hpp"

#include <algorithm>
#include <numeric>

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
    if (pending_bytes_ >= kBatchBytes) {
        finish_running();
        start_pending();
    }
}

void OrderedJobs::add(std::function<void()> finish) {
    if (pending_.empty() && running_.empty()) {
        finish();
        return;
    }
    pending_.push_back({0, nullptr, std::move(finish), nullptr});
}

void OrderedJobs::work_on_running() {
    for (std::size_t i = next_++; i < running_order_.size(); i = next_++) {
        Job& job = running_[running_order_[i]];
        if (!job.work) continue;
        try {
            job.work(1);
        } catch (...) {
            job.failure = std::current_exception();
        }
    }
}

// Largest jobs first, so that a big one does not start last and hold up the batch. Threads
// take jobs from one counter; they are started per batch and joined when it is finished, so
// none waits idle (or spins) between batches.
void OrderedJobs::start_pending() {
    if (pending_.empty()) return;
    running_ = std::move(pending_);
    pending_.clear();
    pending_bytes_ = 0;
    running_order_.resize(running_.size());
    std::iota(running_order_.begin(), running_order_.end(), std::size_t{0});
    std::stable_sort(
        running_order_.begin(), running_order_.end(),
        [&](std::size_t a, std::size_t b) { return running_[a].bytes > running_[b].bytes; });
    next_ = 0;
    const std::size_t count = std::min<std::size_t>(threads_, running_.size());
    for (std::size_t t = 0; t < count; ++t) workers_.emplace_back([this] { work_on_running(); });
}

void OrderedJobs::finish_running() {
    workers_.clear();  // joins
    std::vector<Job> jobs = std::move(running_);
    running_.clear();
    for (Job& job : jobs) {
        if (job.failure) std::rethrow_exception(job.failure);
        job.finish();
        job = Job{};  // frees what the job held as soon as it is written
    }
}

void OrderedJobs::flush() {
    finish_running();
    start_pending();
    finish_running();
}

}  // namespace gradcodec::cli
