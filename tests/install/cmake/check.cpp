// Built against an installed ankita with CMake (find_package(ankita)): the C++17 wrapper
// ankita.hpp, each answer checked. Prints "N passed, N failed".
#include <ankita.hpp>

#include <cstdio>
#include <string>
#include <string_view>

namespace {

int passed = 0;
int failed = 0;

void check(bool ok, std::string_view what, std::string_view detail = {}) {
    if (ok) {
        ++passed;
        return;
    }
    ++failed;
    std::fprintf(stderr, "FAIL %.*s: %.*s\n", static_cast<int>(what.size()), what.data(),
                 static_cast<int>(detail.size()), detail.data());
}

bool contains(const std::string &text, std::string_view needle) {
    return text.find(needle) != std::string::npos;
}

constexpr std::string_view png =
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAABqQAAAiYCAIAAAA+NVHk";

}  // namespace

int main() {
    // Success: the answer's JSON text.
    std::string filler(800, 'w');
    std::string request = R"({"messages": [{"role": "system", "content": "Answer briefly."},)"
                          R"( {"role": "user", "content": "an old question"},)"
                          R"( {"role": "assistant", "content": ")" + filler + R"("},)"
                          R"( {"role": "user", "content": "the question"}], "max_bytes": 600,)"
                          R"( "fill": false})";
    std::string trimmed = ankita::trim(request);
    check(contains(trimmed, R"("ok":true)") && contains(trimmed, R"("dropped_messages":[2])"),
          "trim", trimmed);

    // An error answer throws ankita::error with the code and path.
    try {
        ankita::trim(R"({"messages": [{"role": "user", "content": [{"text": "no type"}]}]})");
        check(false, "trim of an invalid request throws");
    } catch (const ankita::error &e) {
        check(e.code() == "invalid_request" && e.path() == "messages[0].content[0].type" &&
                  contains(e.what(), "messages[0].content[0].type") &&
                  contains(e.json(), R"("ok":false)"),
              "ankita::error", e.what());
    }

    // The expected-like result: no exception until value() is asked of an error.
    ankita::result bad = ankita::try_trim("{");
    check(!bad && bad.error().code() == "invalid_json" && bad.error().path().empty(),
          "try_trim of invalid JSON", bad.json());
    bool threw = false;
    try {
        (void)bad.value();
    } catch (const ankita::error &e) {
        threw = e.code() == "invalid_json";
    }
    check(threw, "result::value() of an error throws it");

    // A string_view is not NUL-terminated and may hold a NUL: refused, never cut short.
    ankita::result nul = ankita::try_probe_image(std::string_view("abc\0def", 7));
    check(!nul && nul.error().code() == "invalid_argument", "NUL byte in an argument", nul.json());

    std::string probed = ankita::probe_image(png);
    check(contains(probed, R"("width":1700,"height":2200,"tokens":765)"), "probe_image", probed);
    std::string low = ankita::probe_image(png, R"({"model": "gpt-4o", "detail": "low"})");
    check(contains(low, R"("tokens":85)"), "probe_image with options", low);
    try {
        ankita::probe_image(png, R"({"model": "no-such-model", "strict_model": true})");
        check(false, "an unknown model throws (strict_model)");
    } catch (const ankita::error &e) {
        check(e.code() == "invalid_request", "unknown model", e.what());
    }

    check(contains(ankita::estimate_image_tokens(1700, 2200), R"("tokens":765)"),
          "estimate_image_tokens");
    ankita::result zero = ankita::try_estimate_image_tokens(0, 10);
    check(!zero && zero.error().code() == "invalid_argument", "zero side", zero.json());

    std::string sanitized = ankita::sanitize(
        R"([{"role": "tool", "tool_call_id": "x", "content": "orphan"},)"
        R"( {"role": "user", "content": "hi"}])");
    check(contains(sanitized, R"("repaired":[{)"), "sanitize", sanitized);

    // A session answers what trim answers for the same history.
    {
        // trim_to null: the session opts out of cache-stable trimming, as the stateless trim.
        ankita::session s(R"({"max_bytes": 4096, "trim_to": null})");
        check(contains(s.append(R"([{"role": "user", "content": "Hi"}])"),
                       R"("messages":1)"),
              "session append", "");
        ankita::session moved = std::move(s);
        check(moved.trim() ==
                  ankita::trim(R"({"messages": [{"role": "user", "content": "Hi"}], "max_bytes": 4096})"),
              "session trim", "");
        check(moved.try_trim().value() == moved.trim(), "session try_trim", "");
        check(contains(moved.plan(), R"("plan":[0])"), "session plan", "");
        check(contains(moved.truncate(0), R"("messages":0)"), "session truncate", "");
        check(!moved.try_append("not json").has_value(), "session try_append error", "");
        check(contains(ankita::count_tokens(R"({"messages": [{"role": "user", "content": "Hi"}]})"),
                       R"("total":)"),
              "count_tokens", "");
        try {
            ankita::session unknown(R"({"max_byts": 1})");
            check(false, "a session with an unknown option throws", "");
        } catch (const ankita::error &e) {
            check(e.code() == "invalid_request", "session error code", e.code());
        }
    }
    check(ankita::version() == ANKITA_TEST_VERSION, "version", ankita::version());

    // The owning pointer releases through ankita_string_free (valgrind checks the leaks).
    ankita::unique_string raw(ankita_probe_image(png.data()));
    check(raw && contains(raw.get(), R"("format":"png")"), "unique_string");

    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
