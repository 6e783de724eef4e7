#pragma once
// Work on many tensors at once while every result still comes out in input order. Each job
// has a part that may run on any thread (encode, decode, fit) and a part that runs on the
// calling thread in the order the jobs were added (writing a record, printing a row). Jobs
// gather into a batch until it holds enough bytes; the batch's work then starts on its own
// std::jthreads while the caller goes on reading the next batch, and its results are finished
// in order when that next batch is ready (or at flush). Reading and encoding thus overlap, and
// at most two batches of bytes are in flight. A job too large to share a batch runs alone,
// with every thread given to it instead.
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
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

    // A batch starts once it holds this many bytes; a job of more runs alone. Small batches
    // keep a tensor in cache between its read and its encode.
    static constexpr std::uint64_t kBatchBytes = std::uint64_t{4} << 20;
    static constexpr std::uint64_t kAloneBytes = std::uint64_t{8} << 20;

  private:
    struct Job {
        std::uint64_t bytes = 0;
        std::function<void(unsigned)> work;
        std::function<void()> finish;
        std::exception_ptr failure;
    };
    void start_pending();    // the pending batch becomes the running one, its threads started
    void finish_running();   // joins the running batch's threads and finishes its jobs in order
    void work_on_running();  // one thread's share of the running batch

    unsigned threads_;
    std::vector<Job> pending_;
    std::uint64_t pending_bytes_ = 0;
    std::vector<Job> running_;
    std::vector<std::size_t> running_order_;
    std::atomic<std::size_t> next_{0};
    // Last, so that the threads are joined before what they use is destroyed.
    std::vector<std::jthread> workers_;
};

}  // namespace gradcodec::cli
