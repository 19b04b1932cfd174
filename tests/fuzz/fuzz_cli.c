/* libFuzzer target: the command line.  The input, split at NUL bytes and
 * newlines, is the argument list of `fricon ...`, run in a scratch folder;
 * arguments holding '/' are dropped so nothing outside it is touched. */
#include "cli.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_ARGS 12

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        char dir[64];
        snprintf(dir, sizeof dir, "/tmp/fricon-fuzz-cli-%d", (int)getpid());
        mkdir(dir, 0700);
        if (chdir(dir) != 0) abort();
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) abort();
        ready = 1;
    }
    char *buf = malloc(size + 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "fricon";
    char *s = buf, *end = buf + size;
    while (s < end && argc < MAX_ARGS + 1) {
        char *t = s;
        while (t < end && *t && *t != '\n') t++;
        *t = '\0';
        if (!strchr(s, '/')) argv[argc++] = s;
        s = t + 1;
    }
    argv[argc] = NULL;
    /* keep solves short: a solve gets a small iteration budget appended */
    char *extra[] = {"--max-iter", "50", "--time-limit", "0.5"};
    char *full[MAX_ARGS + 6];
    int n = 0;
    for (int i = 0; i < argc; i++) full[n++] = argv[i];
    if (argc > 1 && !strcmp(argv[1], "solve"))
        for (int i = 0; i < 4; i++) full[n++] = extra[i];
    full[n] = NULL;
    fricon_main(n, full);
    fflush(stdout);
    free(buf);
    return 0;
}
