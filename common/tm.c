/* tm.c - see tm.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nettle/base64.h>

#include "common/tm.h"
#include "common/util.h"

json_t *tm_data_json (const void *buf, size_t len)
{
    char *text = malloc (BASE64_ENCODE_RAW_LENGTH (len) + 1);
    json_t *s;

    if (!text)
        return NULL;
    base64_encode_raw (text, len, buf);
    text[BASE64_ENCODE_RAW_LENGTH (len)] = '\0';
    s = json_string (text);
    free (text);
    return s;
}

ssize_t tm_read_window (int fd, char *buf, size_t in_flight)
{
    size_t room = in_flight < TM_WINDOW ? TM_WINDOW - in_flight : 0;
    ssize_t n = read (fd, buf, room < TM_CHUNK ? room : TM_CHUNK);

    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return -1;
    return n < 0 ? 0 : n;
}

int tm_data_decode (json_t *v, char **buf, size_t *len)
{
    struct base64_decode_ctx ctx;
    const char *text = json_string_value (v);
    size_t tlen, out = 0;
    char *b;

    *buf = NULL;
    *len = 0;
    if (!text) {
        errno = EPROTO;
        return -1;
    }
    tlen = json_string_length (v);
    if (!(b = malloc (BASE64_DECODE_LENGTH (tlen) + 1)))
        return -1;
    base64_decode_init (&ctx);
    out = BASE64_DECODE_LENGTH (tlen);
    if (!base64_decode_update (&ctx, &out, (uint8_t *)b, tlen, text)
        || !base64_decode_final (&ctx)) {
        free (b);
        errno = EPROTO;
        return -1;
    }
    b[out] = '\0';
    *buf = b;
    *len = out;
    return 0;
}

int tm_status_from_wait (int wstatus)
{
    if (WIFSIGNALED (wstatus))
        return TM_STATUS_SIGNALED + WTERMSIG (wstatus);
    return WEXITSTATUS (wstatus);
}

int tm_status_to_exit (int status)
{
    if (status >= TM_STATUS_SIGNALED)
        return 128 + (status - TM_STATUS_SIGNALED) % 128;
    if (status < 0 || status > 255)
        return 255;
    return status;
}

char **tm_argv_decode (json_t *arr, int *argc)
{
    size_t n = json_array_size (arr), total = 0, i;
    char **argv;
    json_t *v;

    if (!json_is_array (arr) || n == 0 || n > TM_MAX_ARGV) {
        errno = EPROTO;
        return NULL;
    }
    json_array_foreach (arr, i, v)
    {
        if (!json_is_string (v)
            || (total += json_string_length (v) + 1) > TM_MAX_ARGV_BYTES
            || strlen (json_string_value (v)) != json_string_length (v)) {
            errno = EPROTO;
            return NULL;
        }
    }
    argv = xzalloc ((n + 1) * sizeof (*argv));
    json_array_foreach (arr, i, v) argv[i] = xstrdup (json_string_value (v));
    *argc = (int)n;
    return argv;
}

void tm_argv_free (char **argv)
{
    if (!argv)
        return;
    for (int i = 0; argv[i]; i++)
        free (argv[i]);
    free (argv);
}
