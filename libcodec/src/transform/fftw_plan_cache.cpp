#include "transform/fftw_plan_cache.hpp"

#include <map>
#include <mutex>
#include <new>
#include <utility>

#include "gradcodec/error.hpp"

namespace gradcodec {
namespace {

// Tails transformed at their own length add one size per distinct tensor length, and a
// hostile stream may ask for many large ones: caps on the plan count and on their summed
// sizes (plans hold O(size) twiddles) keep a long-running process bounded. Evicted plans
// live on while in use.
constexpr std::size_t kMaxCachedPlans = 256;
constexpr std::size_t kMaxCachedValues = std::size_t{1} << 25;

using PlanKey = std::pair<FftwKind, std::size_t>;

// Never destroyed, so plans released during static destruction still find the mutex.
struct PlanCache {
    std::mutex mutex;
    unsigned flags = FFTW_ESTIMATE;
    std::map<PlanKey, std::shared_ptr<const FftwPlan>> plans;
    std::size_t cached_values = 0;  // sum of the cached plans' sizes
};

PlanCache& plan_cache() {
    static auto* cache = new PlanCache;
    return *cache;
}

struct AlignedBuffer {
    explicit AlignedBuffer(std::size_t bytes) : p(fftwf_malloc(bytes)) {
        if (p == nullptr) throw std::bad_alloc();
    }
    ~AlignedBuffer() { fftwf_free(p); }
    AlignedBuffer(const AlignedBuffer&) = delete;
    AlignedBuffer& operator=(const AlignedBuffer&) = delete;
    void* p;
};

// Caller holds planner_mutex().
fftwf_plan make_plan(FftwKind kind, std::size_t size, unsigned flags) {
    const int n = static_cast<int>(size);
    const std::size_t bins = size / 2 + 1;
    AlignedBuffer real(sizeof(float) * size);
    AlignedBuffer spectrum(sizeof(fftwf_complex) * bins);
    auto* r = static_cast<float*>(real.p);
    auto* c = static_cast<fftwf_complex*>(spectrum.p);
    auto* r2 = reinterpret_cast<float*>(c);  // a second real array for the r2r kinds
    switch (kind) {
        case FftwKind::r2c:
            return fftwf_plan_dft_r2c_1d(n, r, c, flags);
        case FftwKind::c2r:
            return fftwf_plan_dft_c2r_1d(n, c, r, flags);
        case FftwKind::redft10:
            return fftwf_plan_r2r_1d(n, r, r2, FFTW_REDFT10, flags);
        case FftwKind::redft01:
            return fftwf_plan_r2r_1d(n, r, r2, FFTW_REDFT01, flags);
    }
    return nullptr;
}

}  // namespace

FftwPlan::~FftwPlan() {
    if (plan == nullptr) return;
    const std::lock_guard lock(plan_cache().mutex);
    fftwf_destroy_plan(plan);
}

void set_fftw_planner_flags(unsigned flags) {
    PlanCache& cache = plan_cache();
    std::map<PlanKey, std::shared_ptr<const FftwPlan>> old;  // released after the unlock
    const std::lock_guard lock(cache.mutex);
    cache.flags = flags;
    old.swap(cache.plans);
    cache.cached_values = 0;
}

std::shared_ptr<const FftwPlan> fftw_plan_for(FftwKind kind, std::size_t size) {
    if (size == 0 || size > (std::size_t{1} << 30)) {
        fail(ErrorKind::usage,
             "FFTW transform size " + std::to_string(size) + " is outside 1..2^30");
    }
    PlanCache& cache = plan_cache();
    std::shared_ptr<FftwPlan> made;
    std::map<PlanKey, std::shared_ptr<const FftwPlan>> evicted;  // released after the unlock
    {
        const std::lock_guard lock(cache.mutex);
        const PlanKey key{kind, size};
        if (auto it = cache.plans.find(key); it != cache.plans.end()) return it->second;
        made = std::make_shared<FftwPlan>();
        made->plan = make_plan(kind, size, cache.flags);
        if (made->plan != nullptr && size <= kMaxCachedValues) {
            if (cache.plans.size() >= kMaxCachedPlans ||
                cache.cached_values + size > kMaxCachedValues) {
                evicted.swap(cache.plans);
                cache.cached_values = 0;
            }
            cache.plans.emplace(key, made);
            cache.cached_values += size;
        }
    }
    if (made->plan == nullptr) {
        fail(ErrorKind::io, "FFTW could not plan a transform of size " + std::to_string(size));
    }
    return made;
}

}  // namespace gradcodec
