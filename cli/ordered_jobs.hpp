#pragma once
// Work on many tensors at once while every result still comes out in input order. Each job
// has a part that may run on any thread (encode, decode, fit) and a part that runs on the
// calling thread in the order the jobs were added (writing a record, printing a row). Jobs
// gather into a batch until it holds enough bytes, then the batch's work runs in parallel
// (std::jthread) and its results are finished in order; the bytes in flight stay bounded. A job
// too large to share a batch runs alone, with every thread given to it instead.
#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

namespace gradcodec::cli {

class OrderedJobs {
  public:
    // threads == 1 runs each job at once, as a plain loop would.
    explicit OrderedJobs(unsigned threads);
    OrderedJobs(const OrderedJobs&) = delete;
    OrderedJobs& operator=(const OrderedJobs&) = delete;

    // `work(threads)` may use that many threads for the job itself. `bytes` is the memory the
    // job holds until it is finished. An exception from work() is rethrown when the job's
    // turn to finish comes, after every earlier job has finished: the same as on one thread.
    void add(std::uint64_t bytes, std::function<void(unsigned threads)> work,
             std::function<void()> finish);
    // Only a finish, for objects that need no work (groups, links) but must keep their place.
    void add(std::function<void()> finish);
    // Runs and finishes everything still pending; call it before using the results.
    void flush();

    // A batch is run once it holds this many bytes; a job of more runs alone.
    static constexpr std::uint64_t kBatchBytes = std::uint64_t{16} << 20;
    static constexpr std::uint64_t kAloneBytes = std::uint64_t{8} << 20;

  private:
    struct Job {
        std::uint64_t bytes = 0;
        std::function<void(unsigned)> work;
        std::function<void()> finish;
        std::exception_ptr failure;
    };
    void run_pending();

    unsigned threads_;
    std::vector<Job> pending_;
    std::uint64_t pending_bytes_ = 0;
};

}  // namespace gradcodec::cli
