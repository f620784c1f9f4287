/* C ABI tests: built with -Wall -Wextra -Werror against include/ankita.h and run under valgrind. */
#include "ankita.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: check failed: %s\n  ", __FILE__,       \
                    __LINE__, #cond);                                      \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            failures++;                                                    \
        }                                                                  \
    } while (0)

/* Calls fn(arg), checks the answer equals `expected` exactly, and frees it. */
static void expect_answer(char *(*fn)(const char *), const char *arg, const char *expected,
                          const char *what) {
    char *got = fn(arg);
    CHECK(got != NULL, "%s: NULL answer", what);
    if (got != NULL) {
        CHECK(strcmp(got, expected) == 0, "%s:\n  got      %s\n  expected %s", what, got, expected);
    }
    ankita_string_free(got);
}

static char *base64_encode(const unsigned char *data, size_t len) {
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t out_len = 4 * ((len + 2) / 3);
    char *out = malloc(out_len + 1);
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        unsigned long v = (unsigned long)data[i] << 16;
        if (i + 1 < len) v |= (unsigned long)data[i + 1] << 8;
        if (i + 2 < len) v |= data[i + 2];
        out[o++] = alphabet[(v >> 18) & 63];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < len ? alphabet[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

/* A 1700x2200 PNG header followed by 100,000 filler bytes, as a data URL. */
static char *padded_png_data_url(void) {
    size_t len = 33 + 100000;
    unsigned char *png = calloc(len, 1);
    const unsigned char head[] = {0x89, 'P',  'N',  'G',  '\r', '\n', 0x1A, '\n', 0, 0, 0,
                                  13,   'I',  'H',  'D',  'R',  0,    0,    0x06, 0xA4,
                                  0,    0,    0x08, 0x98, 8,    2,    0,    0,    0};
    memcpy(png, head, sizeof head);
    char *b64 = base64_encode(png, len);
    free(png);
    const char *prefix = "data:image/png;base64,";
    char *url = malloc(strlen(prefix) + strlen(b64) + 1);
    strcpy(url, prefix);
    strcat(url, b64);
    free(b64);
    return url;
}

static void test_probe(void) {
    char *url = padded_png_data_url();
    CHECK(strlen(url) > 100000, "data URL is %zu bytes", strlen(url));
    expect_answer(ankita_probe_image, url,
                  "{\"ok\":true,\"format\":\"png\",\"width\":1700,\"height\":2200,"
                  "\"tokens\":765,\"budget_bytes\":3060}",
                  "padded 1700x2200 PNG");
    free(url);

    /* Bare base64 of a 1x1 GIF89a. */
    expect_answer(ankita_probe_image, "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==",
                  "{\"ok\":true,\"format\":\"gif\",\"width\":1,\"height\":1,"
                  "\"tokens\":765,\"budget_bytes\":3060}",
                  "bare base64 GIF");

    /* Undecodable: costs its own length (here 26 bytes). */
    expect_answer(ankita_probe_image, "data:image/bmp;base64,Qk0=",
                  "{\"ok\":true,\"format\":null,\"width\":null,\"height\":null,"
                  "\"tokens\":null,\"budget_bytes\":26}",
                  "BMP");
}

static void test_bad_arguments(void) {
    expect_answer(ankita_probe_image, NULL,
                  "{\"ok\":false,\"error\":{\"code\":\"invalid_argument\","
                  "\"message\":\"image is NULL\"}}",
                  "NULL image");
    const char bad_utf8[] = {'d', 'a', 't', 'a', ':', (char)0xC3, (char)0x28, 0};
    expect_answer(ankita_probe_image, bad_utf8,
                  "{\"ok\":false,\"error\":{\"code\":\"invalid_argument\","
                  "\"message\":\"image is not valid UTF-8 (invalid byte at offset 5)\"}}",
                  "invalid UTF-8");
    ankita_string_free(NULL);
}

static void test_trim_and_sanitize(void) {
    expect_answer(ankita_trim, NULL,
                  "{\"ok\":false,\"error\":{\"code\":\"invalid_argument\","
                  "\"message\":\"request_json is NULL\"}}",
                  "NULL request");
    expect_answer(ankita_sanitize, NULL,
                  "{\"ok\":false,\"error\":{\"code\":\"invalid_argument\","
                  "\"message\":\"messages_json is NULL\"}}",
                  "NULL messages");
    expect_answer(ankita_trim, "{\"messages\": [",
                  "{\"ok\":false,\"error\":{\"code\":\"invalid_json\","
                  "\"message\":\"invalid JSON: EOF while parsing a list at line 1 column 14\"}}",
                  "truncated JSON");
    expect_answer(ankita_trim,
                  "{\"messages\":[{\"role\":\"tool\",\"tool_call_id\":\"x\",\"content\":\"o\"},"
                  "{\"role\":\"user\",\"content\":\"hi\"}],\"max_bytes\":4096}",
                  "{\"ok\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                  "\"report\":{\"format\":\"openai\",\"unit\":\"bytes\",\"tokenizer\":\"bytes\","
                  "\"exact\":false,\"budget_bytes\":4096,\"budget_tokens\":1024,\"cost_bytes\":17,"
                  "\"cost_tokens\":5,\"input_messages\":2,\"output_messages\":1,"
                  "\"dropped_messages\":[],\"truncated\":[],\"dropped_images\":[],"
                  "\"dropped_files\":[],\"dropped_attachments\":[],\"limited_by\":null,\"refilled\":[],"
                  "\"cleared_tool_results\":[],\"warnings\":[],\"repaired\":[{\"index\":0,"
                  "\"action\":\"orphan_tool_removed\",\"reason\":\"tool message does not answer "
                  "a tool call of the assistant message right before it\"}]}}",
                  "orphan removed");
}

static void test_count_tokens(void) {
    /* 3 framing tokens + "user" (1) + "Hello, world" (3) in o200k_base. */
    expect_answer(ankita_count_tokens,
                  "{\"messages\":[{\"role\":\"user\",\"content\":\"Hello, world\"}],"
                  "\"model\":\"gpt-4o\"}",
                  "{\"ok\":true,\"unit\":\"tokens\",\"tokenizer\":\"o200k_base\",\"exact\":true,"
                  "\"total\":7,\"messages\":[7]}",
                  "count in gpt-4o tokens");
    const char request[] = "{\"messages\":[],\"tokenizer\":\"p50k_base\"}";
    char *r = ankita_count_tokens_n(request, sizeof request - 1);
    CHECK(r && strstr(r, "\"path\":\"tokenizer\"") != NULL, "%s", r);
    ankita_string_free(r);
    expect_answer(ankita_count_tokens, NULL,
                  "{\"ok\":false,\"error\":{\"code\":\"invalid_argument\","
                  "\"message\":\"request_json is NULL\"}}",
                  "NULL count request");
}

static void test_estimate(void) {
    char *r = ankita_estimate_image_tokens(1700, 2200, NULL);
    CHECK(r && strcmp(r, "{\"ok\":true,\"tokens\":765,\"budget_bytes\":3060}") == 0, "%s", r);
    ankita_string_free(r);
    r = ankita_estimate_image_tokens(0, 10, NULL);
    CHECK(r && strstr(r, "\"code\":\"invalid_argument\"") != NULL, "%s", r);
    ankita_string_free(r);
    r = ankita_estimate_image_tokens(10, 10, "{\"image_profile\": \"nope\"}");
    CHECK(r && strstr(r, "\"code\":\"invalid_request\"") != NULL, "%s", r);
    ankita_string_free(r);
}

static void test_probe_with_profile(void) {
    /* Bare base64 of a 1x1 GIF priced for gpt-4o-mini: 2833 + 5667 for one tile. */
    const char *gif = "R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==";
    char *r = ankita_probe_image_with(gif, "{\"model\": \"gpt-4o-mini\"}");
    CHECK(r && strcmp(r, "{\"ok\":true,\"format\":\"gif\",\"width\":1,\"height\":1,"
                         "\"tokens\":8500,\"budget_bytes\":34000}") == 0,
          "%s", r);
    ankita_string_free(r);
    r = ankita_probe_image_with(gif, "{\"image_profile\": \"openai\", \"detail\": \"low\"}");
    CHECK(r && strstr(r, "\"tokens\":85,") != NULL, "%s", r);
    ankita_string_free(r);
    r = ankita_probe_image_with(gif, NULL);
    CHECK(r && strstr(r, "\"tokens\":765,") != NULL, "%s", r);
    ankita_string_free(r);
    r = ankita_probe_image_with(gif, "{\"model\": \"no-such-model\", \"strict_model\": true}");
    CHECK(r && strstr(r, "\"code\":\"invalid_request\"") != NULL && strstr(r, "\"path\":\"model\""),
          "%s", r);
    ankita_string_free(r);
    /* Without strict_model, the default profile and a warning saying so. */
    r = ankita_probe_image_with(gif, "{\"model\": \"no-such-model\"}");
    CHECK(r && strstr(r, "\"tokens\":765,") != NULL && strstr(r, "\"code\":\"unknown_model\"") != NULL,
          "%s", r);
    ankita_string_free(r);
    r = ankita_probe_image_with(NULL, NULL);
    CHECK(r && strstr(r, "\"message\":\"image is NULL\"") != NULL, "%s", r);
    ankita_string_free(r);
}

/* A fixture file's bytes as base64 (the tests run from the repository's root). */
static char *fixture_base64(const char *path) {
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "cannot open %s", path);
    if (f == NULL) return NULL;
    unsigned char *data = malloc(1 << 20);
    size_t len = fread(data, 1, 1 << 20, f);
    fclose(f);
    char *b64 = base64_encode(data, len);
    free(data);
    return b64;
}

static void test_probe_file(void) {
    /* A 10-page PDF with object streams: 258 tokens a page for Gemini 2.5. */
    char *pdf = fixture_base64("tests/fixtures/files/pdf-10-objstm.pdf");
    if (pdf == NULL) return;
    char *r = ankita_probe_file(pdf, "{\"model\": \"gemini-2.5-flash\"}");
    CHECK(r && strcmp(r, "{\"ok\":true,\"kind\":\"document\",\"format\":\"pdf\",\"pages\":10,"
                         "\"page_width\":612,\"page_height\":792,\"seconds\":null,\"millis\":null,"
                         "\"tokens\":2580,\"budget_bytes\":10320,\"exact\":true}") == 0,
          "%s", r);
    ankita_string_free(r);
    free(pdf);
    char *mp3 = fixture_base64("tests/fixtures/files/mp3-30s-cbr.mp3");
    if (mp3 == NULL) return;
    r = ankita_probe_file(mp3, NULL);
    CHECK(r && strstr(r, "\"kind\":\"audio\",\"format\":\"mp3\"") != NULL, "%s", r);
    ankita_string_free(r);
    free(mp3);
    r = ankita_probe_file("aGVsbG8=", NULL);
    CHECK(r && strstr(r, "\"kind\":null") && strstr(r, "\"error\":\"unknown document or audio format\""),
          "%s", r);
    ankita_string_free(r);
    r = ankita_probe_file(NULL, NULL);
    CHECK(r && strstr(r, "\"message\":\"file is NULL\"") != NULL, "%s", r);
    ankita_string_free(r);
}

static void test_version(void) {
    const char *v = ankita_version();
    CHECK(v != NULL && strlen(v) >= 5 && strchr(v, '.') != NULL, "version %s", v ? v : "(null)");
}

static void test_formats(void) {
    char *r = ankita_formats();
    CHECK(r && strncmp(r, "{\"ok\":true,\"default\":\"openai\",\"formats\":[", 41) == 0, "%s", r);
    CHECK(r && strstr(r, "{\"name\":\"anthropic\",\"takes_system\":true,\"merges_turns\":true,") != NULL,
          "%s", r);
    CHECK(r && strstr(r, "\"name\":\"openai\",\"takes_system\":false,\"merges_turns\":false,"
                         "\"user_turn_first\":false,\"rebuilds_messages\":false,") != NULL,
          "%s", r);
    CHECK(r && strstr(r, "\"text_key\":\"parts\",\"text_parts\":true") != NULL, "%s", r);
    CHECK(r && strstr(r, "\"name\":\"ai-sdk\"") != NULL, "%s", r);
    ankita_string_free(r);
    r = ankita_options();
    CHECK(r && strncmp(r, "{\"ok\":true,\"options\":[{\"name\":\"max_bytes\",\"type\":\"integer\",", 59) == 0,
          "%s", r);
    CHECK(r && strstr(r, "{\"name\":\"cache_breakpoint\",\"type\":\"boolean\",") != NULL, "%s", r);
    ankita_string_free(r);
}

/* Takes a library string, checks it equals `expected`, and frees it. */
static void expect_string(char *got, const char *expected, const char *what) {
    CHECK(got != NULL && strcmp(got, expected) == 0, "%s:\n  got      %s\n  expected %s", what,
          got ? got : "(null)", expected);
    ankita_string_free(got);
}

static void test_session(void) {
    char *error = NULL;
    AnkitaSession *bad = ankita_session_new("{\"max_byts\": 10}", &error);
    CHECK(bad == NULL, "a session with an unknown option");
    CHECK(error != NULL && strstr(error, "\"code\":\"invalid_request\"") != NULL, "%s",
          error ? error : "(null)");
    ankita_string_free(error);
    CHECK(ankita_session_new(NULL, NULL) == NULL, "NULL options");

    /* Opted out of cache-stable trimming (a session's default): the stateless answers. */
    AnkitaSession *s = ankita_session_new("{\"max_bytes\": 600, \"trim_to\": null}", &error);
    CHECK(s != NULL && error == NULL, "session_new");
    expect_string(ankita_session_append(s, "[{\"role\":\"system\",\"content\":\"Be brief.\"}]"),
                  "{\"ok\":true,\"messages\":1}", "append");
    const char *turn = "[{\"role\":\"user\",\"content\":\"Lorem ipsum dolor sit amet, consectetur "
                       "adipiscing elit, sed do eiusmod tempor incididunt ut labore.\"},"
                       "{\"role\":\"assistant\",\"content\":\"Ut enim ad minim veniam, quis nostrud "
                       "exercitation ullamco laboris nisi ut aliquip ex ea commodo.\"}]";
    for (int i = 0; i < 8; i++) {
        char *r = ankita_session_append_n(s, turn, strlen(turn));
        CHECK(r && strncmp(r, "{\"ok\":true,\"messages\":", 22) == 0, "%s", r);
        ankita_string_free(r);
    }
    expect_string(ankita_session_truncate(s, 16), "{\"ok\":true,\"messages\":16}", "truncate");
    expect_string(ankita_session_truncate(s, 99), "{\"ok\":true,\"messages\":16}", "truncate past");

    /* The session answers as a stateless trim of the same history. */
    char *snapshot = ankita_session_snapshot(s);
    CHECK(snapshot && strncmp(snapshot, "{\"ok\":true,\"messages\":[", 23) == 0, "%s", snapshot);
    size_t request_len = strlen(snapshot) + 32;
    char *request = malloc(request_len);
    snprintf(request, request_len, "{\"max_bytes\":600,%s", snapshot + 11);
    char *stateless = ankita_trim(request);
    char *answer = ankita_session_trim(s);
    CHECK(answer && stateless && strcmp(answer, stateless) == 0, "\n  session   %s\n  stateless %s",
          answer, stateless);
    CHECK(answer && strstr(answer, "\"dropped_messages\":[1,2,") != NULL, "%s", answer);
    ankita_string_free(answer);
    ankita_string_free(stateless);
    free(request);

    char *plan = ankita_session_plan(s);
    CHECK(plan && strncmp(plan, "{\"ok\":true,\"plan\":[0,", 21) == 0, "%s", plan);
    /* The plan's report gives the dropped messages as [start, end) runs. */
    CHECK(plan && strstr(plan, "\"dropped_ranges\":[[1,") != NULL, "%s", plan);
    ankita_string_free(plan);

    /* Restore: a new session fed the saved messages answers the same. */
    AnkitaSession *restored = ankita_session_new("{\"max_bytes\":600,\"trim_to\":null}", NULL);
    char *messages = snapshot + 22;
    messages[strlen(messages) - 1] = '\0'; /* drop the closing brace */
    expect_string(ankita_session_append(restored, messages), "{\"ok\":true,\"messages\":16}",
                  "restore");
    /* By default a session is cache-stable: its report says where the kept run starts. */
    AnkitaSession *stable = ankita_session_new("{\"max_bytes\":600}", NULL);
    ankita_string_free(ankita_session_append(stable, messages));
    char *kept = ankita_session_trim(stable);
    CHECK(kept && strstr(kept, "\"cut\":") != NULL, "%s", kept);
    ankita_string_free(kept);
    ankita_session_free(stable);
    char *a = ankita_session_trim(s);
    char *b = ankita_session_trim(restored);
    CHECK(a && b && strcmp(a, b) == 0, "restored session answers differently");
    ankita_string_free(a);
    ankita_string_free(b);
    ankita_string_free(snapshot);

    char *r = ankita_session_append(s, "{\"role\":\"user\"}");
    CHECK(r && strstr(r, "\"code\":\"invalid_request\"") != NULL, "%s", r);
    ankita_string_free(r);
    r = ankita_session_append(s, NULL);
    CHECK(r && strstr(r, "messages_json is NULL") != NULL, "%s", r);
    ankita_string_free(r);
    r = ankita_session_trim(NULL);
    CHECK(r && strstr(r, "session is NULL") != NULL, "%s", r);
    ankita_string_free(r);

    /* Growing after trims: the buffer moves while the session keeps its split (valgrind
       would see any read of the old one), truncating and appending again. */
    for (int i = 0; i < 60; i++) {
        char *grown = ankita_session_append(restored, turn);
        CHECK(grown && strncmp(grown, "{\"ok\":true,", 11) == 0, "%s", grown);
        ankita_string_free(grown);
        if (i % 7 == 3) ankita_string_free(ankita_session_truncate(restored, (size_t)(10 + i)));
        char *trimmed = ankita_session_trim(restored);
        CHECK(trimmed && strncmp(trimmed, "{\"ok\":true,", 11) == 0, "%s", trimmed);
        ankita_string_free(trimmed);
    }

    ankita_session_free(s);
    ankita_session_free(restored);
    ankita_session_free(NULL);
}

/* A batch answers each request as ankita_trim answers it, in order; a bad row is its own error. */
static void test_trim_many(void) {
    const char *requests[4] = {
        "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
        "{\"messages\": [",
        NULL,
        "[{\"role\":\"user\",\"content\":\"hello\"}]",
    };
    char *answers[4];
    char *status = ankita_trim_many(requests, NULL, 4, "{\"max_bytes\": 4096}", 2, answers);
    CHECK(status && strcmp(status, "{\"ok\":true,\"requests\":4,\"failed\":2}") == 0, "%s",
          status);
    ankita_string_free(status);
    char *one = ankita_trim("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
                            "\"max_bytes\": 4096}");
    CHECK(answers[0] && one && strcmp(answers[0], one) == 0, "%s\n  vs %s", answers[0], one);
    ankita_string_free(one);
    CHECK(answers[1] && strstr(answers[1], "\"code\":\"invalid_json\"") != NULL, "%s", answers[1]);
    CHECK(answers[2] && strstr(answers[2], "\"message\":\"requests[2] is NULL\"") != NULL, "%s",
          answers[2]);
    CHECK(answers[3] && strstr(answers[3], "\"ok\":true") != NULL &&
              strstr(answers[3], "\"budget_bytes\":4096") != NULL,
          "%s", answers[3]);
    for (int i = 0; i < 4; i++) ankita_string_free(answers[i]);
    status = ankita_trim_many(requests, NULL, 4, "{\"max_byte\": 1}", 0, answers);
    CHECK(status && strstr(status, "\"path\":\"max_byte\"") != NULL, "%s", status);
    CHECK(answers[0] == NULL && answers[3] == NULL, "answers of a failed call");
    ankita_string_free(status);
}

/* The tail's selection from a history's shapes: 200 plain messages, the user's every tenth. */
static void test_tail_select(void) {
    const char *request = "{\"call\":\"trim\",\"messages\":200,\"options\":{}}";
    char *r = ankita_tail_select(request, NULL, 0);
    CHECK(r && strstr(r, "\"send\":\"shapes\"") && strstr(r, "\"lengths\":false"), "%s", r);
    ankita_string_free(r);
    uint32_t words[600];
    for (size_t i = 0; i < 200; i++) {
        words[3 * i] = 1;                  /* plain */
        words[3 * i + 1] = i % 10 ? 1 : 0; /* the model's, or the user's */
        words[3 * i + 2] = 0xFFFFFFFFu;    /* not measured */
    }
    r = ankita_tail_select(request, (const uint8_t *)words, sizeof words);
    /* The first tail (2 x 40 + 32 = 112 messages) starts back on the user's message 80; of the
     * older ones go message 0 and the model's up to the first of the user's, the user's 70 that
     * ends the run of whole turns from 10, and 79, the end of the plain run after it. */
    CHECK(r && strstr(r, "\"send\":\"tail\"") && strstr(r, "\"from\":80") &&
              strstr(r, "\"earlier\":[[0,10],[70,71],[79,80]]") && strstr(r, "\"size\":112") &&
              strstr(r, "\"gaps\":[\"turns\",\"plain\"]"),
          "%s", r);
    ankita_string_free(r);
    const char *after =
        "{\"call\":\"trim\",\"messages\":200,\"options\":{},"
        "\"after\":{\"size\":112,\"widen\":{\"ok\":true,\"widen\":true}}}";
    r = ankita_tail_select(after, (const uint8_t *)words, sizeof words);
    CHECK(r && strstr(r, "\"send\":\"whole\""), "%s", r);
    ankita_string_free(r);
    r = ankita_tail_select(request, (const uint8_t *)words, 3);
    CHECK(r && strstr(r, "\"code\":\"invalid_request\"") && strstr(r, "\"path\":\"shape\""),
          "%s", r);
    ankita_string_free(r);
    r = ankita_tail_select(request, (const uint8_t *)words, 4 * 599);
    CHECK(r && strstr(r, "\"path\":\"shape[599]\""), "%s", r);
    ankita_string_free(r);
}

int main(void) {
    test_version();
    test_tail_select();
    test_formats();
    test_probe();
    test_bad_arguments();
    test_trim_and_sanitize();
    test_count_tokens();
    test_estimate();
    test_probe_with_profile();
    test_probe_file();
    test_session();
    test_trim_many();
    if (failures) {
        fprintf(stderr, "%d C check(s) failed\n", failures);
        return 1;
    }
    printf("C ABI tests passed\n");
    return 0;
}
