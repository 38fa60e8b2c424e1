/* test_spool.c - the spool directory and the job files in it: its mode,
 * refusing a symlinked or foreign spool, and files that replace whatever
 * was planted under their name (a symlink, a hard link) without touching
 * what it points to. */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/test/tap.h"
#include "common/util.h"
#include "worker/spool.h"

static char tmpdir[] = "/tmp/test_spool.XXXXXX";

static void skip_test (const char *what, const char *why)
{
    printf ("ok %d - %s # SKIP %s\n", ++tap_count, what, why);
}

static void path (char *buf, size_t len, const char *name)
{
    snprintf (buf, len, "%s/%s", tmpdir, name);
}

static int mode_of (const char *p)
{
    struct stat st;
    return lstat (p, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

static void write_text (const char *p, const char *text)
{
    FILE *f = fopen (p, "w");
    if (f) {
        fputs (text, f);
        fclose (f);
    }
}

static int count_cb (struct spool *sp, const char *name, void *arg)
{
    return strcmp (name, "1.1.session") == 0;
}

static void test_open (void)
{
    struct hpcq_error err = { "" };
    char dir[4200], link[4200];
    struct spool *sp;

    path (dir, sizeof (dir), "a/b/spool");
    sp = spool_open (dir, &err);
    ok (sp != NULL, "a spool and its parents are created: %s", sp ? "" : err.text);
    ok (mode_of (dir) == (geteuid () == 0 ? 0711 : 0700), "mode %04o (%s worker)",
        mode_of (dir), geteuid () == 0 ? "root" : "non-root");
    path (link, sizeof (link), "a/b");
    ok (mode_of (link) == 0755, "a parent is 0755 (users pass through)");
    spool_close (sp);
    (void)chmod (dir, 0777);
    sp = spool_open (dir, &err);
    ok (sp && mode_of (dir) == (geteuid () == 0 ? 0711 : 0700),
        "an existing spool gets its mode back");
    spool_close (sp);

    path (link, sizeof (link), "spool-link");
    ok (symlink (dir, link) == 0, "a symlink to a spool");
    ok (!spool_open (link, &err) && strstr (err.text, "symlink"),
        "a symlinked spool is refused: %s", err.text);
    ok (!spool_open ("rel/spool", &err) && strstr (err.text, "absolute"),
        "a relative spool is refused: %s", err.text);
    if (geteuid () == 0 && getpwnam ("nobody")) {
        path (dir, sizeof (dir), "foreign");
        ok (mkdir (dir, 0700) == 0 && chown (dir, getpwnam ("nobody")->pw_uid, 0) == 0,
            "a spool owned by someone else");
        ok (!spool_open (dir, &err) && strstr (err.text, "not by the worker"),
            "is refused: %s", err.text);
    } else
        skip_test ("a spool owned by someone else is refused", "not root");
}

static void test_files (void)
{
    struct hpcq_error err = { "" };
    char dir[4200], victim[4200], hard[4200], f[4400], name[64], *text;
    struct passwd *pw = getpwnam ("nobody");
    uid_t uid = geteuid () == 0 && pw ? pw->pw_uid : (uid_t)-1;
    gid_t gid = geteuid () == 0 && pw ? pw->pw_gid : (gid_t)-1;
    struct spool *sp;
    struct stat st;

    path (dir, sizeof (dir), "a/b/spool");
    path (victim, sizeof (victim), "victim");
    path (hard, sizeof (hard), "a/b/spool/5.1.nodes");
    write_text (victim, "precious\n");
    (void)chmod (victim, 0644);
    sp = spool_open (dir, &err);
    spool_name (name, sizeof (name), 5, 1, "SC");
    is (name, "5.1.SC", "a job attempt's file name");
    snprintf (f, sizeof (f), "%s/%s", dir, name);
    ok (symlink (victim, f) == 0, "a symlink planted under the script's name");
    ok (link (victim, hard) == 0, "a hard link planted under the node file's name");
    ok (spool_write (sp, "5.1.SC", "#!/bin/sh\n", 0700, uid, gid, &err) == 0
            && spool_write (sp, "5.1.nodes", "n1\n", 0600, uid, gid, &err) == 0,
        "the files are written: %s", err.text);
    text = util_read_file (victim, 100, NULL);
    is (text, "precious\n", "what the links pointed to is untouched");
    free (text);
    ok (stat (victim, &st) == 0 && st.st_uid == geteuid ()
            && (st.st_mode & 0777) == 0644 && st.st_nlink == 1,
        "and keeps its owner and mode; the hard link is gone");
    ok (lstat (f, &st) == 0 && S_ISREG (st.st_mode) && (st.st_mode & 07777) == 0700
            && (uid == (uid_t)-1 || st.st_uid == uid),
        "the script is a new regular file, 0700%s",
        uid == (uid_t)-1 ? "" : ", the user's");
    text = spool_read (sp, "5.1.SC", 100);
    ok (uid != (uid_t)-1 ? text == NULL : text && !strcmp (text, "#!/bin/sh\n"),
        "spool_read reads only the worker's own files");
    free (text);
    snprintf (f, sizeof (f), "%s/1.1.session", dir);
    ok (symlink (victim, f) == 0 && spool_read (sp, "1.1.session", 100) == NULL,
        "spool_read does not follow a symlink");
    ok (spool_foreach (sp, ".session", count_cb, NULL) == 1, "spool_foreach finds it");
    spool_remove (sp, "1.1.session");
    ok (lstat (f, &st) < 0 && stat (victim, &st) == 0,
        "spool_remove removes the link only");
    ok (spool_write (sp, "sub/x", "x", 0600, (uid_t)-1, (gid_t)-1, &err) < 0,
        "a name with a missing folder fails: %s", err.text);
    spool_close (sp);
}

int main (void)
{
    char cmd[4300];

    plan (NO_PLAN);
    if (!mkdtemp (tmpdir)) {
        ok (0, "mkdtemp: %s", strerror (errno));
        return done_testing ();
    }
    test_open ();
    test_files ();
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", tmpdir);
    (void)!system (cmd);
    return done_testing ();
}
