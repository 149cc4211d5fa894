#include <gpuvp/models/sm/lock_scheme.h>
#include <gpuvp/models/sm/priority_lock_scheme.h>
#include <gpuvp/models/sm/spin_lock_scheme.h>

namespace gpuvp {

std::unique_ptr<LockScheme> make_lock_scheme(LockPolicy policy) {
    switch (policy) {
    case LockPolicy::spin: return std::make_unique<SpinLockScheme>();
    case LockPolicy::priority: return std::make_unique<PriorityLockScheme>();
    }
    return nullptr;
}

}  // namespace gpuvp
