#include "cufft_library.hpp"

#include <dlfcn.h>

#include <mutex>
#include <variant>

#include "gradcodec/error.hpp"

// Set for this file by libcodec/CMakeLists.txt from the toolkit found at configure time.
#if !defined(GRADCODEC_CUFFT_SONAME) || !defined(GRADCODEC_CUFFT_PATH)
#error "GRADCODEC_CUFFT_SONAME and GRADCODEC_CUFFT_PATH must name the cuFFT to load"
#endif

namespace gradcodec::cuda {
namespace {

[[noreturn]] void unavailable(const std::string& why) {
    fail(ErrorKind::usage, "execution cuda: cuFFT is unavailable: " + why);
}

std::string loader_reason() {
    const char* reason = dlerror();
    return reason != nullptr ? reason : "no reason given";
}

template <class Function>
void resolve(void* library, const std::string& name, const char* symbol, Function& function) {
    dlerror();  // a null symbol is an error only if dlerror says so
    void* address = dlsym(library, symbol);
    if (address == nullptr) {
        unavailable(name + " has no " + symbol + " (" + loader_reason() + ")");
    }
    function = reinterpret_cast<Function>(address);
}

}  // namespace

CufftApi load_cufft(std::span<const std::string> candidates) {
    std::string tried;
    for (const std::string& name : candidates) {
        // Never closed: plans made from it live until the process exits.
        void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (library == nullptr) {
            tried += (tried.empty() ? "" : "; ") + loader_reason();
            continue;
        }
        CufftApi api;
        resolve(library, name, "cufftCreate", api.create);
        resolve(library, name, "cufftMakePlanMany64", api.make_plan_many64);
        resolve(library, name, "cufftExecR2C", api.exec_r2c);
        resolve(library, name, "cufftExecC2R", api.exec_c2r);
        resolve(library, name, "cufftDestroy", api.destroy);
        return api;
    }
    unavailable(candidates.empty() ? "no library to load" : tried);
}

const CufftApi& cufft() {
    static std::once_flag once;
    static std::variant<CufftApi, std::string> loaded;
    std::call_once(once, [] {
        const std::string candidates[] = {GRADCODEC_CUFFT_SONAME, GRADCODEC_CUFFT_PATH};
        try {
            loaded = load_cufft(candidates);
        } catch (const Error& e) {
            loaded = std::string(e.what());
        }
    });
    if (const auto* why = std::get_if<std::string>(&loaded)) fail(ErrorKind::usage, *why);
    return std::get<CufftApi>(loaded);
}

}  // namespace gradcodec::cuda
