#pragma once
// Work on many tensors at once while every result still comes out in input order. Each job
// has a part that may run on any thread (encode, decode, fit) and a part that runs in the
// order the jobs were added (writing a record, printing a row): on the calling thread, or,
// where the caller allows it, on whichever thread is free when a job's turn comes.
//
// With N threads, N - 1 std::jthreads live as long as the OrderedJobs and take jobs in the
// order they were added. The calling thread reads the inputs and adds jobs; once the jobs in
// flight hold kInFlightBytes it takes jobs itself until they hold less. Nothing waits for a
// whole group of jobs: a large tensor on one thread does not leave the others idle, and
// finishing some jobs overlaps the work on later ones. A job too large to share the threads
// runs alone, with every thread given to it; so does the last job before a flush(), which
// the threads that finish theirs first would otherwise wait for, idle.
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

// Where finishes run. any_thread suits finishes that only append to an output of their own
// (encode's stream): the one thread that may call HDF5 is then free to go on reading.
enum class FinishOn { calling_thread, any_thread };

class OrderedJobs {
  public:
    // threads == 1 runs each job at once, as a plain loop would.
    explicit OrderedJobs(unsigned threads, FinishOn finish_on = FinishOn::calling_thread);
    OrderedJobs(const OrderedJobs&) = delete;
    OrderedJobs& operator=(const OrderedJobs&) = delete;

    // `work(threads)` may use that many threads for the job itself; it runs while the caller
    // goes on, so it must touch only what the job owns or what nobody changes meanwhile.
    // `bytes` is the memory the job holds until it is finished. Finishes never overlap one
    // another. An exception from work() or finish() is rethrown to the caller (by a later
    // add() or flush()) when the job's turn to finish comes, after every earlier job has
    // finished, and no later job is finished: the same as on one thread.
    void add(std::uint64_t bytes, std::function<void(unsigned threads)> work,
             std::function<void()> finish);
    // Only a finish, for objects that need no work (groups, links) but must keep their place.
    void add(std::function<void()> finish);
    // Says that the next job added is the last before flush(): it may use every thread when
    // none is queued behind it. Without this call, the last job queued may have started on one
    // thread before flush() is called.
    void last_job_next();
    // Runs and finishes everything still pending; call it before using the results. The last
    // job may use every thread.
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
        bool done = false;
    };
    static void run(Job& job, unsigned threads);
    void run_oldest(std::unique_lock<std::mutex>& lock);
    void work_on_queue(std::stop_token stop);  // a worker thread's loop
    void finish_ready();  // finishes the oldest jobs that are done, unless a thread already is
    // Works, finishes or waits on the calling thread until `enough` holds (under the lock).
    template <class Enough>
    void progress_until(Enough enough);
    void rethrow_failure();
    void stop_workers();
    void set_draining(bool draining);

    unsigned threads_;
    FinishOn finish_on_;
    // Guarded by mutex_ from here on.
    std::mutex mutex_;
    std::deque<std::unique_ptr<Job>> in_order_;  // every job added and not yet finished
    std::deque<Job*> queue_;                     // jobs not yet started, in order
    std::uint64_t bytes_in_flight_ = 0;
    bool finishing_ = false;      // a thread is finishing jobs
    bool draining_ = false;       // no job is added after the next one until flush() returns
    std::exception_ptr failure_;  // what the caller must rethrow
    std::condition_variable_any queued_;  // a job was queued (or stop was requested)
    std::condition_variable progress_;    // a job is done or finished, or failed
    // Last, so that the threads are stopped and joined before what they use is destroyed.
    std::vector<std::jthread> workers_;
};

}  // namespace gradcodec::cli
