/* test_spotnotice - the providers' notice documents: AWS instance-action,
 * GCP preempted, Azure scheduled events; nothing planned, a notice, and
 * answers that are no such document. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <string.h>

#include "common/spotnotice.h"
#include "common/test/tap.h"

#define NOW 1505722800 /* 2017-09-18T08:20:00Z */

static int parse (enum spotnotice_provider p, long status, const char *body,
                  const char *resource, struct spotnotice *n, struct hpcq_error *err)
{
    return spotnotice_parse (p, status, body, body ? strlen (body) : 0, resource, NOW,
                             n, err);
}

static void test_aws (void)
{
    struct spotnotice n;
    struct hpcq_error err;

    ok (parse (SPOTNOTICE_AWS, 404, "<html>Not Found</html>", NULL, &n, &err) == 0,
        "aws: 404 is no notice");
    ok (parse (SPOTNOTICE_AWS, 200,
               "{\"action\": \"terminate\", \"time\": "
               "\"2017-09-18T08:22:00Z\"}",
               NULL, &n, &err)
                == 1
            && !strcmp (n.action, "terminate") && n.deadline == NOW + 120,
        "aws: terminate two minutes ahead");
    ok (parse (SPOTNOTICE_AWS, 200,
               "{\"action\": \"stop\", \"time\": "
               "\"2017-09-18T08:20:30Z\"}",
               NULL, &n, &err)
                == 1
            && n.deadline == NOW + 30,
        "aws: stop");
    ok (parse (SPOTNOTICE_AWS, 200, "garbage", NULL, &n, &err) < 0
            && strstr (err.text, "instance-action is not a JSON object"),
        "aws garbage: %s", err.text);
    ok (parse (SPOTNOTICE_AWS, 200,
               "{\"action\": \"reboot\", \"time\": "
               "\"2017-09-18T08:22:00Z\"}",
               NULL, &n, &err)
                < 0
            && strstr (err.text, "unknown action 'reboot'"),
        "aws: unknown action");
    ok (parse (SPOTNOTICE_AWS, 200, "{\"action\": \"terminate\", \"time\": \"soon\"}",
               NULL, &n, &err)
                < 0
            && strstr (err.text, "bad time 'soon'"),
        "aws: bad time");
    ok (parse (SPOTNOTICE_AWS, 200, "{\"action\": \"terminate\"}", NULL, &n, &err) < 0,
        "aws: no time");
    ok (parse (SPOTNOTICE_AWS, 500, "", NULL, &n, &err) < 0
            && strstr (err.text, "unexpected HTTP status 500"),
        "aws: 500");
    ok (parse (SPOTNOTICE_AWS, 200, NULL, NULL, &n, &err) < 0, "aws: empty body");
}

static void test_gcp (void)
{
    struct spotnotice n;
    struct hpcq_error err;

    ok (parse (SPOTNOTICE_GCP, 200, "FALSE", NULL, &n, &err) == 0, "gcp: FALSE");
    ok (parse (SPOTNOTICE_GCP, 200, "TRUE\n", NULL, &n, &err) == 1
            && !strcmp (n.action, "preempt") && n.deadline == NOW + 30,
        "gcp: TRUE, 30 s left");
    ok (parse (SPOTNOTICE_GCP, 200, "true", NULL, &n, &err) < 0
            && strstr (err.text, "expected TRUE or FALSE"),
        "gcp: anything else: %s", err.text);
    ok (parse (SPOTNOTICE_GCP, 403, "", NULL, &n, &err) < 0, "gcp: 403");
}

static void test_azure (void)
{
    struct spotnotice n;
    struct hpcq_error err;
    const char *none = "{\"DocumentIncarnation\": 1, \"Events\": []}";
    const char *pre =
        "{\"DocumentIncarnation\": 2, \"Events\": [{\"EventId\": \"A\", "
        "\"EventType\": \"Freeze\", \"Resources\": [\"vm1\"], \"NotBefore\": "
        "\"\"}, {\"EventId\": \"B\", \"EventType\": \"Preempt\", "
        "\"ResourceType\": \"VirtualMachine\", \"Resources\": [\"vm1\"], "
        "\"EventStatus\": \"Scheduled\", \"NotBefore\": "
        "\"Mon, 18 Sep 2017 08:20:45 GMT\"}]}";

    ok (parse (SPOTNOTICE_AZURE, 200, none, "vm1", &n, &err) == 0, "azure: no events");
    ok (parse (SPOTNOTICE_AZURE, 200, pre, "vm1", &n, &err) == 1
            && !strcmp (n.action, "preempt") && n.deadline == NOW + 45,
        "azure: Preempt at NotBefore");
    ok (parse (SPOTNOTICE_AZURE, 200, pre, "vm2", &n, &err) == 0,
        "azure: another VM's Preempt is not ours");
    ok (parse (SPOTNOTICE_AZURE, 200, pre, NULL, &n, &err) == 1, "azure: any VM");
    ok (parse (SPOTNOTICE_AZURE, 200, "{\"Events\": 3}", "vm1", &n, &err) < 0
            && strstr (err.text, "lacks an \"Events\" array"),
        "azure: Events not an array");
    ok (parse (SPOTNOTICE_AZURE, 200,
               "{\"Events\": [{\"EventType\": \"Preempt\", "
               "\"NotBefore\": \"tomorrow\"}]}",
               NULL, &n, &err)
                < 0
            && strstr (err.text, "bad NotBefore"),
        "azure: bad NotBefore");
    ok (parse (SPOTNOTICE_AZURE, 200,
               "{\"Events\": [{\"EventType\": \"Preempt\", "
               "\"NotBefore\": \"\"}]}",
               NULL, &n, &err)
                == 1
            && n.deadline == NOW,
        "azure: started already: now");
    ok (parse (SPOTNOTICE_AZURE, 200, "[1, 2", NULL, &n, &err) < 0, "azure: garbage");
}

static void test_one_line (void)
{
    struct spotnotice n;
    struct hpcq_error err;

    ok (parse (SPOTNOTICE_AWS, 200, "{\"action\": \"x\\nFAKE LINE\", \"time\": \"\"}",
               NULL, &n, &err)
                < 0
            && !strchr (err.text, '\n')
            && strstr (err.text, "unknown action 'x?FAKE LINE'"),
        "a newline sent by the service does not reach the log: %s", err.text);
    ok (parse (SPOTNOTICE_AZURE, 200, "{\"Events\": \"\\u0001\n", NULL, &n, &err) < 0
            && !strchr (err.text, '\n'),
        "nor in jansson's complaint: %s", err.text);
}

static void test_token (void)
{
    char tok[16];
    struct hpcq_error err;

    ok (spotnotice_token (200, "AQAEAabc==", 10, tok, sizeof (tok), &err) == 0
            && !strcmp (tok, "AQAEAabc=="),
        "token: taken as it is");
    ok (spotnotice_token (200, "abc\r\nX-Evil: 1", 15, tok, sizeof (tok), &err) < 0
            && tok[0] == '\0' && strstr (err.text, "byte 3 is 0x0d"),
        "token: a CR would end the header: %s", err.text);
    ok (spotnotice_token (200, "a\0b", 3, tok, sizeof (tok), &err) < 0,
        "token: a NUL is refused");
    ok (spotnotice_token (200, "0123456789abcdef", 16, tok, sizeof (tok), &err) < 0,
        "token: too long for its buffer");
    ok (spotnotice_token (403, "abc", 3, tok, sizeof (tok), &err) < 0
            && strstr (err.text, "HTTP status 403"),
        "token: 403");
    ok (spotnotice_token (200, "", 0, tok, sizeof (tok), &err) < 0, "token: empty");
}

int main (void)
{
    plan (NO_PLAN);
    ok (spotnotice_provider ("aws") == SPOTNOTICE_AWS
            && spotnotice_provider ("gcp") == 1 && spotnotice_provider ("azure") == 2
            && spotnotice_provider ("oci") < 0,
        "provider names");
    test_aws ();
    test_gcp ();
    test_azure ();
    test_token ();
    test_one_line ();
    return done_testing ();
}
