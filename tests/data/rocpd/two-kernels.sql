-- A small rocpd database on schema.sql: one process (pid 4321, thread 4321) on an MI300X (agent
-- 2; agent 0 the CPU). A copy to the GPU, a GEMM and a ReLU on stream 1, each launched by a HIP
-- call whose event shares its stack_id (the internal correlation); an HSA call inside a launch
-- (not a program's call); a stream sync.
INSERT INTO rocpd_string_0190ab12_3c4d_7e5f_8a9b_0123456789ab (id, string) VALUES
    (1, 'HIP_RUNTIME_API'), (2, 'KERNEL_DISPATCH'), (3, 'hipLaunchKernel'), (4, 'hipMemcpyAsync'),
    (5, 'MEMORY_COPY_HOST_TO_DEVICE'), (6, 'MEMORY_COPY'), (7, 'HSA_CORE_API'), (8, 'hsa_signal_store_screlease'),
    (9, 'hipStreamSynchronize'), (10, '');
INSERT INTO rocpd_info_agent_0190ab12_3c4d_7e5f_8a9b_0123456789ab (id, nid, pid, type, absolute_index, logical_index, type_index, name, product_name, extdata) VALUES
    (0, 1, 4321, 'CPU', 0, 0, 0, 'AMD EPYC 9534', 'AMD EPYC 9534', '{}'),
    (2, 1, 4321, 'GPU', 2, 1, 0, 'gfx942', 'AMD Instinct MI300X',
     '{"cu_count": 304, "wave_front_size": 64, "lds_size_in_kb": 64, "max_waves_per_cu": 32, "workgroup_max_size": 1024, "simd_per_cu": 4}');
INSERT INTO rocpd_info_kernel_symbol_0190ab12_3c4d_7e5f_8a9b_0123456789ab (id, nid, pid, code_object_id, kernel_name, display_name, group_segment_size,
    private_segment_size, sgpr_count, arch_vgpr_count, accum_vgpr_count) VALUES
    (9, 1, 4321, 1, '_Z4gemmPf', 'gemm(float*)', 1024, 0, 40, 64, 32),
    (10, 1, 4321, 1, '_Z4reluPf', 'relu(float*)', 0, 0, 16, 24, 0);
INSERT INTO rocpd_event_0190ab12_3c4d_7e5f_8a9b_0123456789ab (id, category_id, stack_id, parent_stack_id, correlation_id) VALUES
    (1, 1, 100, 0, 0), (2, 6, 100, 100, 0), (3, 1, 101, 0, 0), (4, 2, 101, 101, 0), (5, 7, 102, 101, 0),
    (6, 1, 103, 0, 0), (7, 2, 103, 103, 0), (8, 1, 104, 0, 0);
INSERT INTO rocpd_region_0190ab12_3c4d_7e5f_8a9b_0123456789ab (id, nid, pid, tid, start, end, name_id, event_id) VALUES
    (100, 1, 4321, 4321, 1000, 2000, 4, 1), (101, 1, 4321, 4321, 3000, 4000, 3, 3),
    (102, 1, 4321, 4321, 3100, 3200, 8, 5), (103, 1, 4321, 4321, 5000, 5500, 3, 6),
    (104, 1, 4321, 4321, 6000, 30000, 9, 8);
INSERT INTO rocpd_memory_copy_0190ab12_3c4d_7e5f_8a9b_0123456789ab (id, nid, pid, tid, start, end, name_id, dst_agent_id, src_agent_id, size, queue_id,
    stream_id, region_name_id, event_id) VALUES (1, 1, 4321, 4321, 2500, 6000, 5, 2, 0, 1048576, 1, 1, 10, 2);
INSERT INTO rocpd_kernel_dispatch_0190ab12_3c4d_7e5f_8a9b_0123456789ab (id, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id, start, end,
    private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x,
    grid_size_y, grid_size_z, region_name_id, event_id) VALUES
    (1, 1, 4321, 4321, 2, 9, 1, 1, 1, 7000, 19000, 0, 2048, 256, 1, 1, 16384, 2, 1, 10, 4),
    (2, 1, 4321, 4321, 2, 10, 2, 1, 1, 19100, 22000, 0, 0, 64, 1, 1, 1000, 1, 1, 10, 7);
