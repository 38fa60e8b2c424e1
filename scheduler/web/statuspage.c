/* statuspage.c - see statuspage.h */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <microhttpd.h>
#include <string.h>

#include "scheduler/web/statuspage.h"
#include "scheduler/web/www/status_html.h" /* generated: statuspage_html[] */

static int statuspage_get (struct http_req *r, void *arg)
{
    /* The page is static: MHD sends it from the constant. */
    return http_reply_static (r, MHD_HTTP_OK, "text/html; charset=utf-8",
                              statuspage_html, strlen (statuspage_html));
}

int statuspage_register (struct http *h)
{
    if (!h)
        return 0;
    return http_route (h, "/", 0, statuspage_get, NULL) < 0
                   || http_route (h, "/index.html", 0, statuspage_get, NULL) < 0
               ? -1
               : 0;
}
