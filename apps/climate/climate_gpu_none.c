/* climate_gpu_none.c - the GPU entry points of a build without CUDA. */
#include <stdio.h>

#include "apps/climate/climate_gpu.h"

const struct climate_backend *climate_gpu_backend (int local_rank, char *why, int n)
{
    snprintf (why, (size_t)n, "built without CUDA");
    return NULL;
}

void climate_gpu_prefetch (struct climate_model *m)
{
}
