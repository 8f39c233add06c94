// zarrgpu._zarrgpu.ChunkBatchCodec and decode_zstd_on_device: batches of whole
// chunks whose bytes Python fetched itself (zarrgpu.zarr's codec pipeline for
// zarr-python). See src/engine/chunk_batch.hpp.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/chunk_batch.hpp"
#include "zarrgpu/error.hpp"

namespace nb = nanobind;

namespace zarrgpu::python {
namespace {

using HostBytes = nb::ndarray<std::uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using ConstHostBytes = nb::ndarray<nb::ro, std::uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

std::vector<std::span<const std::byte>> const_spans(const std::vector<ConstHostBytes>& arrays) {
  std::vector<std::span<const std::byte>> spans;
  spans.reserve(arrays.size());
  for (const auto& a : arrays) spans.emplace_back(reinterpret_cast<const std::byte*>(a.data()), a.nbytes());
  return spans;
}

}  // namespace

void bind_chunk_batch(nb::module_& m) {
  using engine::ChunkBatchCodec;
  nb::class_<ChunkBatchCodec>(m, "ChunkBatchCodec",
                              "The codec chain of one chunk, from a format 3 zarr.json or format 2 .zarray whose "
                              "shape is the chunk's; decodes and encodes batches of whole chunks on CPU threads.")
      .def_static(
          "from_json",
          [](const std::string& document, const std::string& name) {
            json doc;
            try {
              doc = json::parse(document);
            } catch (const json::exception& e) {
              throw Error(ErrorKind::invalid_argument, std::string("chunk metadata is not JSON: ") + e.what());
            }
            return ChunkBatchCodec::from_document(doc, name);
          },
          nb::arg("document"), nb::arg("name") = "")
      .def_prop_ro("chunk_bytes", &ChunkBatchCodec::chunk_bytes)
      .def_prop_ro("device_form",
                   [](const ChunkBatchCodec& c) -> nb::object {
                     if (!c.device_form()) return nb::none();
                     return nb::str(*c.device_form() == ChunkBatchCodec::DeviceForm::zstd ? "zstd" : "copy");
                   })
      .def(
          "decode",
          [](const ChunkBatchCodec& c, const std::vector<ConstHostBytes>& in, const std::vector<HostBytes>& out,
             const std::vector<std::string>& keys, unsigned threads) {
            auto src = const_spans(in);
            std::vector<std::span<std::byte>> dst;
            dst.reserve(out.size());
            for (const auto& a : out) dst.emplace_back(reinterpret_cast<std::byte*>(a.data()), a.nbytes());
            nb::gil_scoped_release release;
            c.decode(src, dst, keys, threads);
          },
          nb::arg("encoded"), nb::arg("out"), nb::arg("keys") = std::vector<std::string>{}, nb::arg("threads") = 0,
          "Decodes encoded[i] (uint8 arrays) into out[i] (writable uint8 arrays of chunk_bytes each).")
      .def(
          "encode",
          [](const ChunkBatchCodec& c, const std::vector<ConstHostBytes>& in, const std::vector<std::string>& keys,
             unsigned threads) {
            auto src = const_spans(in);
            std::vector<Bytes> encoded;
            {
              nb::gil_scoped_release release;
              encoded = c.encode(src, keys, threads);
            }
            nb::list result;
            for (const Bytes& b : encoded)
              result.append(nb::steal(PyBytes_FromStringAndSize(reinterpret_cast<const char*>(b.data()),
                                                                static_cast<Py_ssize_t>(b.size()))));
            return result;
          },
          nb::arg("arrays"), nb::arg("keys") = std::vector<std::string>{}, nb::arg("threads") = 0,
          "Encodes uint8 arrays of chunk_bytes each (C order, native byte order); returns bytes objects.");

  m.def(
      "decode_zstd_on_device",
      [](int device, const std::vector<std::uintptr_t>& in_ptrs, const std::vector<std::size_t>& in_sizes,
         const std::vector<std::uintptr_t>& out_ptrs, const std::vector<std::size_t>& out_sizes,
         const std::vector<std::string>& keys, std::uintptr_t stream) {
        std::vector<const void*> in(in_ptrs.size());
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = reinterpret_cast<const void*>(in_ptrs[i]);
        std::vector<void*> out(out_ptrs.size());
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = reinterpret_cast<void*>(out_ptrs[i]);
        nb::gil_scoped_release release;
        engine::decode_zstd_on_device(device, in, in_sizes, out, out_sizes, keys, stream);
      },
      nb::arg("device"), nb::arg("in_ptrs"), nb::arg("in_sizes"), nb::arg("out_ptrs"), nb::arg("out_sizes"),
      nb::arg("keys"), nb::arg("stream") = 0,
      "Decodes zstd frames in device memory into device buffers of out_sizes bytes each with zarrgpu's GPU "
      "decoder on `stream` (a cudaStream_t as int; 0: the legacy default stream), and waits for it.");
}

}  // namespace zarrgpu::python
