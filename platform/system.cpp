#include <gpuvp/platform/system.h>
#include <gpuvp/models/common/memory_map.h>

namespace gpuvp {

HostLayout System::layout(const PlatformConfig& p) {
    HostLayout l;
    l.host_bytes = p.memory.host_bytes;
    l.device_bytes = p.memory.device_bytes;
    l.warp_size = p.sm.warp_size;
    return l;
}

namespace {
GpuConfig gpu_config(const SystemConfig& s, const std::map<std::string, int>& log) {
    return GpuConfig{s.platform, s.policy, log};
}
Workload workload(const SystemConfig& s) {
    Workload w = s.workload;
    w.copy_args = s.policy.launch == LaunchPolicy::serial && w.serial_args == SerialArgs::device_copy;
    w.multilevel_scalars = s.policy.scalar == ScalarPolicy::multilevel;
    return w;
}
}  // namespace

System::System(sc_core::sc_module_name name, const SystemConfig& s, Observer* observer, ProtocolLog* protocol,
               const std::map<std::string, int>& log)
    : sc_module(name), connect_(protocol),
      host_memory("host_memory", s.platform.memory.host_bytes,
                  sc_core::sc_time(s.platform.memory.host_latency_ns, sc_core::SC_NS)),
      bus("bus"), gpu("gpu", gpu_config(s, log), observer, protocol), host("host", workload(s), layout(s.platform)),
      irq("irq") {
    const HostLayout l = layout(s.platform);
    bus.map(0, l.host_bytes, 0, "host memory");
    connect_(bus.out, host_memory.socket);
    bus.map(l.mmio_base, map::kBar + l.device_bytes, 0, "gpu mmio");
    connect_(bus.out, gpu.mmio);
    connect_(host.bus, bus.in);
    connect_(gpu.sysmem, bus.in);
    // Host memory tells the CP of writes to the headers and signals it watches (write
    // notification, docs/models/cp.md): a posted write to its WRITE_NOTICE register.
    connect_(host_memory.notify, bus.in);
    host_memory.notify_writes_to(l.mmio_base + map::kWriteNotice);
    gpu.irq.bind(irq);
    host.irq.bind(irq);
}

}  // namespace gpuvp
