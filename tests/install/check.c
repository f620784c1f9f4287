/* Built against an installed ankita with pkg-config, as C89, C99 and C11: every export of the
 * C table in README.md, each answer checked. Prints "N passed, N failed". */
#include <ankita.h>

#include <stdio.h>
#include <string.h>

static int passed = 0;
static int failed = 0;

/* Checks that `answer` contains every one of the NULL-terminated `needles`, then frees it. */
static void expect(const char *what, char *answer, const char *const *needles) {
    int ok = answer != NULL;
    const char *const *n;
    for (n = needles; ok && *n != NULL; ++n) {
        if (strstr(answer, *n) == NULL) ok = 0;
    }
    if (ok) {
        ++passed;
    } else {
        ++failed;
        fprintf(stderr, "FAIL %s: %s\n", what, answer ? answer : "(NULL)");
    }
    ankita_string_free(answer);
}

int main(void) {
    static const char png[] =
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAABqQAAAiYCAIAAAA+NVHk";
    /* An old answer too long for the 600-byte budget, between two questions (anchors); whole
     * groups only (fill: false), so it goes whole. */
    static const char request_format[] =
        "{\"messages\": [{\"role\": \"system\", \"content\": \"Answer briefly.\"},"
        " {\"role\": \"user\", \"content\": \"an old question\"},"
        " {\"role\": \"assistant\", \"content\": \"%s\"},"
        " {\"role\": \"user\", \"content\": \"the question\"}], \"max_bytes\": 600,"
        " \"fill\": false}";
    char filler[801];
    char request[sizeof request_format + sizeof filler];
    static const char *const trimmed[] = {"\"ok\":true", "\"dropped_messages\":[2]",
                                          "\"the question\"", NULL};
    static const char *const probed[] = {"\"format\":\"png\"", "\"width\":1700",
                                         "\"height\":2200", "\"tokens\":765",
                                         "\"budget_bytes\":3060", NULL};
    static const char *const probed_low[] = {"\"width\":1700", "\"tokens\":85", NULL};
    static const char *const estimated[] = {"\"ok\":true", "\"tokens\":765", NULL};
    static const char *const estimated_anthropic[] = {"\"ok\":true", "\"tokens\":", NULL};
    static const char *const sanitized[] = {"\"ok\":true", "\"repaired\":[{", NULL};
    static const char *const bad_json[] = {"\"ok\":false", "\"code\":\"invalid_json\"", NULL};
    static const char *const bad_arg[] = {"\"ok\":false", "\"code\":\"invalid_argument\"", NULL};
    static const char *const sanitized_n[] = {"\"ok\":true", "\"hi\"", NULL};
    char counted[36];
    static char long_url[100000];
    const char *version = ankita_version();

    memset(filler, 'w', sizeof filler - 1);
    filler[sizeof filler - 1] = '\0';
    sprintf(request, request_format, filler);

    expect("ankita_trim", ankita_trim(request), trimmed);
    expect("ankita_trim invalid JSON", ankita_trim("{"), bad_json);
    expect("ankita_trim NULL", ankita_trim(NULL), bad_arg);
    expect("ankita_sanitize",
           ankita_sanitize("[{\"role\": \"tool\", \"tool_call_id\": \"x\", \"content\": \"orphan\"},"
                           " {\"role\": \"user\", \"content\": \"hi\"}]"),
           sanitized);
    expect("ankita_probe_image", ankita_probe_image(png), probed);
    expect("ankita_probe_image_with",
           ankita_probe_image_with(png, "{\"model\": \"gpt-4o\", \"detail\": \"low\"}"), probed_low);
    expect("ankita_estimate_image_tokens", ankita_estimate_image_tokens(1700, 2200, NULL),
           estimated);
    expect("ankita_estimate_image_tokens with options",
           ankita_estimate_image_tokens(1700, 2200, "{\"image_profile\": \"anthropic\"}"),
           estimated_anthropic);
    expect("ankita_estimate_image_tokens zero side", ankita_estimate_image_tokens(0, 10, NULL),
           bad_arg);
    /* The length-taking variants: the text need not end with a NUL (a trailing 'x' here). */
    memcpy(counted, "[{\"role\": \"user\", \"content\": \"hi\"}]x", 36);
    expect("ankita_sanitize_n", ankita_sanitize_n(counted, 35), sanitized_n);
    expect("ankita_trim_n", ankita_trim_n(request, strlen(request)), trimmed);
    expect("ankita_probe_image_n", ankita_probe_image_n(png, strlen(png)), probed);
    ankita_string_free(NULL);

    /* The stand-in policy: a long data URL whose beginning reads as the whole image. */
    memset(long_url, 'A', sizeof long_url - 1);
    long_url[sizeof long_url - 1] = '\0';
    memcpy(long_url, png, strlen(png));
    if (ankita_stand_in_len(long_url, strlen(long_url), strlen(long_url)) ==
            strlen("data:image/png;base64,") + 16384 &&
        ankita_stand_in_len(png, strlen(png), strlen(png)) == 0) {
        ++passed;
    } else {
        ++failed;
        fprintf(stderr, "FAIL ankita_stand_in_len\n");
    }

    if (version != NULL && strcmp(version, ANKITA_TEST_VERSION) == 0) {
        ++passed;
    } else {
        ++failed;
        fprintf(stderr, "FAIL ankita_version: %s, expected %s\n", version ? version : "(NULL)",
                ANKITA_TEST_VERSION);
    }

    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
