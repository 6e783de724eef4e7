// Checksums prove bytes arrived intact, not that a sender is honest: the reader also refuses
// record content no HDF5 file can hold (FORMAT.md section 7: "everything holds after the
// checksum passes, too").
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "gradcodec/error.hpp"
#include "gradcodec/stream.hpp"

using namespace gradcodec;

namespace {

template <typename Record>
std::string refusal(const Record& record) {
    VectorSink sink;
    StreamWriter writer(sink);
    writer.write(record);
    writer.finish();
    SpanSource source(sink.bytes);
    try {
        StreamReader reader(source);
        while (reader.next()) {
        }
    } catch (const Error& e) {
        CHECK(e.kind() == ErrorKind::damaged_stream);
        return e.what();
    }
    return "accepted";
}

TensorRecord tensor_at(std::string path) {
    TensorRecord t;
    t.path = std::move(path);
    t.shape = {1};
    t.codec_id = 1;
    t.payload = {0, 0, 0, 0, 0};
    return t;
}

Attribute byte_attribute(std::string name) {
    Attribute a;
    a.name = std::move(name);
    a.dtype = DType::u8;
    a.data = {1};
    return a;
}

}  // namespace

TEST_CASE("record paths must be absolute HDF5 object paths", "[stream]") {
    for (const std::string& bad :
         std::vector<std::string>{"", "a", "a/b", "/a//b", "/a/", std::string("/a\0b", 4)}) {
        INFO("path '" << bad << "'");
        CHECK_THAT(refusal(tensor_at(bad)), Catch::Contains("is not an HDF5 object path"));
        CHECK_THAT(refusal(GroupRecord{bad, {}}), Catch::Contains("is not an HDF5 object path"));
        CHECK_THAT(refusal(LinkRecord{bad, LinkKind::soft, "/x", ""}),
                   Catch::Contains("is not an HDF5 object path"));
    }
    CHECK_THAT(refusal(tensor_at("/")), Catch::Contains("not allowed for a tensor or link"));
    CHECK_THAT(refusal(LinkRecord{"/", LinkKind::soft, "/x", ""}), Catch::Contains("not allowed"));
    CHECK(refusal(GroupRecord{"/", {}}) == "accepted");
    CHECK(refusal(tensor_at("/a/../b.c")) == "accepted");  // HDF5 names, not file-system paths
}

TEST_CASE("an attribute needs a name, and one name once per object", "[stream]") {
    CHECK_THAT(refusal(GroupRecord{"/g", {byte_attribute("")}}), Catch::Contains("has no name"));
    CHECK_THAT(refusal(GroupRecord{"/g", {byte_attribute("a"), byte_attribute("a")}}),
               Catch::Contains("attribute 'a' appears twice"));
    CHECK(refusal(GroupRecord{"/g", {byte_attribute("a"), byte_attribute("b")}}) == "accepted");
}

TEST_CASE("a link needs a target, and a target file exactly when it is external", "[stream]") {
    CHECK_THAT(refusal(LinkRecord{"/l", LinkKind::soft, "", ""}), Catch::Contains("has no target"));
    CHECK_THAT(refusal(LinkRecord{"/l", LinkKind::external, "/x", ""}),
               Catch::Contains("needs a target file"));
    CHECK_THAT(refusal(LinkRecord{"/l", LinkKind::soft, "/x", "f.h5"}),
               Catch::Contains("a soft link has no target file"));
    CHECK(refusal(LinkRecord{"/l", LinkKind::external, "/x", "f.h5"}) == "accepted");
    CHECK(refusal(LinkRecord{"/l", LinkKind::soft, "relative/target", ""}) == "accepted");
}
