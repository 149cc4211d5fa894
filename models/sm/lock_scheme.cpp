#include "models/sm/lock_scheme.h"
#include "models/sm/priority_locks.h"
#include "models/sm/spin_locks.h"

namespace gpuvp {

std::unique_ptr<LockScheme> make_lock_scheme(LockPolicy policy) {
    switch (policy) {
    case LockPolicy::spin: return std::make_unique<SpinLocks>();
    case LockPolicy::priority: return std::make_unique<PriorityLocks>();
    }
    return nullptr;
}

}  // namespace gpuvp
