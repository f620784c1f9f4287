/* Reads one JSON request from stdin, calls ankita_trim or ankita_sanitize (argv[1]) through
 * the C ABI, prints the answer and releases it. With --lines, stdin holds one call a line,
 * "trim REQUEST" or "sanitize REQUEST", and each answer is printed on a line of its own:
 * tests/c/run_cases.py drives every shared case that way in one process under valgrind. */
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

/* One call a line: "trim REQUEST" or "sanitize REQUEST"; one answer a line. */
static int run_lines(char *input) {
    char *line = input;
    while (*line != '\0') {
        char *end = strchr(line, '\n');
        if (end != NULL) *end = '\0';
        char *request = strchr(line, ' ');
        if (request == NULL) {
            fprintf(stderr, "a line without a request: %.40s\n", line);
            return 2;
        }
        *request++ = '\0';
        char *answer;
        if (strcmp(line, "trim") == 0) {
            answer = ankita_trim(request);
        } else if (strcmp(line, "sanitize") == 0) {
            answer = ankita_sanitize(request);
        } else {
            fprintf(stderr, "unknown function %s\n", line);
            return 2;
        }
        if (answer == NULL) {
            fprintf(stderr, "NULL answer\n");
            return 1;
        }
        fputs(answer, stdout);
        fputc('\n', stdout);
        ankita_string_free(answer);
        if (end == NULL) break;
        line = end + 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    int lines = argc == 2 && strcmp(argv[1], "--lines") == 0;
    if (argc != 2 || (!lines && strcmp(argv[1], "trim") != 0 && strcmp(argv[1], "sanitize") != 0)) {
        fprintf(stderr, "usage: %s trim|sanitize < request.json\n       %s --lines < calls\n", argv[0],
                argv[0]);
        return 2;
    }
    char *request = read_all(stdin);
    if (request == NULL) {
        fprintf(stderr, "out of memory\n");
        return 2;
    }
    if (lines) {
        int status = run_lines(request);
        free(request);
        return status;
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
