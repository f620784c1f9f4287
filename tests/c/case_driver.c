/* Reads one JSON request from stdin, calls ankita_trim or ankita_sanitize (argv[1]) through
 * the C ABI, prints the answer and releases it. tests/c/run_cases.py drives it over the shared
 * cases under valgrind. */
#include "ankita.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_all(FILE *in) {
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    if (buf == NULL) return NULL;
    for (;;) {
        if (len + 1 >= cap) {
            cap *= 2;
            char *grown = realloc(buf, cap);
            if (grown == NULL) {
                free(buf);
                return NULL;
            }
            buf = grown;
        }
        size_t n = fread(buf + len, 1, cap - len - 1, in);
        if (n == 0) break;
        len += n;
    }
    buf[len] = '\0';
    return buf;
}

int main(int argc, char **argv) {
    if (argc != 2 || (strcmp(argv[1], "trim") != 0 && strcmp(argv[1], "sanitize") != 0)) {
        fprintf(stderr, "usage: %s trim|sanitize < request.json\n", argv[0]);
        return 2;
    }
    char *request = read_all(stdin);
    if (request == NULL) {
        fprintf(stderr, "out of memory\n");
        return 2;
    }
    char *answer = strcmp(argv[1], "trim") == 0 ? ankita_trim(request) : ankita_sanitize(request);
    free(request);
    if (answer == NULL) {
        fprintf(stderr, "NULL answer\n");
        return 1;
    }
    fputs(answer, stdout);
    ankita_string_free(answer);
    return 0;
}
