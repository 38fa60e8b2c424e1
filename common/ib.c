/* ib.c - see ib.h */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ib.h"

/* HCA names are the kernel's ("mlx5_0", "hfi1_0", "rxe0"): a word. */
static int ib_name_ok (const char *s, size_t max)
{
    size_t len = strlen (s);

    return len > 0 && len < max
           && strspn (s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                         "0123456789_.-")
                  == len;
}

/* Printable ASCII only: pbsnodes prints these to terminals. */
static int ib_text_ok (const char *s)
{
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e)
            return 0;
    return 1;
}

/* The first line of DIR/NAME without its newline, printable only; -1 if
 * unreadable or too long for len. */
static int ib_read_line (const char *dir, const char *name, char *buf, size_t len)
{
    char path[4096];
    FILE *f;
    size_t n;

    if (snprintf (path, sizeof (path), "%s/%s", dir, name) >= (int)sizeof (path)
        || !(f = fopen (path, "re")))
        return -1;
    if (!fgets (buf, (int)len, f)) {
        fclose (f);
        return -1;
    }
    fclose (f);
    n = strcspn (buf, "\n");
    if (n == len - 1)
        return -1;
    buf[n] = '\0';
    return ib_text_ok (buf) ? 0 : -1;
}

/* state reads "4: ACTIVE": keep the name. */
static void ib_state_name (char *state)
{
    char *colon = strchr (state, ':');

    if (colon) {
        colon++;
        colon += strspn (colon, " ");
        memmove (state, colon, strlen (colon) + 1);
    }
}

/* The ports of one HCA, appended to out[*n ...]. */
static void ib_scan_hca (const char *hcadir, const char *hca, struct ib_port *out,
                         int max, int *n)
{
    char dir[4096];
    DIR *d;
    struct dirent *de;

    if (snprintf (dir, sizeof (dir), "%s/ports", hcadir) >= (int)sizeof (dir)
        || !(d = opendir (dir)))
        return;
    while (*n < max && (de = readdir (d))) {
        struct ib_port p = { .port = 0 };
        char pdir[4096], *end;
        long num = strtol (de->d_name, &end, 10);
        if (de->d_name[0] < '1' || de->d_name[0] > '9' || *end || num > 255
            || snprintf (pdir, sizeof (pdir), "%s/%s", dir, de->d_name)
                   >= (int)sizeof (pdir))
            continue;
        snprintf (p.hca, sizeof (p.hca), "%s", hca);
        p.port = (int)num;
        if (ib_read_line (pdir, "state", p.state, sizeof (p.state)) < 0)
            continue;
        ib_state_name (p.state);
        /* Kernels before 2.6.37 have no link_layer: InfiniBand then. */
        if (ib_read_line (pdir, "link_layer", p.link_layer, sizeof (p.link_layer)) < 0)
            snprintf (p.link_layer, sizeof (p.link_layer), "InfiniBand");
        if (ib_read_line (pdir, "rate", p.rate, sizeof (p.rate)) < 0)
            p.rate[0] = '\0';
        out[(*n)++] = p;
    }
    closedir (d);
}

static int ib_port_cmp (const void *a, const void *b)
{
    const struct ib_port *x = a, *y = b;
    int c = strcmp (x->hca, y->hca);

    return c ? c : x->port - y->port;
}

int ib_scan (const char *root, struct ib_port *out, int max)
{
    char dir[4096], hcadir[4096];
    DIR *d;
    struct dirent *de;
    int n = 0;

    if (snprintf (dir, sizeof (dir), "%s/class/infiniband", root) >= (int)sizeof (dir)
        || !(d = opendir (dir)))
        return 0;
    while (n < max && (de = readdir (d))) {
        if (de->d_name[0] == '.' || !ib_name_ok (de->d_name, sizeof (out->hca))
            || snprintf (hcadir, sizeof (hcadir), "%s/%s", dir, de->d_name)
                   >= (int)sizeof (hcadir))
            continue;
        ib_scan_hca (hcadir, de->d_name, out, max, &n);
    }
    closedir (d);
    qsort (out, n, sizeof (*out), ib_port_cmp);
    return n;
}

int ib_port_usable (const struct ib_port *p)
{
    return strcmp (p->state, "ACTIVE") == 0
           && strcmp (p->link_layer, "InfiniBand") == 0;
}

void ib_usable_list (const struct ib_port *p, int n, char *buf, size_t len)
{
    size_t pos = 0;

    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        int w;
        if (!ib_port_usable (&p[i]))
            continue;
        w = snprintf (buf + pos, len - pos, "%s%s:%d", pos ? "," : "", p[i].hca,
                      p[i].port);
        if (w < 0 || (size_t)w >= len - pos) {
            buf[pos] = '\0';
            return;
        }
        pos += (size_t)w;
    }
}

json_t *ib_to_json (const struct ib_port *p, int n)
{
    json_t *a = json_array ();

    for (int i = 0; a && i < n; i++)
        json_array_append_new (a, json_pack ("{s:s s:i s:s s:s s:s}", "hca", p[i].hca,
                                             "port", p[i].port, "state", p[i].state,
                                             "link_layer", p[i].link_layer, "rate",
                                             p[i].rate));
    return a;
}

int ib_from_json (json_t *a, struct ib_port *out, int max, int *n)
{
    json_t *v;
    size_t i;

    *n = 0;
    if (!a)
        return 0;
    if (!json_is_array (a) || json_array_size (a) > (size_t)max)
        return -1;
    json_array_foreach (a, i, v)
    {
        struct ib_port *p = &out[i];
        const char *hca, *state, *ll, *rate;
        if (json_unpack (v, "{s:s s:i s:s s:s s:s}", "hca", &hca, "port", &p->port,
                         "state", &state, "link_layer", &ll, "rate", &rate)
                < 0
            || !ib_name_ok (hca, sizeof (p->hca)) || p->port < 1 || p->port > 255
            || !ib_text_ok (state) || !ib_text_ok (ll) || !ib_text_ok (rate)
            || strlen (state) >= sizeof (p->state)
            || strlen (ll) >= sizeof (p->link_layer)
            || strlen (rate) >= sizeof (p->rate)) {
            *n = 0;
            return -1;
        }
        snprintf (p->hca, sizeof (p->hca), "%s", hca);
        snprintf (p->state, sizeof (p->state), "%s", state);
        snprintf (p->link_layer, sizeof (p->link_layer), "%s", ll);
        snprintf (p->rate, sizeof (p->rate), "%s", rate);
    }
    *n = (int)i;
    return 0;
}
