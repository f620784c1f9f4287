/*
 * ankita.hpp — a header-only C++17 wrapper over the C API of ankita.h.
 *
 *   #include <ankita.hpp>
 *
 *   std::string answer = ankita::trim(R"({"messages": [...], "max_bytes": 60000})");
 *   // {"ok":true,"messages":[...],"report":{...}}; an error answer throws ankita::error
 *
 *   ankita::result r = ankita::try_trim(request);   // the same, without throwing
 *   if (!r) std::cerr << r.error().code() << " at " << r.error().path() << "\n";
 *
 * Arguments are std::string_view (copied once to add the terminating NUL the C API needs; a
 * view holding a NUL byte is an `invalid_argument` error, never a silently shortened string).
 * Answers are std::string: the library's JSON text, released with ankita_string_free as soon
 * as it is copied. Only the top of an answer is read here ("ok" and the "error" object's
 * "code", "message" and "path"); parse the rest with the JSON library of your choice.
 *
 * Link with -lankita (pkg-config ankita, or CMake find_package(ankita) and ankita::ankita).
 */
#ifndef ANKITA_HPP
#define ANKITA_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ankita.h"

namespace ankita {

/** Releases a string returned by the library with the library's own ankita_string_free. */
struct string_deleter {
    void operator()(char *s) const noexcept { ankita_string_free(s); }
};

/** A string returned by the library, released when it goes out of scope. */
using unique_string = std::unique_ptr<char, string_deleter>;

/** An error answer: `{"ok": false, "error": {"code", "message", "path"?, ...}}`. */
class error : public std::runtime_error {
public:
    error(std::string code, std::string message, std::string path, std::string json)
        : std::runtime_error(describe(code, message, path)), code_(std::move(code)),
          message_(std::move(message)), path_(std::move(path)), json_(std::move(json)) {}

    /** The stable error code: `invalid_request`, `context_budget_exceeded`, ... */
    const std::string &code() const noexcept { return code_; }
    /** The human-readable message. */
    const std::string &message() const noexcept { return message_; }
    /** Where in the request the error is (`messages[3].content[1].type`); empty if nowhere. */
    const std::string &path() const noexcept { return path_; }
    /** The whole error answer, with any further details (`breakdown`, ...). */
    const std::string &json() const noexcept { return json_; }

private:
    static std::string describe(const std::string &code, const std::string &message,
                                const std::string &path) {
        std::string text = code + ": " + message;
        if (!path.empty()) text += " (at " + path + ")";
        return text;
    }

    std::string code_;
    std::string message_;
    std::string path_;
    std::string json_;
};

namespace detail {

/* Reads just enough JSON to find the answer's "ok" and its error's code, message and path. */
class scanner {
public:
    explicit scanner(std::string_view text) : s_(text) {}

    void space() {
        while (i_ < s_.size() &&
               (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
            ++i_;
    }

    bool eat(char c) {
        space();
        if (i_ < s_.size() && s_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }

    bool peek(char c) {
        space();
        return i_ < s_.size() && s_[i_] == c;
    }

    bool word(std::string_view w) {
        space();
        if (s_.substr(i_, w.size()) != w) return false;
        i_ += w.size();
        return true;
    }

    /* A JSON string, unescaped into UTF-8; `out` may be null to skip it. */
    bool string(std::string *out) {
        if (!eat('"')) return false;
        while (i_ < s_.size()) {
            char c = s_[i_++];
            if (c == '"') return true;
            if (c != '\\') {
                if (out) out->push_back(c);
                continue;
            }
            if (i_ >= s_.size()) return false;
            char e = s_[i_++];
            switch (e) {
            case '"': case '\\': case '/': if (out) out->push_back(e); break;
            case 'b': if (out) out->push_back('\b'); break;
            case 'f': if (out) out->push_back('\f'); break;
            case 'n': if (out) out->push_back('\n'); break;
            case 'r': if (out) out->push_back('\r'); break;
            case 't': if (out) out->push_back('\t'); break;
            case 'u': {
                std::uint32_t cp = 0;
                if (!hex4(&cp)) return false;
                if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(i_, 2) == "\\u") {
                    i_ += 2;
                    std::uint32_t low = 0;
                    if (!hex4(&low) || low < 0xDC00 || low >= 0xE000) return false;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                if (out) utf8(cp, out);
                break;
            }
            default: return false;
            }
        }
        return false;
    }

    /* Skips one value of any kind. */
    bool value() {
        space();
        if (i_ >= s_.size()) return false;
        char c = s_[i_];
        if (c == '"') return string(nullptr);
        if (c != '{' && c != '[') {
            while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']') ++i_;
            return true;
        }
        std::size_t depth = 0;
        while (i_ < s_.size()) {
            c = s_[i_];
            if (c == '"') {
                if (!string(nullptr)) return false;
                continue;
            }
            ++i_;
            if (c == '{' || c == '[') ++depth;
            if ((c == '}' || c == ']') && --depth == 0) return true;
        }
        return false;
    }

private:
    bool hex4(std::uint32_t *cp) {
        if (s_.size() - i_ < 4) return false;
        for (int k = 0; k < 4; ++k) {
            char h = s_[i_++];
            std::uint32_t d;
            if (h >= '0' && h <= '9') d = static_cast<std::uint32_t>(h - '0');
            else if (h >= 'a' && h <= 'f') d = static_cast<std::uint32_t>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') d = static_cast<std::uint32_t>(h - 'A' + 10);
            else return false;
            *cp = (*cp << 4) | d;
        }
        return true;
    }

    static void utf8(std::uint32_t cp, std::string *out) {
        if (cp < 0x80) {
            out->push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }

    std::string_view s_;
    std::size_t i_ = 0;
};

/* Reads the "error" object's code, message and path; other members are skipped. */
inline bool read_error(scanner &in, std::string *code, std::string *message, std::string *path) {
    if (!in.eat('{')) return false;
    if (in.eat('}')) return true;
    do {
        std::string key;
        if (!in.string(&key) || !in.eat(':')) return false;
        std::string *field = key == "code" ? code
                             : key == "message" ? message
                             : key == "path" ? path
                                             : nullptr;
        if (field && in.peek('"')) {
            if (!in.string(field)) return false;
        } else if (!in.value()) {
            return false;
        }
    } while (in.eat(','));
    return in.eat('}');
}

}  // namespace detail

/**
 * The answer of one call: its JSON text, and whether it is an error (expected-like:
 * `if (r) use(r.value()); else report(r.error());`).
 */
class result {
public:
    /** Takes an answer of the library; an answer that cannot be read is an `internal` error. */
    explicit result(std::string json) : json_(std::move(json)) {
        detail::scanner in(json_);
        bool ok = false;
        bool seen_ok = false;
        std::string code, message, path;
        bool readable = in.eat('{');
        while (readable && !in.peek('}')) {
            std::string key;
            if (!in.string(&key) || !in.eat(':')) {
                readable = false;
                break;
            }
            if (key == "ok") {
                seen_ok = true;
                if (in.word("true")) ok = true;
                else if (!in.word("false")) readable = false;
                if (ok) break; /* nothing else is needed from a success */
            } else if (key == "error") {
                readable = detail::read_error(in, &code, &message, &path);
            } else {
                readable = in.value();
            }
            if (readable && !in.eat(',')) break;
        }
        if (readable && seen_ok && ok) return;
        if (!readable || !seen_ok || code.empty()) {
            code = "internal";
            message = "ankita.hpp cannot read the library's answer";
            path.clear();
        }
        error_ = std::make_shared<const ankita::error>(std::move(code), std::move(message),
                                                       std::move(path), json_);
    }

    /** True for `{"ok": true, ...}`. */
    bool has_value() const noexcept { return !error_; }
    explicit operator bool() const noexcept { return has_value(); }

    /** The answer's JSON text, whether it is a success or an error. */
    const std::string &json() const noexcept { return json_; }

    /** The success's JSON text; throws the error when the answer is one. */
    const std::string &value() const & {
        if (error_) throw *error_;
        return json_;
    }
    std::string value() && {
        if (error_) throw *error_;
        return std::move(json_);
    }

    /** The error; only valid when `has_value()` is false (throws std::logic_error otherwise). */
    const ankita::error &error() const {
        if (!error_) throw std::logic_error("ankita::result::error() on a success");
        return *error_;
    }

private:
    std::string json_;
    std::shared_ptr<const ankita::error> error_;
};

namespace detail {

/* The string_view as a NUL-terminated string; false when it holds a NUL byte. */
inline bool c_string(std::string_view view, std::string *out) {
    if (view.find('\0') != std::string_view::npos) return false;
    out->assign(view.data(), view.size());
    return true;
}

inline result take(char *answer) {
    unique_string owned(answer);
    if (!owned) return result(std::string());
    return result(std::string(owned.get()));
}

inline result nul_byte(const char *argument) {
    return result(std::string(R"({"ok":false,"error":{"code":"invalid_argument","message":")") +
                  argument + R"( contains a NUL byte"}})");
}

}  // namespace detail

/** `ankita_trim`: trims a request (the JSON contract) to its budget. */
inline result try_trim(std::string_view request_json) {
    std::string arg;
    if (!detail::c_string(request_json, &arg)) return detail::nul_byte("request_json");
    return detail::take(ankita_trim(arg.c_str()));
}

/** `ankita_sanitize`: repairs a messages array. */
inline result try_sanitize(std::string_view messages_json) {
    std::string arg;
    if (!detail::c_string(messages_json, &arg)) return detail::nul_byte("messages_json");
    return detail::take(ankita_sanitize(arg.c_str()));
}

/** `ankita_count_tokens`: each message's cost as `trim` prices it, and their total. */
inline result try_count_tokens(std::string_view request_json) {
    return detail::take(ankita_count_tokens_n(request_json.data(), request_json.size()));
}

/** `ankita_probe_image`: format, size and price of a data URL or bare base64. */
inline result try_probe_image(std::string_view image) {
    std::string arg;
    if (!detail::c_string(image, &arg)) return detail::nul_byte("image");
    return detail::take(ankita_probe_image(arg.c_str()));
}

/** `ankita_probe_image_with`: the same, priced with options (`{"model": "gpt-4o"}`, ...). */
inline result try_probe_image(std::string_view image, std::string_view options_json) {
    std::string arg, options;
    if (!detail::c_string(image, &arg)) return detail::nul_byte("image");
    if (!detail::c_string(options_json, &options)) return detail::nul_byte("options_json");
    return detail::take(ankita_probe_image_with(arg.c_str(), options.c_str()));
}

/** `ankita_estimate_image_tokens` under the default profile. */
inline result try_estimate_image_tokens(std::uint32_t width, std::uint32_t height) {
    return detail::take(ankita_estimate_image_tokens(width, height, nullptr));
}

/** `ankita_estimate_image_tokens` with options (`{"image_profile": "anthropic"}`, ...). */
inline result try_estimate_image_tokens(std::uint32_t width, std::uint32_t height,
                                        std::string_view options_json) {
    std::string options;
    if (!detail::c_string(options_json, &options)) return detail::nul_byte("options_json");
    return detail::take(ankita_estimate_image_tokens(width, height, options.c_str()));
}

/**
 * `ankita_trim_many`: trims a batch (a dataset) on `threads` threads (0: every core).
 * `answers` receives one result a request, in order, each what `try_trim` answers for it (a
 * bad request is its own error result, never the batch's); `defaults_json` (empty: none) is an
 * object of request keys filling in the keys a request lacks. Returns the call's answer
 * (`{"ok":true,"requests":N,"failed":K}`), or its error (bad defaults) with `answers` empty.
 */
inline result try_trim_many(const std::vector<std::string_view> &requests,
                            std::vector<result> *answers, std::string_view defaults_json = {},
                            std::size_t threads = 0) {
    answers->clear();
    std::string defaults;
    if (!detail::c_string(defaults_json, &defaults)) return detail::nul_byte("defaults_json");
    std::vector<const char *> texts;
    std::vector<std::size_t> lens;
    texts.reserve(requests.size());
    lens.reserve(requests.size());
    for (std::string_view request : requests) {
        /* an empty view's data() may be null, which the C API reads as a missing request */
        texts.push_back(request.data() != nullptr ? request.data() : "");
        lens.push_back(request.size());
    }
    std::vector<char *> raw(requests.size(), nullptr);
    result call = detail::take(ankita_trim_many(texts.data(), lens.data(), requests.size(),
                                                defaults_json.empty() ? nullptr : defaults.c_str(),
                                                threads, raw.data()));
    answers->reserve(raw.size());
    for (char *answer : raw) {
        if (answer != nullptr) answers->push_back(detail::take(answer));
    }
    if (!call) answers->clear();
    return call;
}

/** `try_trim_many`'s answers; throws the call's ankita::error (bad defaults). */
inline std::vector<result> trim_many(const std::vector<std::string_view> &requests,
                                     std::string_view defaults_json = {},
                                     std::size_t threads = 0) {
    std::vector<result> answers;
    try_trim_many(requests, &answers, defaults_json, threads).value();
    return answers;
}

/** Trims a request; returns the success's JSON text, throws ankita::error otherwise. */
inline std::string trim(std::string_view request_json) {
    return try_trim(request_json).value();
}

/** Counts a request's messages; returns the success's JSON text, throws ankita::error otherwise. */
inline std::string count_tokens(std::string_view request_json) {
    return try_count_tokens(request_json).value();
}

/** Repairs a messages array; throws ankita::error on an error answer. */
inline std::string sanitize(std::string_view messages_json) {
    return try_sanitize(messages_json).value();
}

/** Probes an image; throws ankita::error on an error answer (not for an undecodable image). */
inline std::string probe_image(std::string_view image) {
    return try_probe_image(image).value();
}

/** Probes an image priced with options; throws ankita::error on an error answer. */
inline std::string probe_image(std::string_view image, std::string_view options_json) {
    return try_probe_image(image, options_json).value();
}

/** Vision tokens of a width × height image; throws ankita::error on an error answer. */
inline std::string estimate_image_tokens(std::uint32_t width, std::uint32_t height) {
    return try_estimate_image_tokens(width, height).value();
}

/** The same with options; throws ankita::error on an error answer. */
inline std::string estimate_image_tokens(std::uint32_t width, std::uint32_t height,
                                         std::string_view options_json) {
    return try_estimate_image_tokens(width, height, options_json).value();
}

/** The library's version (static; never released). */
inline std::string_view version() noexcept { return ankita_version(); }

/** `ankita_formats`: what the core says of each wire format (name, whether it takes `system`,
 * merges turns, rebuilds messages; its plain message), as JSON text. */
inline std::string formats() { return detail::take(ankita_formats()).value(); }

/** `ankita_options`: every option of a trim request (name, type, doc), as JSON text. */
inline std::string options() { return detail::take(ankita_options()).value(); }

/**
 * An incremental session (`ankita_session_*`): a history given message by message, trimmed at
 * any time with the answer `trim` gives for the same history and options. Move-only; the
 * handle is released by the destructor. Used by one thread at a time.
 *
 *   ankita::session s(R"({"context_tokens": 128000, "model": "gpt-4o"})");
 *   s.append(R"([{"role": "user", "content": "Hi"}])");
 *   std::string answer = s.trim();  // s.try_trim() answers an ankita::result
 */
class session {
public:
    /** Throws ankita::error when the options are not valid. */
    explicit session(std::string_view options_json) {
        std::string arg;
        if (!detail::c_string(options_json, &arg)) {
            detail::nul_byte("options_json").value();
        }
        char *failure = nullptr;
        handle_ = ankita_session_new(arg.c_str(), &failure);
        if (!handle_) detail::take(failure).value();
    }
    session(const session &) = delete;
    session &operator=(const session &) = delete;
    session(session &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    session &operator=(session &&other) noexcept {
        std::swap(handle_, other.handle_);
        return *this;
    }
    ~session() { ankita_session_free(handle_); }

    /*
     * As the free functions: `try_*` answers a `result`, the plain name the success's JSON text
     * (throwing ankita::error otherwise).
     */

    /** Appends a JSON array of messages: `{"ok": true, "messages": N}`. */
    result try_append(std::string_view messages_json) {
        return detail::take(
            ankita_session_append_n(handle_, messages_json.data(), messages_json.size()));
    }
    std::string append(std::string_view messages_json) {
        return try_append(messages_json).value();
    }
    /** Keeps the first `length` messages: `{"ok": true, "messages": N}`. */
    result try_truncate(std::size_t length) {
        return detail::take(ankita_session_truncate(handle_, length));
    }
    std::string truncate(std::size_t length) { return try_truncate(length).value(); }
    /** The answer of `trim` for the history held. */
    result try_trim() { return detail::take(ankita_session_trim(handle_)); }
    std::string trim() { return try_trim().value(); }
    /** The same as a plan: indices of the messages held, and the changed messages. */
    result try_plan() { return detail::take(ankita_session_plan(handle_)); }
    std::string plan() { return try_plan().value(); }
    /** The provider's input tokens of the last answer's request (`usage.input_tokens`):
     * `{"ok": true, "token_factor": {...}}`, the factor the next trims count with. */
    result try_observe_usage(std::uint64_t input_tokens) {
        return detail::take(ankita_session_observe_usage(handle_, input_tokens));
    }
    std::string observe_usage(std::uint64_t input_tokens) {
        return try_observe_usage(input_tokens).value();
    }
    /** `{"ok": true, "messages": [...]}`: the messages held, to save and append again. */
    result try_snapshot() { return detail::take(ankita_session_snapshot(handle_)); }
    std::string snapshot() { return try_snapshot().value(); }

private:
    AnkitaSession *handle_ = nullptr;
};

}  // namespace ankita

#endif /* ANKITA_HPP */
