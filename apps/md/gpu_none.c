/* gpu_none.c - md_backend_gpu for builds without CUDA. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>

#include "apps/md/backend.h"

const struct md_backend_ops *md_backend_gpu (char *why, size_t len)
{
    snprintf (why, len, "hpcq-md was built without CUDA");
    return NULL;
}
