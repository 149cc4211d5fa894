// Turns a scenario's program into instruction words and builds the code object the GPU
// runs: ROCm's amd_kernel_code_t, gpuvp's descriptor extension, then the code.
#pragma once
#include <gpuvp/firmware/workload.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace gpuvp {

// `repeat` and loops become loop_begin/loop_end pairs; an `end` is appended if missing.
// Throws std::invalid_argument if loops nest deeper than the hardware loop stack or a loop or
// if_warp body is longer than its 16-bit count (0xffff instructions).
std::vector<uint64_t> assemble(const std::vector<ProgramStep>& program);

// The most instructions a program may assemble to (a 512 KiB code object); the scenario
// loader refuses more. Within it every body fits its 16-bit count.
constexpr uint64_t kMaxProgramInstructions = 65536;
// The instructions `program` assembles to, `end` included (what assemble() returns, counted
// without building it); stops counting past `limit`.
uint64_t assembled_size(const std::vector<ProgramStep>& program, uint64_t limit = UINT64_MAX);

// The bytes to place at the kernel object address (see models/common/kernel_descriptor.h).
// `multilevel`: the scalar pool (M3) holds uniform values; else the compiler keeps the
// written ones, at every level, in vector registers (vector_registers).
std::vector<unsigned char> build_code_object(const KernelSpec& k, uint32_t warp_size, bool multilevel = false);

// M3: vector registers per work-item the kernel is built with. With the multi-level scalar
// pool, its `vregs`; with per-warp read-only scalars only (the prior art), also one per
// uniform value of every level that the program writes (salu with write), the warp level
// included: the prior art's scalar registers hold only read-only values.
uint32_t vector_registers(const KernelSpec& k, bool multilevel);
// Whether the program writes a scalar of `level` (a salu with write at that level).
bool writes_level(const std::vector<ProgramStep>& program, ScalarLevel level);
// M1: whether the program has a block barrier (its blocks' warps may wait for warps of their
// block not started yet; the descriptor extension's `barrier`).
bool has_barrier(const std::vector<ProgramStep>& program);

// Work-items -> blocks and warps, as the hardware counts them.
uint64_t block_count(const KernelSpec& k);  // saturates at UINT64_MAX
uint32_t warps_per_block(const KernelSpec& k, uint32_t warp_size);  // of a whole block
uint64_t warp_count(const KernelSpec& k, uint32_t warp_size);       // partial edge blocks counted as they run

}  // namespace gpuvp
