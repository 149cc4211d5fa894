// The address maps of the GPU (docs/memory-map.md is the reader's version of this file).
#pragma once
#include <cstdint>

namespace gpuvp::map {

// --- The GPU's own address space (what the CP, WLM and SMs put on their memory ports) ---
// Below kDeviceBase: system (host) memory, reached through the link and the `sysmem` port
// with the address unchanged. From kDeviceBase: device memory behind the L2.
constexpr uint64_t kDeviceBase = 0x1000'0000'0000ull;

// --- The `mmio` target socket (offsets from wherever the SoC maps the GPU) ---
constexpr uint64_t kRegsSize = 0x8000;                 // command processor registers
constexpr uint64_t kGpuId = 0x0000;                    // r: 'GPVP'
constexpr uint64_t kIntStatus = 0x0008;                // r, write 1 to clear: bit q = queue q news
constexpr uint64_t kIntEnable = 0x0010;                // rw: bit q enables queue q's interrupt
constexpr uint64_t kWriteNotice = 0x0018;              // w 64: a watched range of memory was written, its address
constexpr uint64_t kQueueRegs = 0x1000;                // queue q at kQueueRegs + q * kQueueStride
constexpr uint64_t kQueueStride = 0x40;
constexpr uint64_t kQueueRingBase = 0x00;              // rw 64: ring buffer address (host memory)
constexpr uint64_t kQueueRingSize = 0x08;              // rw 32: packets, a power of two
constexpr uint64_t kQueuePriority = 0x0c;              // rw 32: 0 is the highest
constexpr uint64_t kQueueReadIndexAddr = 0x10;         // rw 64: where the CP publishes its read index
constexpr uint64_t kQueueControl = 0x18;               // rw 32: bit 0 enable
constexpr uint64_t kQueueStatus = 0x1c;                // r 32: 0 ok, else a QueueError
constexpr uint64_t kQueueErrorPacket = 0x20;           // r 64: index of the packet in error
constexpr uint64_t kQueueReadIndex = 0x28;             // r 64: packets consumed
constexpr uint64_t kQueueType = 0x30;                  // rw 32: hsa_queue_type_t, 0 multi (reset), 1 single
constexpr uint64_t kDoorbells = 0x4000;                // queue q's doorbell at kDoorbells + q * 8
constexpr uint64_t kGpuIdValue = 0x50565047;           // "GPVP"
// Device memory aperture (a large BAR): mmio offset kBar + x is device address kDeviceBase + x.
constexpr uint64_t kBar = 0x1'0000'0000ull;
// Debug aperture (transport_dbg only): the internal registers and tables of the GLC and of
// each SM, at their own offsets (kGlcKernelTable, kSmBlockTable, ...) from these bases. It runs
// from kDebugGlc to kBar: four windows of one block each, then one per SM and one per SM's lock
// arbiter, kDebugStride each, for as many as kMaxSms SMs.
constexpr uint64_t kDebugStride = 0x20'0000ull;
constexpr uint64_t kDebugGlc = 0x7800'0000ull;
constexpr uint64_t kDebugUsa = kDebugGlc + kDebugStride;     // the unified shading array's registers (M4)
constexpr uint64_t kDebugWlm = kDebugUsa + kDebugStride;     // the WLM's launch register (the last launch)
constexpr uint64_t kDebugCpDone = kDebugWlm + kDebugStride;  // the CP's internal done registers (the last of each)
constexpr uint64_t kDebugSm = 0x8000'0000ull;  // SM i at kDebugSm + i * kDebugStride
constexpr uint64_t kDebugArbiter = 0xc000'0000ull;  // SM i's lock arbiter at kDebugArbiter + i * kDebugStride
// The most SMs a GPU may have (`sms`, platform/gpu_config.cpp): their debug windows fill the
// aperture up to the BAR.
constexpr uint32_t kMaxSms = 512;

// --- Internal control registers (on-chip bus, not reachable from mmio) ---
constexpr uint64_t kWlmLaunch = 0x0000;        // WLM: write a LaunchDescriptor
constexpr uint64_t kGlcRegisterKernel = 0x0000;  // GLC: write a KernelRegistration
constexpr uint64_t kGlcSmNotice = 0x0100;        // GLC: write an SmNotice
constexpr uint64_t kGlcKernelTable = 0x1000;     // GLC: kernel status table, 32 bytes a row
constexpr uint64_t kGlcSmTable = 0x4000;         // GLC: SM status table, 32 bytes a row
constexpr uint64_t kSmDispatch = 0x0000;         // SM: write a BlockDescriptor
constexpr uint64_t kSmIsuContext = 0x1000;       // SM: ISU kernel contexts, 32 bytes each
constexpr uint64_t kSmBlockTable = 0x4000;       // SM: block status table, 32 bytes a row
constexpr uint64_t kSmLockDecision = 0x0100;     // SM (from its lock arbiter): write a LockDecision
constexpr uint64_t kSmKernelDrained = 0x0200;    // SM (from the GLC, M3): write a KernelDrained
constexpr uint64_t kSmCprTable = 0x8000;         // SM: per kernel context, 256 bytes: the CPR of warp i
                                                 // of each of its blocks (M2), written by the WLM
constexpr uint64_t kSmCpr = 0x1'0000;            // SM: the CPRs of block row r, 256 bytes at kSmCpr + r * 256
constexpr uint64_t kCprBytes = 256;
constexpr uint64_t kSmShared = 0x10'0000;        // SM: shared memory (debug access only)
constexpr uint64_t kArbiterRequest = 0x0000;     // lock arbiter: write a LockRequest
constexpr uint64_t kArbiterFifo = 0x1000;        // lock arbiter: row r's FIFO (debug read): a 8-byte
                                                 // count, then its LockRequests, at kArbiterFifo + r * kArbiterFifoStride
constexpr uint64_t kArbiterFifoStride = 0x1000;
constexpr uint64_t kCpKernelDone = 0x0000;       // CP (from the GLC): write a KernelDone
constexpr uint64_t kCpDrawDone = 0x0040;         // CP (from the shading array): write a DrawDone (M4)
constexpr uint64_t kUsaDraw = 0x0000;            // shading array: write a DrawDescriptor
constexpr uint64_t kUsaFlags = 0x0100;           // shading array (r 32): bits 0-1 idle vertex flag, 2-3 idle
                                                 // pixel flag, 8-15 vertex cores, 16-23 pixel cores
constexpr uint64_t kUsaCoreTable = 0x1000;       // shading array: one 32-byte row per core (UsaCoreRow)
constexpr uint64_t kUsaDrawTable = 0x4000;       // shading array: one 32-byte row per draw slot (UsaDrawRow)
constexpr uint64_t kTableRowBytes = 32;

static_assert(kDebugCpDone + kDebugStride <= kDebugSm, "the block windows end before the SMs'");
static_assert(kDebugSm + kMaxSms * kDebugStride <= kDebugArbiter, "kMaxSms SM windows fit below the arbiters'");
static_assert(kDebugArbiter + kMaxSms * kDebugStride <= kBar, "kMaxSms arbiter windows fit below the BAR");

}  // namespace gpuvp::map
