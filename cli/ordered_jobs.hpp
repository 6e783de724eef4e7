#pragma once
// Work on many tensors at once while every result still comes out in input order. Each job
// has a part that may run on any thread (encode, decode, fit) and a part that runs on the
// calling thread in the order the jobs were added (writing a record, printing a row).
//
// With N threads, N - 1 std::jthreads live as long as the OrderedJobs and take jobs in the
// order they were added. The calling thread reads the inputs, finishes every job that is done
// as soon as all earlier ones are, and, once the jobs in flight hold kInFlightBytes, takes
// jobs itself until they hold less. Nothing waits for a whole group of jobs: a large tensor on
// one thread does not leave the others idle, and writing the results of some jobs overlaps
// the work on later ones. A job too large to share the threads runs alone, with every thread
// given to it.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

namespace gradcodec::cli {

class OrderedJobs {
  public:
    // threads == 1 runs each job at once, as a plain loop would.
    explicit OrderedJobs(unsigned threads);
    OrderedJobs(const OrderedJobs&) = delete;
    OrderedJobs& operator=(const OrderedJobs&) = delete;

    // `work(threads)` may use that many threads for the job itself; it runs while the caller
    // goes on, so it must touch only what the job owns or what nobody changes meanwhile.
    // `bytes` is the memory the job holds until it is finished. An exception from work() is
    // rethrown when the job's turn to finish comes, after every earlier job has finished: the
    // same as on one thread.
    void add(std::uint64_t bytes, std::function<void(unsigned threads)> work,
             std::function<void()> finish);
    // Only a finish, for objects that need no work (groups, links) but must keep their place.
    void add(std::function<void()> finish);
    // Runs and finishes everything still pending; call it before using the results.
    void flush();

    // The jobs added and not yet finished hold at most about this many bytes (and are at most
    // kInFlightJobs): the calling thread works on them instead of adding more.
    static constexpr std::uint64_t kInFlightBytes = std::uint64_t{32} << 20;
    static constexpr std::size_t kInFlightJobs = 1024;
    // A job of this many bytes or more runs alone, after every earlier job has finished, with
    // every thread. Smaller ones (a ResNet-50 has 9.4 MB tensors) run one per thread, side by
    // side: splitting one tensor inside a codec scales less well.
    static constexpr std::uint64_t kAloneBytes = std::uint64_t{16} << 20;

  private:
    struct Job {
        std::uint64_t bytes = 0;
        std::function<void(unsigned)> work;
        std::function<void()> finish;
        std::exception_ptr failure;
        bool done = false;  // guarded by mutex_
    };
    static void run(Job& job);
    void work_on_queue(std::stop_token stop);  // a worker thread's loop
    void finish_done();                        // finishes the oldest jobs that are done, in order
    void help_or_wait();                       // runs a queued job here, or waits for the oldest
    bool over_bound() const;
    void stop_workers();

    unsigned threads_;
    // The calling thread's alone: every job added and not yet finished, in order.
    std::deque<std::unique_ptr<Job>> in_order_;
    std::uint64_t bytes_in_flight_ = 0;
    // Shared with the workers.
    std::mutex mutex_;
    std::condition_variable_any queued_;  // a job was queued (or stop was requested)
    std::condition_variable done_;        // a job is done
    std::deque<Job*> queue_;              // jobs not yet started, in order
    // Last, so that the threads are stopped and joined before what they use is destroyed.
    std::vector<std::jthread> workers_;
};

}  // namespace gradcodec::cli
