#include <gpuvp/firmware/assembler.h>
#include <gpuvp/models/common/kernel_descriptor.h>

#include <algorithm>
#include <cstring>

namespace gpuvp {

namespace {
void emit(const std::vector<ProgramStep>& steps, std::vector<uint64_t>& out, unsigned depth) {
    for (const ProgramStep& s : steps) {
        if (s.insn.op == Opcode::if_warp) {  // the body, which warps not selected jump over
            const size_t at = out.size();
            out.push_back(0);
            emit(s.body, out, depth);
            const size_t body = out.size() - at - 1;
            if (body > 0xffff) throw std::invalid_argument("line " + std::to_string(s.line) + ": if_warp body too long");
            Instruction i = s.insn;
            i.a = uint16_t(body);
            out[at] = i.encode();
            continue;
        }
        const bool loop = !s.body.empty() || s.repeat > 1;
        if (!loop) {
            out.push_back(s.insn.encode());
            continue;
        }
        if (depth + 1 > kMaxLoopDepth)
            throw std::invalid_argument("line " + std::to_string(s.line) + ": loops nested deeper than " +
                                        std::to_string(kMaxLoopDepth));
        out.push_back(Instruction{Opcode::loop_begin, 0, 0, s.repeat}.encode());
        size_t first = out.size();
        if (s.body.empty()) out.push_back(s.insn.encode());
        else emit(s.body, out, depth + 1);
        size_t body = out.size() - first;
        if (body > 0xffff) throw std::invalid_argument("line " + std::to_string(s.line) + ": loop body too long");
        out.push_back(Instruction{Opcode::loop_end, 0, uint16_t(body), 0}.encode());
    }
}
}  // namespace

namespace {
uint64_t size_of(const std::vector<ProgramStep>& steps, uint64_t limit) {
    uint64_t n = 0;
    for (const ProgramStep& s : steps) {
        if (n > limit) break;
        if (s.insn.op == Opcode::if_warp) n += 1 + size_of(s.body, limit);
        else if (!s.body.empty()) n += 2 + size_of(s.body, limit);
        else n += s.repeat > 1 ? 3 : 1;
    }
    return n;
}

// Whether the last instruction `steps` emit is an `end`.
bool ends_with_end(const std::vector<ProgramStep>& steps) {
    if (steps.empty()) return false;
    const ProgramStep& s = steps.back();
    if (s.insn.op == Opcode::if_warp) return ends_with_end(s.body);
    return s.body.empty() && s.repeat <= 1 && s.insn.op == Opcode::end;
}
}  // namespace

uint64_t assembled_size(const std::vector<ProgramStep>& program, uint64_t limit) {
    return size_of(program, limit) + (ends_with_end(program) ? 0 : 1);  // assemble() appends an end
}

std::vector<uint64_t> assemble(const std::vector<ProgramStep>& program) {
    std::vector<uint64_t> out;
    emit(program, out, 0);
    if (out.empty() || Instruction::decode(out.back()).op != Opcode::end)
        out.push_back(Instruction{Opcode::end}.encode());
    return out;
}

uint64_t block_count(const KernelSpec& k) {
    uint64_t n = 1;
    for (int i = 0; i < 3; ++i) {
        const uint64_t along = k.block[i] ? (uint64_t(k.grid[i]) + k.block[i] - 1) / k.block[i] : 0;
        if (along && n > UINT64_MAX / along) return UINT64_MAX;  // three 32-bit sizes can exceed 64 bits
        n *= along;
    }
    return n;
}

uint32_t warps_per_block(const KernelSpec& k, uint32_t warp_size) {
    uint32_t threads = k.block[0] * k.block[1] * k.block[2];
    return (threads + warp_size - 1) / warp_size;
}

uint64_t warp_count(const KernelSpec& k, uint32_t warp_size) {
    // Along each dimension a block is whole or (at the far edge) partial: 8 kinds at most.
    uint64_t warps = 0;
    for (int kind = 0; kind < 8; ++kind) {
        uint64_t blocks = 1, threads = 1;
        for (int d = 0; d < 3; ++d) {
            const bool partial = kind >> d & 1;
            const uint64_t whole = k.grid[d] / k.block[d], rest = k.grid[d] % k.block[d];
            blocks *= partial ? (rest ? 1 : 0) : whole;
            threads *= partial ? rest : k.block[d];
        }
        warps += blocks * ((threads + warp_size - 1) / warp_size);
    }
    return warps;
}

bool writes_level(const std::vector<ProgramStep>& program, ScalarLevel level) {
    for (const ProgramStep& s : program) {
        if (s.insn.op == Opcode::salu && (s.insn.mod & kScalarWriteFlag) && ScalarLevel(s.insn.mod & 3) == level) return true;
        if (writes_level(s.body, level)) return true;
    }
    return false;
}

bool has_barrier(const std::vector<ProgramStep>& program) {
    return std::any_of(program.begin(), program.end(),
                       [](const ProgramStep& s) { return s.insn.op == Opcode::barrier || has_barrier(s.body); });
}

uint32_t vector_registers(const KernelSpec& k, bool multilevel) {
    uint32_t v = k.vregs;
    if (multilevel) return v;
    for (ScalarLevel l : {ScalarLevel::kernel, ScalarLevel::workgroup, ScalarLevel::warp, ScalarLevel::slice})
        if (writes_level(k.program, l)) v += k.scalars[size_t(l)];
    return v;
}

std::vector<unsigned char> build_code_object(const KernelSpec& k, uint32_t warp_size, bool multilevel) {
    const std::vector<uint64_t> code = assemble(k.program);
    std::vector<unsigned char> image(kCodeEntryOffset + code.size() * sizeof(uint64_t));

    amd_kernel_code_t d{};
    d.amd_kernel_code_version_major = AMD_KERNEL_CODE_VERSION_MAJOR;
    d.amd_kernel_code_version_minor = AMD_KERNEL_CODE_VERSION_MINOR;
    d.amd_machine_kind = AMD_MACHINE_KIND_AMDGPU;
    d.kernel_code_entry_byte_offset = kCodeEntryOffset;
    d.workgroup_group_segment_byte_size = k.shared_bytes;
    d.kernarg_segment_byte_size = k.kernarg_bytes;
    d.wavefront_sgpr_count = uint16_t(k.sregs);
    d.workitem_vgpr_count = uint16_t(vector_registers(k, multilevel));
    d.kernarg_segment_alignment = AMD_POWERTWO_16;
    d.group_segment_alignment = AMD_POWERTWO_16;
    d.private_segment_alignment = AMD_POWERTWO_16;
    uint8_t log2 = 0;
    while ((1u << log2) < warp_size) ++log2;
    d.wavefront_size = log2;
    std::memcpy(image.data(), &d, sizeof d);

    DescriptorExtension x{};
    x.magic = kExtensionMagic;
    x.version = 1;
    x.syncs = uint8_t((has_barrier(k.program) ? kSyncBarrier : 0) |
                      (writes_level(k.program, ScalarLevel::workgroup) ? kSyncWorkgroupWrite : 0) |
                      (writes_level(k.program, ScalarLevel::kernel) ? kSyncKernelWrite : 0));
    for (int i = 0; i < 4; ++i) x.scalars[i] = k.scalars[i];
    x.global_bytes = k.global_bytes;
    x.warp_priority_count = uint16_t(std::min<size_t>(k.warp_priorities.size(), kMaxWarpPriorities));
    std::copy_n(k.warp_priorities.begin(), x.warp_priority_count, x.warp_priorities);
    std::memcpy(image.data() + kExtensionOffset, &x, sizeof x);
    std::memcpy(image.data() + kCodeEntryOffset, code.data(), code.size() * sizeof(uint64_t));
    return image;
}

}  // namespace gpuvp
