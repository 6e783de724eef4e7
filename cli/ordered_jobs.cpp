#include "ordered_jobs.hpp"

#include <algorithm>

namespace gradcodec::cli {

OrderedJobs::OrderedJobs(unsigned threads) : threads_(std::max(1u, threads)) {
    for (unsigned t = 1; t < threads_; ++t)
        workers_.emplace_back([this](std::stop_token stop) { work_on_queue(stop); });
}

void OrderedJobs::run(Job& job) {
    try {
        job.work(1);
    } catch (...) {
        job.failure = std::current_exception();
    }
}

void OrderedJobs::work_on_queue(std::stop_token stop) {
    std::unique_lock lock(mutex_);
    while (queued_.wait(lock, stop, [this] { return !queue_.empty(); })) {
        if (stop.stop_requested()) return;
        Job* job = queue_.front();
        queue_.pop_front();
        lock.unlock();
        run(*job);
        lock.lock();
        job->done = true;
        done_.notify_one();
    }
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
    in_order_.push_back(std::move(job));
    bytes_in_flight_ += bytes;
    {
        const std::lock_guard lock(mutex_);
        queue_.push_back(in_order_.back().get());
    }
    queued_.notify_one();
    finish_done();
    while (over_bound()) {
        help_or_wait();
        finish_done();
    }
}

void OrderedJobs::add(std::function<void()> finish) {
    if (in_order_.empty()) {
        finish();
        return;
    }
    auto job = std::make_unique<Job>();
    job->finish = std::move(finish);
    job->done = true;  // only the calling thread looks at it: no lock needed before it is shared
    in_order_.push_back(std::move(job));
}

bool OrderedJobs::over_bound() const {
    return !in_order_.empty() &&
           (bytes_in_flight_ >= kInFlightBytes || in_order_.size() >= kInFlightJobs);
}

void OrderedJobs::finish_done() {
    while (!in_order_.empty()) {
        {
            const std::lock_guard lock(mutex_);
            if (!in_order_.front()->done) return;
        }
        const std::unique_ptr<Job> job = std::move(in_order_.front());
        in_order_.pop_front();
        bytes_in_flight_ -= job->bytes;
        try {
            if (job->failure) std::rethrow_exception(job->failure);
            job->finish();  // what the job held is freed as soon as it is written
        } catch (...) {
            stop_workers();
            throw;
        }
    }
}

// Before an error leaves: no later job may still run while the caller unwinds what the jobs
// use, and none is finished after it, as on one thread.
void OrderedJobs::stop_workers() {
    for (std::jthread& worker : workers_) worker.request_stop();
    workers_.clear();  // joins
    queue_.clear();
    in_order_.clear();
    bytes_in_flight_ = 0;
}

// The oldest queued job is the one whose result is needed soonest.
void OrderedJobs::help_or_wait() {
    std::unique_lock lock(mutex_);
    if (!queue_.empty()) {
        Job* job = queue_.front();
        queue_.pop_front();
        lock.unlock();
        run(*job);
        lock.lock();
        job->done = true;
        return;
    }
    done_.wait(lock, [this] { return in_order_.front()->done; });
}

void OrderedJobs::flush() {
    finish_done();
    while (!in_order_.empty()) {
        help_or_wait();
        finish_done();
    }
}

}  // namespace gradcodec::cli
