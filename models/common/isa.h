// The abstract instruction set warps execute. Every instruction is one little-endian 64-bit
// word in the code object, fetched through the L1I:
//   bits 0-7 opcode, 8-15 modifier (memory space / scalar level, flags), 16-31 a, 32-63 b.
// Zero is not a valid opcode, so running into unwritten memory is an illegal instruction.
#pragma once
#include <cstdint>
#include <string>

namespace gpuvp {

enum class Opcode : uint8_t {
    end = 1,           // the warp is done
    valu = 2,          // vector ALU work: a = cycles
    salu = 3,          // scalar ALU work: a = cycles, mod bits 0-1 = level, bit 7 = writes
    load = 4,          // mod = space, b = bytes
    store = 5,         // mod = space, b = bytes
    kernarg_load = 6,  // load the kernel-argument segment (ISU kernarg pointer/size)
    barrier = 7,       // block barrier
    lock = 8,          // a = lock id (M2)
    unlock = 9,        // a = lock id (M2)
    loop_begin = 10,   // b = iteration count (>= 1)
    loop_end = 11,     // a = instructions in the body (jump back to the first of them)
    if_warp = 12,      // b = mask of warp indices in the block (bit i: warp i); a warp not in
                       // it skips the next a instructions (a task for some warps only, M2)
};

enum class Space : uint8_t { global = 0, shared = 1, kernarg = 2 };
enum class ScalarLevel : uint8_t { kernel = 0, workgroup = 1, warp = 2, slice = 3 };

constexpr uint32_t kInstructionBytes = 8;
constexpr uint8_t kScalarWriteFlag = 0x80;
constexpr unsigned kMaxLoopDepth = 4;

struct Instruction {
    Opcode op = Opcode::end;
    uint8_t mod = 0;
    uint16_t a = 0;
    uint32_t b = 0;

    uint64_t encode() const {
        return uint64_t(uint8_t(op)) | uint64_t(mod) << 8 | uint64_t(a) << 16 | uint64_t(b) << 32;
    }
    static Instruction decode(uint64_t w) {
        Instruction i;
        i.op = Opcode(uint8_t(w));
        i.mod = uint8_t(w >> 8);
        i.a = uint16_t(w >> 16);
        i.b = uint32_t(w >> 32);
        return i;
    }
    bool operator==(const Instruction& o) const {
        return op == o.op && mod == o.mod && a == o.a && b == o.b;
    }
};

inline bool valid_opcode(uint8_t op) { return op >= 1 && op <= 12; }
const char* opcode_name(Opcode op);
const char* space_name(Space s);
const char* level_name(ScalarLevel l);

}  // namespace gpuvp
