#pragma once
// Every failure the library reports is a gradcodec::Error whose kind tells the caller how to
// react: a CLI maps kinds to exit codes, a training system may retry on io only.
#include <stdexcept>
#include <string>

// Everything declared here is the shared library's API; the rest of it stays hidden.
#pragma GCC visibility push(default)
namespace gradcodec {

enum class ErrorKind {
    usage,           // a bad codec spec or option: the caller's request is wrong
    bad_input,       // the input values cannot be encoded as asked (NaN, overflow, bad shape)
    damaged_stream,  // the bytes are not a valid stream: truncated, flipped, unknown version
    limit,           // a declared size exceeds a configured cap (decompression bomb guard)
    io,              // reading or writing failed
};

class Error : public std::runtime_error {
  public:
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    ErrorKind kind() const { return kind_; }

  private:
    ErrorKind kind_;
};

[[noreturn]] inline void fail(ErrorKind kind, const std::string& message) {
    throw Error(kind, message);
}

}  // namespace gradcodec
#pragma GCC visibility pop
