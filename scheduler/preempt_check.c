/* preempt_check.c - see preempt_check.h
 *
 * The words are PBS Pro's (its scheduler's preempt_order, the queues'
 * preempt_targets), as preempt.c says.
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/util.h"
#include "scheduler/preempt_check.h"

int preempt_check_order (const char *value, struct hpcq_error *err)
{
    size_t n = strlen (value);

    for (size_t i = 0; i < n; i++)
        if (!strchr ("SCRD", value[i]) || strchr (value + i + 1, value[i]))
            n = 0;
    if (n == 0 || n > 4)
        return errprintf_code (err, EINVAL,
                               "Illegal attribute or resource value: "
                               "preempt_order=%s (a sequence of S, C, R and D, each at "
                               "most once, such as SCR)",
                               value);
    return 0;
}

int preempt_check_targets (const char *value, struct hpcq_error *err)
{
    char *copy, *rest, *item;
    int rc = 0;

    if (!strcasecmp (value, "NONE"))
        return 0;
    copy = rest = xstrdup (value);
    while (rc == 0 && (item = strsep (&rest, ","))) {
        item += strspn (item, " ");
        if (strncasecmp (item, "queue=", 6) != 0 || !item[6] || strchr (item + 6, ' '))
            rc = errprintf_code (
                err, EINVAL,
                "Illegal attribute or resource value: "
                "preempt_targets=%s (queue=NAME[,queue=NAME...] or NONE)",
                value);
    }
    free (copy);
    return rc;
}
