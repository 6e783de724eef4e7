#include "support/ordered_jobs.hpp"

#include <algorithm>

namespace gradcodec::cli {

OrderedJobs::OrderedJobs(unsigned threads, FinishOn finish_on)
    : threads_(std::max(1u, threads)), finish_on_(finish_on) {
    for (unsigned t = 1; t < threads_; ++t)
        workers_.emplace_back([this](std::stop_token stop) { work_on_queue(stop); });
}

void OrderedJobs::run(Job& job, unsigned threads) {
    try {
        job.work(threads);
    } catch (...) {
        job.failure = std::current_exception();
    }
}

// The oldest queued job is the one whose result is needed soonest. It runs with the lock
// released; `lock` is held again when it is marked done. The last job may use every thread:
// no job follows it, and the threads that finish theirs meanwhile would otherwise wait idle
// for it to end (the codecs cut a tensor into the same pieces on any number of threads, so
// its result does not change).
void OrderedJobs::run_oldest(std::unique_lock<std::mutex>& lock) {
    Job* job = queue_.front();
    queue_.pop_front();
    const unsigned threads = draining_ && queue_.empty() ? threads_ : 1;
    lock.unlock();
    run(*job, threads);
    lock.lock();
    job->done = true;
}

void OrderedJobs::work_on_queue(std::stop_token stop) {
    std::unique_lock lock(mutex_);
    while (queued_.wait(lock, stop, [this] { return !queue_.empty(); })) {
        if (stop.stop_requested()) return;
        run_oldest(lock);
        progress_.notify_one();
        if (finish_on_ == FinishOn::any_thread) {
            lock.unlock();
            finish_ready();
            lock.lock();
        }
    }
}

void OrderedJobs::finish_ready() {
    std::unique_lock lock(mutex_);
    if (finishing_ || failure_) return;
    finishing_ = true;
    while (!in_order_.empty() && in_order_.front()->done) {
        std::unique_ptr<Job> job = std::move(in_order_.front());
        in_order_.pop_front();
        lock.unlock();
        std::exception_ptr failure = job->failure;
        if (!failure) {
            try {
                job->finish();
            } catch (...) {
                failure = std::current_exception();
            }
        }
        const std::uint64_t bytes = job->bytes;
        job.reset();  // what the job held is freed as soon as it is written
        lock.lock();
        bytes_in_flight_ -= bytes;
        progress_.notify_one();  // the caller may be waiting for room to read on
        if (failure) {
            failure_ = failure;
            break;
        }
    }
    finishing_ = false;
    progress_.notify_one();
}

template <class Enough>
void OrderedJobs::progress_until(Enough enough) {
    while (true) {
        std::unique_lock lock(mutex_);
        if (failure_ || enough()) return;
        if (!queue_.empty()) {
            run_oldest(lock);
        } else if (in_order_.empty() || !in_order_.front()->done || finishing_) {
            progress_.wait(lock);
            continue;
        }
        lock.unlock();
        finish_ready();
    }
}

void OrderedJobs::rethrow_failure() {
    std::exception_ptr failure;
    {
        const std::lock_guard lock(mutex_);
        failure = failure_;
    }
    if (!failure) return;
    stop_workers();
    std::rethrow_exception(failure);
}

// Before an error leaves: no later job may still run while the caller unwinds what the jobs
// use, and none is finished after it, as on one thread.
void OrderedJobs::stop_workers() {
    for (std::jthread& worker : workers_) worker.request_stop();
    workers_.clear();  // joins
    const std::lock_guard lock(mutex_);
    queue_.clear();
    in_order_.clear();
    bytes_in_flight_ = 0;
}

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
    auto job = std::make_unique<Job>();
    job->bytes = bytes;
    job->work = std::move(work);
    job->finish = std::move(finish);
    {
        const std::lock_guard lock(mutex_);
        queue_.push_back(job.get());
        in_order_.push_back(std::move(job));
        bytes_in_flight_ += bytes;
    }
    queued_.notify_one();
    finish_ready();
    progress_until(
        [this] { return bytes_in_flight_ < kInFlightBytes && in_order_.size() < kInFlightJobs; });
    rethrow_failure();
}

void OrderedJobs::add(std::function<void()> finish) {
    auto job = std::make_unique<Job>();
    job->finish = std::move(finish);
    job->done = true;
    {
        const std::lock_guard lock(mutex_);
        in_order_.push_back(std::move(job));
    }
    finish_ready();
    rethrow_failure();
}

void OrderedJobs::last_job_next() {
    set_draining(true);
}

void OrderedJobs::flush() {
    set_draining(true);
    finish_ready();
    // Until the last finish has returned, not only started.
    progress_until([this] { return in_order_.empty() && !finishing_; });
    set_draining(false);
    rethrow_failure();
}

void OrderedJobs::set_draining(bool draining) {
    const std::lock_guard lock(mutex_);
    draining_ = draining;
}

}  // namespace gradcodec::cli
