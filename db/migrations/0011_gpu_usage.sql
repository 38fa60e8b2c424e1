-- 0011: what an attempt used of its GPUs (issue 26 part 3), as its worker
-- reported it at the end: GPU-seconds held (its GPUs times its wall time),
-- mean utilisation (%), the most memory one of its GPUs held (bytes),
-- energy (J), and 1 where the GPUs were simulated (the worker's sim_gpu_*
-- figures, not readings).  NULL for attempts without GPUs, before this
-- migration, and while an attempt runs.
ALTER TABLE attempts ADD COLUMN gpu_seconds INTEGER;
ALTER TABLE attempts ADD COLUMN gpu_util REAL;
ALTER TABLE attempts ADD COLUMN gpu_mem_peak INTEGER;
ALTER TABLE attempts ADD COLUMN gpu_energy_j REAL;
ALTER TABLE attempts ADD COLUMN gpu_simulated INTEGER;
