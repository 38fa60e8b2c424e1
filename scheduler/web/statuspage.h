/* statuspage.h - the status page at / (scheduler/web/www/status.html, compiled
 * in): queues, nodes as a grid of their cores, GPUs and MIG instances,
 * running and waiting jobs, and the newest events, drawn in the browser
 * from the REST API (api.h) and drawn again every few seconds. */
#ifndef HPCQ_SCHEDULER_WEB_STATUSPAGE_H
#define HPCQ_SCHEDULER_WEB_STATUSPAGE_H

#include "scheduler/web/http.h"

int statuspage_register (struct http *h);

#endif
