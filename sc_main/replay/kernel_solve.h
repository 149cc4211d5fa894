// The solve of an imported kernel's body (docs/replay.md, "Kernel bodies"): the cycles per warp
// with which the kernel, alone on the imported platform, takes the duration the hardware
// measured, found against simulations of the kernel alone, whatever the model's dispatch costs,
// occupancy and waves make of them.
#pragma once
#include "sc_main/scenario/trace_scenario.h"

namespace gpuvp {

// A kernel's duration alone (first warp's start to its end) is a rising function of its body's
// cycles: flat while dispatch bounds it, then in steps of its waves. Per distinct shape the
// solve simulates a body of one cycle (the floor) and the formula's estimate, then, for a few
// rounds, the bodies that the probes so far interpolate for its targets (at most a few a round),
// and takes each target's body by interpolation between the two probes around it. The probes of
// a round run in one simulation per job, one kernel after another in one queue (the barrier bit:
// each alone on the GPU), each job in a child process of its own, forked from this one, which
// must not have elaborated SystemC. Dispatch policy fifo (priority-block agrees, M1's docs).
// A target measured shorter than its floor gets a body of one cycle.
std::vector<BodySolution> solve_kernel_bodies(const Scenario& platform, const std::vector<BodyTarget>& targets,
                                              SolveStats& stats, unsigned jobs = 2);

// A kernel that another kernel overlapped on the hardware was slowed by that contention, and its
// measured duration holds it: solved to take that duration alone, it would be slowed a second
// time beside the same kernels in the model. Its body is refined against replays of the whole
// scenario (`replay`, in one child process each, under its own policies): each round scales the
// body of every such kernel off by more than 1 % by measured over simulated duration, for at
// most `rounds` replays or until none moves. Each kernel's cycles, in scenario order; none
// where no kernel overlapped another on the hardware.
std::vector<uint64_t> refine_overlapped_bodies(const Scenario& replay, RefineStats& stats, int rounds = 4);

// The durations of `kernels` each alone on `platform` (ns, first warp's start to end; NaN where
// the simulation could not give one), simulated in `jobs` child processes.
std::vector<double> alone_durations(const Scenario& platform, const std::vector<KernelSpec>& kernels, unsigned jobs);

}  // namespace gpuvp
