-- An export with kernels and their names only (nsys profile --trace=cuda on a run without
-- runtime rows kept): no GPU described, no calls.
INSERT INTO StringIds VALUES (1, 'k(int)'), (2, 'k');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
    (100, 900, 0, 1, 7, 1, 256, 1, 2, NULL, 0, 0, 32, 4, 1, 1, 64, 1, 1, 0, 0, 0, 0, 1, NULL, NULL, NULL),
    (1000, 1500, 0, 1, 7, 2, 256, 1, 2, NULL, 0, 0, 32, 4, 1, 1, 64, 1, 1, 0, 0, 0, 0, 2, NULL, NULL, NULL);
