// The C++ wrapper (include/ankita.hpp) speaks one way: every free function and session method
// has a `try_*` form answering an ankita::result and a plain form answering the success's JSON
// text or throwing ankita::error; each agrees with the C ABI it wraps.

#include <ankita.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

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

    // formats and options: the C ABI's descriptions, every format and option named.
    std::string formats = ankita::formats();
    CHECK(formats == c_answer(ankita_formats()));
    for (const char *name : {"openai", "anthropic", "responses", "gemini", "ai-sdk"}) {
        CHECK(formats.find(std::string("\"name\":\"") + name + "\"") != std::string::npos);
    }
    std::string options = ankita::options();
    CHECK(options == c_answer(ankita_options()));
    for (const char *name : {"max_bytes", "context_tokens", "format", "file_sizes"}) {
        CHECK(options.find(std::string("\"name\":\"") + name + "\"") != std::string::npos);
    }

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

    // trim_many: each answer is what trim answers for its request with the defaults filled in;
    // a bad row is its own error, bad defaults the call's.
    {
        const std::string messages =
            R"([{"role": "user", "content": "first"}, {"role": "assistant", "content": "ok"},)"
            R"({"role": "user", "content": "second"}])";
        const std::string with_defaults =
            R"({"messages": )" + messages + R"(, "max_messages": 1, "model": "gpt-4o"})";
        std::vector<std::string_view> rows = {messages, bad, request};
        for (std::size_t threads : {std::size_t(1), std::size_t(2)}) {
            std::vector<ankita::result> answers;
            ankita::result call = ankita::try_trim_many(
                rows, &answers, R"({"max_messages": 1, "model": "gpt-4o"})", threads);
            CHECK(call.has_value());
            CHECK(call.json().find("\"failed\":1") != std::string::npos);
            CHECK(answers.size() == 3);
            if (answers.size() == 3) {
                CHECK(answers[0].json() == c_answer(ankita_trim(with_defaults.c_str())));
                CHECK(!answers[1].has_value());
                CHECK(answers[1].error().path() == "messages[0].content");
                CHECK(answers[2].has_value());
            }
        }
        CHECK(ankita::trim_many(rows).size() == 3);
        std::vector<ankita::result> answers;
        CHECK(!ankita::try_trim_many(rows, &answers, R"({"nope": 1})").has_value());
        CHECK(answers.empty());
        thrown = false;
        try {
            ankita::trim_many(rows, R"({"nope": 1})");
        } catch (const ankita::error &e) {
            thrown = e.code() == "invalid_request";
        }
        CHECK(thrown);
        CHECK(ankita::try_trim_many(rows, &answers, std::string_view("{\0}", 3)).error().code() ==
              "invalid_argument");
        CHECK(ankita::trim_many({}).empty());
    }

    // A session's trim() is the free trim's kind of value, and its answer (opted out of
    // cache-stable trimming, a session's default, whose report says where the kept run starts).
    ankita::session s(R"({"model": "gpt-4o", "trim_to": null})");
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
