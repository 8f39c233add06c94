// The library's settings, one set per process: read from the environment once,
// at first use, and changed from code with set_config() (Python:
// zarrgpu.set_config / zarrgpu.configured). Reads started after a change see
// it; a read in flight keeps the settings it started with.
//
//   field              environment                default
//   threads            ZARRGPU_THREADS            0: one thread per core
//   io                 ZARRGPU_IO                 auto: GDS where nvidia-fs is present, else posix
//   zstd_decoder       ZARRGPU_GPU_ZSTD           auto (0: cpu, 1: gpu)
//   lz4_decoder        ZARRGPU_GPU_LZ4            auto (0: cpu, 1: gpu)
//   blosc_decoder      ZARRGPU_GPU_BLOSC          auto (0: cpu, 1: gpu)
//   readahead_bytes    ZARRGPU_READAHEAD          256 MiB ("0" off)
//   staging_bytes      ZARRGPU_STAGING_BYTES      256 MiB
//   staging_slots      ZARRGPU_STAGING_SLOTS      0: 4 on GPUs of >= 32 GiB, else 3
//   scratch_bytes      ZARRGPU_SCRATCH_BYTES      0: twice staging_bytes
//   read_piece_bytes   ZARRGPU_READ_PIECE_BYTES   4 MiB
//   keep_device_buffers ZARRGPU_KEEP_DEVICE_BUFFERS 1 (0: release after each read)
//   memory_limit       ZARRGPU_MEMORY_LIMIT       0: the machine's (zarrgpu/memory_limit.hpp)
//
// Byte sizes take "65536", "64K", "256M", "1G", "2GiB" (powers of 1024).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zarrgpu {

// How device reads bring stored bytes to the GPU.
enum class IoMode : std::uint8_t {
  auto_,       // gds where true GDS (nvidia-fs) is present and the store is a local directory, else posix
  posix,       // parallel pread into a pinned staging ring, one host-to-device copy per batch
  gds,         // cuFile: storage DMA into GPU memory (compatibility mode where nvidia-fs is absent)
  gds_compat,  // cuFile in compatibility mode (POSIX inside cuFile)
};

// Where a codec with a GPU decoder (zstd, numcodecs.lz4, blosc) decodes on
// device reads.
enum class DecoderChoice : std::uint8_t {
  auto_,  // per batch: GPU for many frames or large frames, CPU threads otherwise
  cpu,    // CPU threads into pinned memory, then one copy to the device
  gpu,    // the GPU decoder
};

struct Config {
  // Threads of the host pool that reads, decodes and writes chunks; 0: one
  // per core. The pool starts with the first parallel operation; a later
  // change takes effect only in a process that has not started it.
  unsigned threads = 0;
  IoMode io = IoMode::auto_;
  DecoderChoice zstd_decoder = DecoderChoice::auto_;
  // numcodecs.lz4 and blosc chunks: each codec's rule (lz4_device_choice.hpp,
  // blosc_device_choice.hpp) or always one side.
  DecoderChoice lz4_decoder = DecoderChoice::auto_;
  DecoderChoice blosc_decoder = DecoderChoice::auto_;
  // Host reads: bytes of chunks beyond those being decoded that the store is
  // told to fetch ahead (LocalStore: into the page cache); 0 turns it off.
  std::uint64_t readahead_bytes = std::uint64_t{256} << 20;
  // Device reads: pinned host bytes per staging slot, and slots in the ring
  // (0: 4 on a GPU of 32 GiB or more, else 3; otherwise 2..16).
  std::uint64_t staging_bytes = std::uint64_t{256} << 20;
  unsigned staging_slots = 0;
  // Device reads: device bytes of decoded chunks per batch (0: twice
  // staging_bytes); a GPU Zstd decode may use up to 6 times this as temp.
  std::uint64_t scratch_bytes = 0;
  // Device reads: the largest single pread of a chunk that decodes on the GPU.
  std::uint64_t read_piece_bytes = std::uint64_t{4} << 20;
  // Device reads keep their pinned staging ring and device buffers for the
  // next read (pinning costs ~0.5 s); false releases them when each read ends.
  // release_device_memory() frees them on demand either way.
  bool keep_device_buffers = true;
  // The most bytes one allocation sized by the input (a decoded chunk, a
  // read's output) may take; larger ones are Error(resource_exhausted) before
  // they are made. 0: the machine's memory as the process can use it; a value
  // above that changes nothing (zarrgpu/memory_limit.hpp).
  std::uint64_t memory_limit = 0;

  bool operator==(const Config&) const = default;

  // The defaults overridden by the environment variables above; throws
  // Error(invalid_argument) naming the variable whose value does not parse.
  static Config from_environment();
};

// The settings in force: Config::from_environment() at the first call, or
// what set_config() set since. Throws the environment's error (invalid_argument)
// until set_config() replaces a configuration whose variables did not parse.
Config config();
// Replaces the settings; Error(invalid_argument) for a value out of range
// (staging_slots other than 0 or 2..16, staging_bytes or read_piece_bytes 0).
void set_config(const Config& config);

// Names as the environment and Python spell them: "auto", "posix", "gds",
// "gds-compat"; "auto", "cpu", "gpu".
std::string_view to_string(IoMode mode) noexcept;
std::string_view to_string(DecoderChoice choice) noexcept;
std::optional<IoMode> parse_io_mode(std::string_view text) noexcept;
// Also "0" (cpu) and "1" (gpu), as ZARRGPU_GPU_ZSTD (_LZ4, _BLOSC) take them.
std::optional<DecoderChoice> parse_decoder_choice(std::string_view text) noexcept;
// "65536", "64K", "256M", "1G", "2GiB", "512MB" (powers of 1024); nullopt if malformed.
std::optional<std::uint64_t> parse_byte_size(std::string_view text) noexcept;

}  // namespace zarrgpu
