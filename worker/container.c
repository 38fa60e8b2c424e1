/* container.c - see container.h */
#include <config.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "worker/container.h"

/* 1 if name is an executable in PATH. */
static int in_path (const char *name)
{
    const char *path = getenv ("PATH");
    char buf[PATH_MAX];

    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn (p, ":");
        if (n > 0 && n + strlen (name) + 2 <= sizeof (buf)) {
            snprintf (buf, sizeof (buf), "%.*s/%s", (int)n, p, name);
            if (access (buf, X_OK) == 0)
                return 1;
        }
        p += n + (p[n] == ':');
    }
    return 0;
}

/* hpcq-container beside this worker's build (worker/ and cli/ side by
 * side), else where it is installed. */
static void helper_path (char *buf, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", self, sizeof (self) - 1);

    if (n > 0) {
        char *slash;
        self[n] = '\0';
        if ((slash = strrchr (self, '/'))) {
            *slash = '\0';
            snprintf (buf, len, "%s/../cli/hpcq-container", self);
            if (access (buf, X_OK) == 0)
                return;
        }
    }
    snprintf (buf, len, "%s/hpcq-container", HPCQ_LIBEXECDIR);
}

int container_setup (struct config *cfg, char *helper, size_t len,
                     struct hpcq_error *err)
{
    const char *rt = config_get (cfg, "container_runtime", "runc");
    const char *h = config_get (cfg, "container_helper", NULL);

    helper[0] = '\0';
    if (strcmp (rt, "none") == 0)
        return 0;
    if (strcmp (rt, "runc") != 0)
        return errprintf (err, "invalid container_runtime '%s' (runc or none)", rt);
    if (!in_path ("runc") || !in_path ("umoci")) {
        log_msg (LOG_INFO,
                 "containers: no runc and umoci on PATH: container jobs go elsewhere");
        return 0;
    }
    if (h)
        snprintf (helper, len, "%s", h);
    else
        helper_path (helper, len);
    if (access (helper, X_OK) < 0) {
        log_msg (LOG_WARNING, "containers: %s is missing: container jobs go elsewhere",
                 helper);
        helper[0] = '\0';
        return 0;
    }
    log_msg (LOG_INFO, "containers: rootless runc through %s", helper);
    return 0;
}

/* 1 if path is dir or below it (both absolute, no "..": checked at qsub). */
static int under (const char *path, const char *dir, size_t dlen)
{
    while (dlen > 1 && dir[dlen - 1] == '/')
        dlen--;
    return strncmp (path, dir, dlen) == 0
           && (path[dlen] == '/' || path[dlen] == '\0' || (dlen == 1 && dir[0] == '/'));
}

static int allowed (const char *src, size_t n, const char *allow)
{
    char path[1024];

    snprintf (path, sizeof (path), "%.*s", (int)n, src);
    if (strstr (path, "/../") || (n >= 3 && strcmp (path + n - 3, "/..") == 0))
        return 0;
    for (const char *a = allow; *a;) {
        size_t m = strcspn (a, ",");
        while (m > 0 && *a == ' ')
            a++, m--;
        if (m > 0 && *a == '/' && under (path, a, m))
            return 1;
        a += m + (a[m] == ',');
    }
    return 0;
}

int container_check (const struct launch_req *req, const char *helper,
                     const char *allow, const char *node, char *why, size_t len)
{
    const char *m = req->spec.res.container_mounts;

    if (!req->spec.res.container_image)
        return 0;
    if (!helper[0]) {
        snprintf (why, len,
                  "container_image: node %s has no OCI runtime (runc and umoci)", node);
        return -1;
    }
    /* Rootless runc is what keeps a container the owner's: for root it
     * would manage cgroups and devices with root's power, outside the
     * job's own cgroup. */
    if (req->uid == 0) {
        snprintf (why, len, "container_image: jobs of root do not run in containers");
        return -1;
    }
    for (const char *p = m ? m : ""; *p;) {
        size_t n = strcspn (p, "+"), src = strcspn (p, ":");
        if (!allowed (p, src < n ? src : n, allow)) {
            snprintf (why, len,
                      "container_mounts: %.*s is outside what node %s allows "
                      "(container_mount_allow)",
                      (int)(src < n ? src : n), p, node);
            return -1;
        }
        p += n + (p[n] == '+');
    }
    return 0;
}
