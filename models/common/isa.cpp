#include <gpuvp/models/common/isa.h>

namespace gpuvp {

const char* opcode_name(Opcode op) {
    switch (op) {
    case Opcode::end: return "end";
    case Opcode::valu: return "valu";
    case Opcode::salu: return "salu";
    case Opcode::load: return "load";
    case Opcode::store: return "store";
    case Opcode::kernarg_load: return "kernarg_load";
    case Opcode::barrier: return "barrier";
    case Opcode::lock: return "lock";
    case Opcode::unlock: return "unlock";
    case Opcode::loop_begin: return "loop_begin";
    case Opcode::loop_end: return "loop_end";
    case Opcode::if_warp: return "if_warp";
    }
    return "illegal";
}

const char* space_name(Space s) {
    switch (s) {
    case Space::global: return "global";
    case Space::shared: return "shared";
    case Space::kernarg: return "kernarg";
    }
    return "?";
}

const char* level_name(ScalarLevel l) {
    switch (l) {
    case ScalarLevel::kernel: return "kernel";
    case ScalarLevel::workgroup: return "workgroup";
    case ScalarLevel::warp: return "warp";
    case ScalarLevel::slice: return "slice";
    }
    return "?";
}

}  // namespace gpuvp
