// Opens a Zarr array (format 2 or 3) in a local directory and reads a
// selection into host memory, with nothing but zarrgpu's installed headers.
//
//   read_array <store directory> [selection, e.g. "0:10,:,5"] [array path in the store]
//
// Prints the array's shape and data type, the selection's shape and the sum
// of its values (float32 and float64 arrays; other types print their bytes).
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <zarrgpu/array.hpp>

namespace {

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

template <class T>
double sum_of(const zarrgpu::Bytes& bytes) {
  double sum = 0;
  for (std::size_t i = 0; i + sizeof(T) <= bytes.size(); i += sizeof(T)) {
    T v;
    std::memcpy(&v, bytes.data() + i, sizeof(T));
    sum += double(v);
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <store directory> [selection] [array path]\n", argv[0]);
    return 2;
  }
  try {
    auto store = zarrgpu::open_local_store(argv[1]);
    const auto selection = zarrgpu::Selection::parse(argc > 2 ? argv[2] : "");
    const auto array = zarrgpu::Array::open(store, argc > 3 ? argv[3] : "");
    const auto ranges = selection.resolve(array.shape());

    const zarrgpu::Bytes values = array.read(selection);

    std::printf("array %s %s\n", shape_text(array.shape()).c_str(),
                std::string(zarrgpu::v3_name(array.dtype())).c_str());
    std::printf("selection %s: %zu bytes\n", shape_text(zarrgpu::Selection::result_shape(ranges)).c_str(),
                values.size());
    switch (array.dtype().kind) {
      case zarrgpu::DataTypeKind::float32: std::printf("sum %.6g\n", sum_of<float>(values)); break;
      case zarrgpu::DataTypeKind::float64: std::printf("sum %.6g\n", sum_of<double>(values)); break;
      default: break;
    }
    return 0;
  } catch (const zarrgpu::Error& e) {
    // kind() is the stable category (not_found, corrupt_data, ...); what() names array, chunk and codec.
    std::fprintf(stderr, "%s: %s\n", zarrgpu::to_string(e.kind()), e.what());
    return int(e.kind());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
