-- A small Nsight Systems export on schema.sql: one process (pid 1234, host thread 1235) on an
-- A100. A copy and a GEMM on stream 7, an event recorded after it that stream 13 waits for, a
-- ReLU and a fill on stream 13, a CUDA graph traced whole on stream 7, a stream sync. NVTX:
-- "forward" (a registered string) around the GEMM's to the ReLU's launch, "relu" around the
-- ReLU's. globalTid = pid << 24 | tid.
INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.1');
INSERT INTO StringIds VALUES
    (1, 'void gemm_kernel<float>(float const*, float*, int)'), (2, 'gemm_kernel'),
    (3, 'cudaLaunchKernel_v7000'), (4, 'cudaMemcpyAsync_v3020'), (5, 'cudaStreamSynchronize_v3020'),
    (6, 'cudaEventRecord_v3020'), (7, 'cudaStreamWaitEvent_v3020'), (8, 'cudaGraphLaunch_v10000'),
    (9, 'relu_kernel(float*)'), (10, 'cudaMemsetAsync_v3020'), (11, 'forward'), (12, 'relu_kernel');
INSERT INTO TARGET_INFO_GPU (vmId, id, name, totalMemory, smCount, cuDevice, maxRegistersPerBlock, maxShmemPerBlock,
    maxShmemPerBlockOptin, maxShmemPerSm, maxRegistersPerSm, threadsPerWarp, maxWarpsPerSm, maxBlocksPerSm,
    maxThreadsPerBlock, computeMajor, computeMinor)
VALUES (0, 0, 'NVIDIA A100-SXM4-80GB', 85899345920, 108, 0, 65536, 49152, 166912, 167936, 65536, 32, 64, 32, 1024, 8, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, nameId, returnValue) VALUES
    (1000, 3000, 0, 20703085779, 10, 4, 0),
    (4000, 6000, 0, 20703085779, 11, 3, 0),
    (6500, 7000, 0, 20703085779, 12, 6, 0),
    (7500, 8000, 0, 20703085779, 13, 7, 0),
    (8200, 9000, 0, 20703085779, 14, 3, 0),
    (9500, 10000, 0, 20703085779, 15, 10, 0),
    (10500, 12000, 0, 20703085779, 16, 8, 0),
    (12500, 40100, 0, 20703085779, 17, 5, 0);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, correlationId, globalPid, bytes, copyKind)
VALUES (3500, 8000, 0, 1, 7, 10, 20703084544, 1048576, 1);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
    (8500, 20500, 0, 1, 7, 11, 20703084544, 1, 2, NULL, 0, 0, 64, 64, 2, 1, 256, 1, 1, 1024, 16384, 0, 0, 101, NULL, NULL, NULL),
    (20600, 25000, 0, 1, 13, 14, 20703084544, 9, 12, NULL, 0, 0, 16, 40, 1, 1, 128, 1, 1, 0, 0, 0, 0, 102, NULL, NULL, NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, correlationId, globalPid, value, bytes)
VALUES (25100, 25600, 0, 1, 13, 15, 20703084544, 0, 4096);
INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (25800, 40000, 0, 1, 7, 16, 20703084544, 3, 4);
INSERT INTO CUPTI_ACTIVITY_KIND_CUDA_EVENT VALUES (0, 1, 7, 12, 20703084544, 5);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES
    (7500, 8000, 0, 1, 13, 13, 20703084544, 2, 5),
    (12500, 40100, 0, 1, 13, 17, 20703084544, 3, 4294967295);
INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text, textId) VALUES
    (3900, 9100, 59, 20703085779, NULL, 11),
    (8100, 8900, 59, 20703085779, 'relu', NULL),
    (9200, NULL, 34, 20703085779, 'a mark', NULL);
