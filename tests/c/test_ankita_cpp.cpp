// The C++ wrapper (include/ankita.hpp) speaks one way: every free function and session method
// has a `try_*` form answering an ankita::result and a plain form answering the success's JSON
// text or throwing ankita::error; each agrees with the C ABI it wraps.

#include <ankita.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

static int failures = 0;

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                    \
        }                                                                  \
    } while (0)

static std::string c_answer(char *answer) {
    std::string text(answer);
    ankita_string_free(answer);
    return text;
}

int main() {
    const std::string request =
        R"({"messages": [{"role": "system", "content": "Be brief."},)"
        R"({"role": "user", "content": "Hello there"}], "model": "gpt-4o"})";

    // trim: the plain and the try_ form give the C ABI's answer.
    std::string trimmed = ankita::trim(request);
    CHECK(trimmed == c_answer(ankita_trim(request.c_str())));
    CHECK(ankita::try_trim(request).value() == trimmed);

    // count_tokens: exists in both forms, as ankita_count_tokens answers.
    std::string counted = ankita::count_tokens(request);
    CHECK(counted == c_answer(ankita_count_tokens(request.c_str())));
    CHECK(counted.find("\"unit\":\"tokens\"") != std::string::npos);
    CHECK(ankita::try_count_tokens(request).has_value());

    // An error: the try_ form holds it, the plain form throws it.
    const std::string bad = R"({"messages": [{"role": "user", "content": 3}]})";
    ankita::result failed = ankita::try_trim(bad);
    CHECK(!failed.has_value());
    CHECK(failed.error().code() == "invalid_request");
    CHECK(failed.error().path() == "messages[0].content");
    bool thrown = false;
    try {
        ankita::trim(bad);
    } catch (const ankita::error &e) {
        thrown = e.code() == "invalid_request";
    }
    CHECK(thrown);
    thrown = false;
    try {
        ankita::count_tokens(R"({"messages": 1})");
    } catch (const ankita::error &e) {
        thrown = e.path() == "messages";
    }
    CHECK(thrown);

    // A session's trim() is the free trim's kind of value, and its answer.
    ankita::session s(R"({"model": "gpt-4o"})");
    CHECK(s.append(R"([{"role": "system", "content": "Be brief."}])") ==
          R"({"ok":true,"messages":1})");
    s.append(R"([{"role": "user", "content": "Hello there"}])");
    std::string from_session = s.trim();
    CHECK(from_session == trimmed);
    CHECK(s.try_trim().value() == trimmed);
    CHECK(s.truncate(1) == R"({"ok":true,"messages":1})");
    thrown = false;
    try {
        s.append("not json");
    } catch (const ankita::error &) {
        thrown = true;
    }
    CHECK(thrown);
    CHECK(s.snapshot().find("Be brief.") != std::string::npos);
    CHECK(s.try_plan().has_value());

    if (failures) {
        std::fprintf(stderr, "%d C++ checks failed\n", failures);
        return EXIT_FAILURE;
    }
    std::printf("C++ wrapper: all checks passed\n");
    return EXIT_SUCCESS;
}
