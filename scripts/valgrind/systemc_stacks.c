/* Run under valgrind with LD_PRELOAD=<this .so> (scripts/valgrind/run does it).
 *
 * SystemC runs each SC_THREAD on a stack of its own that it maps with mmap and switches to
 * with QuickThreads. Valgrind's memcheck does not know these are stacks: every switch looks
 * like a huge stack frame, and every access to a thread's locals like an access below the
 * stack pointer ("Invalid read ... is on thread 1's stack"). This shim tells valgrind about
 * each anonymous mapping libsystemc makes (its thread stacks) with VALGRIND_STACK_REGISTER,
 * which is a no-op outside valgrind. Debian's libsystemc is built without valgrind support. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <valgrind/valgrind.h>

void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
    static void* (*real_mmap)(void*, size_t, int, int, int, off_t);
    if (!real_mmap) real_mmap = (void* (*)(void*, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
    void* p = real_mmap(addr, length, prot, flags, fd, offset);
    Dl_info caller;
    if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && dladdr(__builtin_return_address(0), &caller) &&
        caller.dli_fname && strstr(caller.dli_fname, "libsystemc"))
        VALGRIND_STACK_REGISTER(p, (char*)p + length - 1);
    return p;
}
